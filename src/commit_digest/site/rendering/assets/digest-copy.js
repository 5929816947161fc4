/* commit-digest: the "copy" button next to a commit's SHA.
   The button comes hidden, so a reader without JavaScript sees the SHA as text and no dead
   control. The text to copy is the button's data-copy, the word shown once copied its
   data-copied; both come from the page itself, and only textContent is ever set. */
(function () {
  "use strict";

  var FEEDBACK_MS = 2000;

  function reveal() {
    var buttons = document.querySelectorAll("button.digest-copy[hidden]");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].hidden = false;
    }
  }

  function feedback(button) {
    if (!button.hasAttribute("data-label")) {
      button.setAttribute("data-label", button.textContent);
    }
    button.textContent = button.getAttribute("data-copied") || "✓";
    clearTimeout(button.digestCopyTimer);
    button.digestCopyTimer = setTimeout(function () {
      button.textContent = button.getAttribute("data-label");
    }, FEEDBACK_MS);
  }

  // Without the clipboard API (an http:// page, an old browser): select the SHA on the page so
  // the reader can copy it, and try the old copy command.
  function selectNear(button) {
    var target = button.previousElementSibling;
    if (!target || target.tagName !== "CODE") {
      return false;
    }
    var range = document.createRange();
    range.selectNodeContents(target);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    try {
      return document.execCommand("copy");
    } catch (error) {
      return false;
    }
  }

  function copy(button) {
    var text = button.getAttribute("data-copy") || "";
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () {
          feedback(button);
        },
        function () {
          if (selectNear(button)) {
            feedback(button);
          }
        }
      );
    } else if (selectNear(button)) {
      feedback(button);
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.digest-copy") : null;
    if (button) {
      copy(button);
    }
  });

  // With material's instant navigation a new page arrives without a load event: document$
  // emits for every page (and the first one); without it the DOM is already parsed here.
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(reveal);
  } else {
    reveal();
  }
})();
