/* commit-digest: what material's script (bundle.js, 114 KB) does for a page in the lean slim
   frame (the search page), which does not load it: the document is marked as scripted and
   keyboard focus as "focus-visible", as material marks them, and the header's palette toggle
   (digest-palette.js) switches the colours and remembers the reader's choice in material's own
   storage, so every other page of the site (which material's script drives) opens in it.
   Everything else on that page is CSS (drawer, tabs) or the site's own scripts (the search
   boxes, "/"). */
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.remove("no-js");
  root.classList.add("js");
  // Material's stylesheet hides the outline of header buttons not marked "focus-visible", the
  // mark its script's polyfill gives what the keyboard focuses: the same mark, from the browser.
  document.addEventListener("focusin", function (event) {
    var target = event.target;
    if (target instanceof Element && target.matches(":focus-visible")) target.classList.add("focus-visible");
  });
  document.addEventListener("focusout", function (event) {
    if (event.target instanceof Element) event.target.classList.remove("focus-visible");
  });
  var inputs = Array.prototype.slice.call(document.querySelectorAll("input[name=__palette]"));
  if (!inputs.length) return;
  var keys = ["media", "scheme", "primary", "accent"];
  function color(input) {
    var found = {};
    keys.forEach(function (key) {
      found[key] = input.getAttribute("data-md-color-" + key);
    });
    return found;
  }
  // As material does: the colours on the body, the toggle of the chosen option shown.
  function show(input) {
    var chosen = color(input);
    keys.forEach(function (key) {
      document.body.setAttribute("data-md-color-" + key, chosen[key]);
    });
    inputs.forEach(function (other) {
      var label = other.nextElementSibling;
      if (label && label.tagName === "LABEL") label.hidden = other !== input;
    });
    input.checked = true;
  }
  var stored = __md_get("__palette");
  var start = stored && typeof stored.index === "number" ? inputs[stored.index] : undefined;
  if (!start) {
    start = inputs.filter(function (input) {
      var media = input.getAttribute("data-md-color-media");
      return media && matchMedia(media).matches;
    })[0] || inputs[0];
  }
  show(start);
  inputs.forEach(function (input, index) {
    input.addEventListener("change", function () {
      show(input);
      __md_set("__palette", { index: index, color: color(input) });
    });
  });
})();
