/* commit-digest: the generated pages' controls. Every one works on the page's own elements
   and sets text with textContent only; without JavaScript the pages read as plain lists. */
(function () {
  "use strict";
})();
