/* commit-digest: what material's script (bundle.js, 114 KB) does for a page in the lean slim
   frame (the search page), which does not load it: the document is marked as scripted and
   keyboard focus as "focus-visible", as material marks them; the header casts its shadow once
   the content passes under it and shows the page's title once its heading has; the back-to-top
   button shows while the reader scrolls up; and the header's palette toggle (digest-palette.js)
   switches the colours and remembers the reader's choice in material's own storage, so every
   other page of the site (which material's script drives) opens in it. Everything else on that
   page is CSS (drawer, tabs) or the site's own scripts (the search boxes, "/"). */
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
  scrolled();
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

  // Material's rules for the header and the back-to-top button, on each scroll.
  function scrolled() {
    var header = document.querySelector(".md-header");
    var title = document.querySelector(".md-header__title");
    var heading = document.querySelector(".md-content h1");
    var main = document.querySelector(".md-main");
    var top = document.querySelector(".md-top");
    var last = window.scrollY;
    function update() {
      var y = window.scrollY;
      var height = header ? header.offsetHeight : 0;
      var active = !!main && main.offsetTop - height <= y;
      if (header) header.classList.toggle("md-header--shadow", active);
      if (title && heading) {
        var box = heading.getBoundingClientRect();
        title.classList.toggle("md-header__title--active", box.height > 0 && box.bottom <= height);
      }
      if (top) {
        var shown = active && y < last && y > 0;
        top.hidden = !shown;
        top.style.top = height + 16 + "px";
        if (shown) top.removeAttribute("tabindex");
        else {
          top.setAttribute("tabindex", "-1");
          if (document.activeElement === top) top.blur();
        }
      }
      last = y;
    }
    if (top) {
      top.addEventListener("click", function (event) {
        event.preventDefault();
        window.scrollTo({ top: 0 });
      });
    }
    window.addEventListener("scroll", update, { passive: true });
    window.addEventListener("resize", update);
    update();
  }
})();
