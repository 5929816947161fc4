/* commit-digest: the header's palette toggle of a generated page, built where this script is
   loaded: material's palette form (the same inputs and labels, which material's script mounts),
   from the site's palette settings below, instead of repeated in every page's HTML. Without
   JavaScript material's toggle does nothing either (its labels stay hidden), so nothing is lost.
   Then the reader's choice is restored, by material's own script. */
(function (options) {
  "use strict";
  var script = document.currentScript;
  var sprite = new URL("digest-icons.svg", script.src).href;
  var svgNS = "http://www.w3.org/2000/svg";
  var form = document.createElement("form");
  form.className = "md-header__option";
  form.setAttribute("data-md-component", "palette");
  options.forEach(function (option, index) {
    var input = document.createElement("input");
    input.className = "md-option";
    ["media", "scheme", "primary", "accent"].forEach(function (key) {
      input.setAttribute("data-md-color-" + key, option[key]);
    });
    if (option.toggle) input.setAttribute("aria-label", option.toggle.name);
    else input.setAttribute("aria-hidden", "true");
    input.type = "radio";
    input.name = "__palette";
    input.id = "__palette_" + index;
    form.appendChild(input);
    if (!option.toggle) return;
    var label = document.createElement("label");
    label.className = "md-header__button md-icon";
    label.title = option.toggle.name;
    label.htmlFor = "__palette_" + ((index + 1) % options.length);
    label.hidden = true;
    var svg = document.createElementNS(svgNS, "svg");
    svg.setAttribute("viewBox", option.toggle.viewBox);
    svg.setAttribute("aria-hidden", "true");
    var use = document.createElementNS(svgNS, "use");
    use.setAttribute("href", sprite + "#" + option.toggle.icon);
    svg.appendChild(use);
    label.appendChild(svg);
    form.appendChild(label);
  });
  script.parentNode.insertBefore(form, script);
})(/* PALETTE_OPTIONS */);
