/* commit-digest: the generated pages' controls. Each one works on the page's own elements and
   sets text with textContent only; without JavaScript the pages read as plain lists. */
(function () {
  "use strict";

  var PARAMS = { platforms: "platform", subsystems: "subsystem", repositories: "repository", kinds: "kind" };
  var GROUPS = ["high", "medium", "low", "unanalysed"];

  /* The reader's platform: one choice the home, day and week pages apply. A pick (the home or
     week page's select, a day page's platform chip, the "show all platforms" button) is kept in
     this browser under KEY. A ?platform= in the address wins on its page but is not kept: a link
     someone shares shows what they saw without changing the reader's own choice, until the
     reader picks it (selects it, or presses its chip). */
  var KEY = "commit-digest:platform";

  function kept() {
    try {
      return window.localStorage.getItem(KEY) || "";
    } catch (error) {
      return ""; // storage blocked: a choice lasts for its page only
    }
  }

  function keep(platform) {
    try {
      if (platform) window.localStorage.setItem(KEY, platform);
      else window.localStorage.removeItem(KEY);
    } catch (error) {
      /* as above */
    }
  }

  /* The page's platform as it opens: the address's when the page knows it, else the kept one. */
  function firstPlatform(known) {
    var given = new URLSearchParams(window.location.search).get("platform") || "";
    if (given && known(given)) return given;
    var mine = kept();
    return mine && known(mine) ? mine : "";
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return name in values ? String(values[name]) : whole;
    });
  }

  function all(selector, root) {
    return Array.prototype.slice.call((root || document).querySelectorAll(selector));
  }

  /* "rocm:3 cuda:1" (a count's data-by): the platform's number, 0 when it is not listed. */
  function countOf(by, platform) {
    var found = (by || "").split(" ").filter(function (pair) {
      return pair.slice(0, pair.lastIndexOf(":")) === platform;
    })[0];
    return found ? Number(found.slice(found.lastIndexOf(":") + 1)) : 0;
  }

  /* Material's table of contents repeats a heading's count: it follows the heading, and its
     entry goes when the heading's section does. */
  function followInContents(id, count, hidden) {
    all('a.md-nav__link[href="#' + CSS.escape(id) + '"]').forEach(function (link) {
      var shown = link.querySelector(".digest-group__count, .digest-chip__count");
      if (shown && count !== null) shown.textContent = String(count);
      var item = link.closest("li");
      if (item) item.hidden = hidden;
    });
  }

  /* The line "30 commits · high 2 · medium 12 · low 16" said again of what the filter shows
     (its badges reused, its words from the filter's data-text-total*); null: as the page had it. */
  function restater(line, one, other) {
    var original = Array.prototype.map.call(line.childNodes, function (node) { return node.cloneNode(true); });
    var badges = all('[class^="digest-badge--"]', line);
    return function (counts) {
      var parts = [];
      if (!counts) {
        parts = original.map(function (node) { return node.cloneNode(true); });
      } else {
        parts.push(document.createTextNode(counts.total === 1 ? one : fill(other, { total: counts.total })));
        badges.forEach(function (badge) {
          var group = badge.className.replace("digest-badge--", "");
          var count = counts[group] || 0;
          if (group === "unanalysed" && !count) return; // as the page's line: only when there are some
          parts.push(document.createTextNode(" · "), badge.cloneNode(true), document.createTextNode(" " + count));
        });
      }
      line.textContent = "";
      parts.forEach(function (part) { line.appendChild(part); });
    };
  }

  /* The line that says the page shows one platform only, and its button that shows them all. */
  function setUpNotice(notice, nameOf, clear) {
    var text = notice.querySelector(".digest-mine__text");
    notice.querySelector(".digest-mine__clear").addEventListener("click", clear);
    return function (platform, extra) {
      notice.hidden = !platform;
      var said = platform ? fill(notice.getAttribute("data-text-on"), { platform: nameOf(platform) }) : "";
      text.textContent = extra ? said + " " + fill(extra, { platform: nameOf(platform) }) : said;
    };
  }

  /* A day page's filter: one choice per kind, kept in the URL (?platform=rocm&subsystem=moe;
     &repository=owner/name on a site of several repositories), the platform being the reader's.
     The stats line, the groups' counts (and the table of contents'), and each choice's count
     (given the other kinds' choices) follow it. */
  function setUpFilter(filter) {
    var entries = all(".digest-entry");
    var groups = all("[data-digest-group]");
    var status = filter.querySelector(".digest-filter__status");
    var brief = document.querySelector("[data-digest-brief]");
    // A day page says its stats line's words (data-text-total*); the impact pages have none.
    var line = filter.hasAttribute("data-text-total") ? document.querySelector(".md-content .digest-stats") : null;
    var restate = line
      ? restater(line, filter.getAttribute("data-text-total-one"), filter.getAttribute("data-text-total"))
      : null;
    var kinds = Object.keys(PARAMS);
    var chosen = { platforms: "", subsystems: "", repositories: "", kinds: "" };
    var groupOf = new Map();
    groups.forEach(function (group) {
      var heading = group.querySelector("h2[id]");
      all(".digest-entry", group).forEach(function (entry) { groupOf.set(entry, heading ? heading.id : ""); });
    });

    function choice(kind, value) {
      return filter.querySelector('[data-filter-kind="' + kind + '"] [data-filter-value="' + CSS.escape(value) + '"]');
    }
    function nameOf(platform) {
      var button = choice("platforms", platform);
      return button && button.firstChild ? button.firstChild.textContent.trim() : platform;
    }
    // The reader's platform applies where the page says so (a day page's notice); the impact
    // pages filter by the address alone.
    var notice = document.querySelector("[data-digest-mine]");
    var params = new URLSearchParams(window.location.search);
    kinds.forEach(function (kind) {
      var value = kind === "platforms" && notice
        ? firstPlatform(function (platform) { return choice(kind, platform) !== null; })
        : params.get(PARAMS[kind]) || "";
      if (choice(kind, value)) chosen[kind] = value;
    });
    var say = notice
      ? setUpNotice(notice, nameOf, function () {
          chosen.platforms = "";
          keep("");
          apply();
          var everything = choice("platforms", "");
          if (everything) everything.focus(); // the pressed button went with the notice
        })
      : null;

    function matches(entry, kind, wanted) {
      return !wanted || (entry.getAttribute("data-" + kind) || "").split(" ").indexOf(wanted) >= 0;
    }
    function matchesOthers(entry, kind) {
      return kinds.every(function (other) { return other === kind || matches(entry, other, chosen[other]); });
    }

    function apply() {
      var counts = { total: 0 };
      entries.forEach(function (entry) {
        var visible = kinds.every(function (kind) { return matches(entry, kind, chosen[kind]); });
        entry.hidden = !visible;
        if (!visible) return;
        counts.total += 1;
        var group = groupOf.get(entry);
        counts[group] = (counts[group] || 0) + 1;
      });
      groups.forEach(function (group) {
        var left = group.querySelectorAll(".digest-entry:not([hidden])").length;
        group.hidden = left === 0;
        var count = group.querySelector(".digest-group__count");
        if (count) count.textContent = String(left);
        var heading = group.querySelector("h2[id]");
        if (heading) followInContents(heading.id, left, left === 0);
      });
      all("[data-filter-kind]", filter).forEach(function (row) {
        var kind = row.getAttribute("data-filter-kind");
        var offered = 0;
        all("[data-filter-value]", row).forEach(function (button) {
          var value = button.getAttribute("data-filter-value");
          button.setAttribute("aria-pressed", String(value === chosen[kind]));
          if (!value) return;
          var found = entries.filter(function (entry) {
            return matches(entry, kind, value) && matchesOthers(entry, kind);
          }).length;
          var count = button.querySelector(".digest-chip__count");
          if (count) count.textContent = String(found);
          // A choice that would show nothing goes, unless chosen (a platform the day lacks,
          // picked on another page, says 0 here).
          button.hidden = found === 0 && value !== chosen[kind];
          if (!button.hidden) offered += 1;
        });
        row.hidden = offered === 0;
      });
      if (brief) showBrief(brief, chosen.platforms);
      var filtered = chosen.platforms || chosen.subsystems || chosen.repositories || chosen.kinds;
      if (restate) restate(filtered ? counts : null);
      if (say) say(chosen.platforms);
      status.textContent = !filtered
        ? ""
        : counts.total
          ? fill(filter.getAttribute("data-text-showing"), { shown: counts.total, total: entries.length })
          : filter.getAttribute("data-text-none");
      var url = new URL(window.location.href);
      kinds.forEach(function (kind) {
        if (chosen[kind]) url.searchParams.set(PARAMS[kind], chosen[kind]);
        else url.searchParams.delete(PARAMS[kind]);
      });
      window.history.replaceState(null, "", url.toString());
    }

    filter.addEventListener("click", function (event) {
      var button = event.target.closest("[data-filter-value]");
      if (!button) return;
      var kind = button.closest("[data-filter-kind]").getAttribute("data-filter-kind");
      chosen[kind] = button.getAttribute("data-filter-value");
      if (kind === "platforms" && say) keep(chosen[kind]); // the reader's pick: every page applies it
      apply();
    });
    filter.hidden = false;
    apply();
  }

  /* A day's brief follows the day's filter: the chosen platform's brief in place of the whole
     day's, when that platform has one. */
  function showBrief(brief, platform) {
    var own = platform
      ? brief.querySelector('details[data-brief-for="' + CSS.escape(platform) + '"]')
      : null;
    brief.querySelectorAll("[data-brief-for]").forEach(function (block) {
      if (block.tagName === "DETAILS") {
        block.classList.toggle("digest-brief--chosen", block === own);
        if (block === own) block.open = true;
      } else {
        block.hidden = own !== null;
      }
    });
  }

  /* A note the script adds after ``place`` (once), shown with ``text`` or hidden without. */
  function note(place, text) {
    var next = place.nextElementSibling;
    var added = next && next.classList.contains("digest-mine__none") ? next : null;
    if (!added && !text) return;
    if (!added) {
      added = document.createElement("p");
      added.className = "digest-mine__none";
      place.parentNode.insertBefore(added, place.nextSibling);
    }
    added.hidden = !text;
    added.textContent = text || "";
  }

  /* The home and week pages narrowed to one platform ("" for all). What the page marks: the
     whole day's or week's parts (data-whole), text each platform has its own of
     (data-for-platform), counts per platform (data-by), lines naming their platforms
     (data-platforms), sections a count decides (data-digest-section), and on the home page each
     day's platform disclosures. */
  function narrow(platform, nameOf, noneText, emptyText) {
    all("[data-whole]").forEach(function (part) { part.hidden = platform !== ""; });
    all("[data-for-platform]").forEach(function (part) {
      part.hidden = part.getAttribute("data-for-platform") !== platform;
    });
    all("[data-by]").forEach(function (count) {
      if (!count.hasAttribute("data-all")) count.setAttribute("data-all", count.textContent);
      count.textContent = platform ? String(countOf(count.getAttribute("data-by"), platform)) : count.getAttribute("data-all");
    });
    all("[data-digest-section]").forEach(function (section) {
      var count = section.querySelector("[data-by]");
      var heading = section.querySelector("[id]");
      var left = platform && count ? countOf(count.getAttribute("data-by"), platform) : null;
      section.hidden = left === 0;
      if (heading) followInContents(heading.id, count ? count.textContent : null, left === 0);
    });
    all("ul.digest-lines").forEach(function (list) {
      var lines = all(":scope > li[data-platforms]", list);
      if (!lines.length) return;
      var left = 0;
      lines.forEach(function (line) {
        line.hidden = platform !== "" && line.getAttribute("data-platforms").split(" ").indexOf(platform) < 0;
        if (!line.hidden) left += 1;
      });
      list.hidden = left === 0;
      // A week's list says it has none; a label's section still links the rest of its commits.
      note(list, left === 0 && emptyText && !list.closest("[data-digest-section]") ? emptyText : "");
    });
    all("details.digest-platform").forEach(function (details) {
      var mine = details.getAttribute("data-platform") === platform;
      details.hidden = platform !== "" && !mine;
      details.open = mine;
    });
    all("section.digest-day").forEach(function (day) {
      var whole = day.querySelector("[data-whole]");
      var has = day.querySelector('details.digest-platform[data-platform="' + CSS.escape(platform) + '"]');
      if (whole) note(whole, platform && !has && noneText ? fill(noneText, { platform: nameOf(platform) }) : "");
    });
  }

  /* The home and week pages: the reader's platform chosen in a select, kept in this browser,
     applied to every day (home) or to the week's counts and lines. */
  function setUpMyPlatform(box) {
    var select = box.querySelector("select");
    var hint = box.querySelector(".digest-myplatform__hint");
    var notice = box.querySelector("[data-digest-mine]");
    var noneText = notice.getAttribute("data-text-none") || "";
    var emptyText = box.getAttribute("data-text-empty") || "";
    var weekly = document.querySelector('[data-for-platform=""]') !== null;
    function option(platform) {
      return select.querySelector('option[value="' + CSS.escape(platform) + '"]');
    }
    function nameOf(platform) {
      var found = option(platform);
      return found ? found.textContent : platform;
    }
    var say = setUpNotice(notice, nameOf, function () {
      select.value = "";
      picked();
      select.focus(); // the pressed button went with the notice
    });

    function apply() {
      var platform = select.value;
      if (hint) hint.hidden = platform !== "";
      // A week without the platform's commits has no counts of its own: the notice says so.
      var absent = weekly && platform && !document.querySelector('[data-for-platform="' + CSS.escape(platform) + '"]');
      say(platform, absent ? noneText : "");
      narrow(platform, nameOf, weekly ? "" : noneText, emptyText);
    }
    /* A pick is kept; an address that named a platform names the pick instead. */
    function picked() {
      keep(select.value);
      var url = new URL(window.location.href);
      if (url.searchParams.has("platform")) {
        if (select.value) url.searchParams.set("platform", select.value);
        else url.searchParams.delete("platform");
        window.history.replaceState(null, "", url.toString());
      }
      apply();
    }

    select.value = firstPlatform(function (platform) { return option(platform) !== null; });
    select.addEventListener("change", picked);
    box.hidden = false;
    apply();
  }

  function start() {
    var filter = document.querySelector("[data-digest-filter]");
    if (filter) setUpFilter(filter);
    var box = document.querySelector("[data-digest-myplatform]");
    if (box) setUpMyPlatform(box);
    // The page now shows the reader's platform: what waited unseen for it (digest.css) appears.
    document.documentElement.removeAttribute("data-digest-choosing");
  }

  /* Material's instant navigation swaps pages without a load event: its document$ says when. */
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(start);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

/* header search: a search box in every page's header. Results show as you type (the first few,
   from the site's own index through assets/digest-search.js, loaded on first use); Enter is a
   plain GET to the search page (search/?q=...); Escape closes; "/" focuses the box. The page
   HTML is untouched, so it works for any site the plugin builds; without JavaScript there is no
   box, as the search page itself needs JavaScript. Titles are untrusted: set with textContent. */
(function () {
  "use strict";

  var site = window.commitDigest; // assets/digest-config.js, written by the build
  var script = document.currentScript; // only set while this file first runs
  if (!site || !script || !window.fetch || !window.Promise) return;
  var siteRoot = new URL("..", script.src).href;
  var searchUrl = new URL(site.search, siteRoot).href;
  var texts = site.texts;
  var SHOWN = 8;
  var ICON = "M9.5 3A6.5 6.5 0 0 1 16 9.5c0 1.61-.59 3.09-1.56 4.23l.27.27h.79l5 5-1.5 1.5-5-5v-.79l-.27-.27A6.52 " +
    "6.52 0 0 1 9.5 16 6.5 6.5 0 0 1 3 9.5 6.5 6.5 0 0 1 9.5 3m0 2C7 5 5 7 5 9.5S7 14 9.5 14 14 12 14 9.5 12 5 9.5 5";
  var engine = null;

  /* The search page loads the engine itself; elsewhere it comes with the first query (its two
     scripts in order: the query parser, then the engine that needs it). */
  function loadScript(name) {
    return new Promise(function (resolve, reject) {
      var tag = document.createElement("script");
      tag.src = siteRoot + name;
      tag.onload = resolve;
      tag.onerror = function () { reject(new Error(tag.src)); };
      document.head.appendChild(tag);
    });
  }
  function loadEngine() {
    if (window.digestSearchFirst) return Promise.resolve(window.digestSearchFirst);
    if (!engine) {
      engine = loadScript("assets/digest-search-query.js").then(function () {
        return loadScript("assets/digest-search.js");
      }).then(function () {
        if (!window.digestSearchFirst) throw new Error(siteRoot + "assets/digest-search.js");
        return window.digestSearchFirst;
      });
      engine.catch(function () { engine = null; }); // a later query tries again
    }
    return engine;
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function icon() {
    var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    var path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", ICON);
    svg.appendChild(path);
    return svg;
  }

  function build() {
    var form = element("form", "digest-hsearch");
    form.setAttribute("role", "search");
    form.setAttribute("aria-label", texts.label); // the search page has a search landmark too
    form.action = searchUrl;
    form.method = "get";
    // Narrow screens: the box is an icon until opened (material's own search does the same).
    var open = element("button", "md-header__button md-icon digest-hsearch__open");
    open.type = "button";
    open.title = texts.hint;
    open.setAttribute("aria-label", texts.open);
    open.setAttribute("aria-expanded", "false");
    open.appendChild(icon());
    var box = element("div", "digest-hsearch__box");
    var input = element("input", "digest-hsearch__input");
    input.type = "search";
    input.name = "q";
    input.autocomplete = "off";
    input.placeholder = texts.placeholder;
    input.title = texts.hint;
    input.setAttribute("aria-label", texts.label);
    input.setAttribute("aria-controls", "digest-hsearch-panel");
    var panel = element("div", "digest-hsearch__panel");
    panel.id = "digest-hsearch-panel";
    panel.hidden = true;
    var status = element("p", "digest-hsearch__status");
    status.setAttribute("aria-live", "polite");
    var list = element("ol", "digest-hsearch__results");
    var all = element("a", "digest-hsearch__all", texts.all);
    all.href = searchUrl;
    panel.appendChild(status);
    panel.appendChild(list);
    panel.appendChild(all);
    box.appendChild(input);
    box.appendChild(panel);
    form.appendChild(open);
    form.appendChild(box);
    return { form: form, open: open, input: input, panel: panel, status: status, list: list, all: all };
  }

  function setUp(header) {
    var parts = build();
    var form = parts.form;
    var input = parts.input;
    var generation = 0;
    var timer = null;
    // Into the place the page keeps for it (its width reserved from the first paint), else
    // before the repository link.
    var place = header.querySelector(".digest-hsearch-place");
    if (place) place.parentNode.replaceChild(form, place);
    else header.insertBefore(form, header.querySelector(".md-header__source"));

    function showPanel(shown) {
      parts.panel.hidden = !shown;
    }
    function expand(expanded) {
      form.classList.toggle("digest-hsearch--open", expanded);
      parts.open.setAttribute("aria-expanded", String(expanded));
    }
    function close() {
      generation++;
      clearTimeout(timer);
      showPanel(false);
    }

    function render(query, found) {
      parts.list.textContent = "";
      found.results.forEach(function (result) {
        var item = element("li", "digest-hsearch__result");
        var link = element("a", "digest-hsearch__link");
        link.href = result.url;
        var title = element("span", "digest-hsearch__title");
        // Code spans and matched words as on the search page (text nodes only, digest-search.js).
        if (window.digestSearchTitle) window.digestSearchTitle(title, result.title, found.needles || []);
        else title.textContent = result.title;
        link.appendChild(title);
        link.appendChild(element("span", "digest-hsearch__day", result.day));
        item.appendChild(link);
        parts.list.appendChild(item);
      });
      parts.status.textContent = found.results.length ? "" : texts.empty;
      parts.status.hidden = found.results.length > 0;
      // What the shown results answer: tests wait for their own query.
      parts.list.setAttribute("data-query", query);
    }

    function run() {
      var mine = ++generation;
      var query = input.value;
      parts.all.href = searchUrl + "?q=" + encodeURIComponent(query);
      if (!query.trim()) {
        showPanel(false);
        return;
      }
      parts.status.hidden = false;
      parts.status.textContent = texts.searching;
      showPanel(true);
      loadEngine().then(function (first) {
        return first(query, SHOWN);
      }).then(function (found) {
        if (mine === generation) render(query, found);
      }).catch(function (error) {
        if (mine !== generation) return;
        parts.list.textContent = "";
        parts.status.hidden = false;
        parts.status.textContent = texts.failed + " " + error.message;
      });
    }

    function links() {
      return Array.prototype.slice.call(parts.panel.querySelectorAll("a[href]"));
    }

    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(run, 120);
    });
    input.addEventListener("focus", function () {
      if (input.value.trim() && parts.list.getAttribute("data-query") === input.value) showPanel(true);
    });
    form.addEventListener("keydown", function (event) {
      if (event.key === "Escape") {
        event.preventDefault();
        if (!parts.panel.hidden) {
          input.focus(); // first: focusing the box shows its results again
          close();
        } else {
          input.blur();
          expand(false);
          if (getComputedStyle(parts.open).display !== "none") parts.open.focus();
        }
      } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        var targets = links();
        if (parts.panel.hidden || !targets.length) return;
        event.preventDefault();
        var at = targets.indexOf(document.activeElement);
        var next = event.key === "ArrowDown" ? at + 1 : at - 1;
        if (next < 0) input.focus();
        else targets[Math.min(next, targets.length - 1)].focus();
      }
    });
    form.addEventListener("submit", function () {
      clearTimeout(timer); // the browser goes to the search page; nothing to show here
    });
    // A click on a result keeps the focus in the box, so the box is still open when the click lands.
    parts.panel.addEventListener("mousedown", function (event) {
      event.preventDefault();
    });
    parts.open.addEventListener("click", function () {
      expand(true);
      input.focus();
    });
    // Focus leaving the box (a click elsewhere, Tab past the results) closes it.
    form.addEventListener("focusout", function (event) {
      if (event.relatedTarget && form.contains(event.relatedTarget)) return;
      close();
      expand(false);
    });
    document.addEventListener("keydown", function (event) {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
      var target = event.target;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      event.preventDefault();
      // On the search page "/" goes to the page's own box, which has the filters beside it.
      var pageBox = document.getElementById("digest-search-input");
      var box = pageBox || input;
      if (!pageBox) expand(true);
      box.focus();
      box.select();
    });
  }

  function start() {
    var header = document.querySelector(".md-header__inner");
    if (header && !header.querySelector(".digest-hsearch")) setUp(header);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

/* The footer's status (last update, data window, last successful fetch) and, when the data is
   more than two days older than the build, a notice at the foot of the screen. It comes from
   status.json, so a page's HTML does not change when only the build time does; set with
   textContent, never as HTML. */
(function () {
  "use strict";
  var element = document.querySelector("[data-digest-status]");
  if (!element || !window.fetch) return;
  fetch(element.getAttribute("data-digest-status"), { cache: "no-cache" })
    .then(function (response) { return response.ok ? response.json() : null; })
    .then(function (status) {
      if (!status) return;
      if (typeof status.text === "string") {
        element.textContent = status.text;
        element.hidden = false;
      }
      // A bar fixed at the screen's foot (digest.css): shown late, it moves nothing on the page.
      // Dismissed, it stays away for the rest of the visit (until the notice says something else).
      var dismissed = "digest-stale-dismissed";
      var before = null;
      try { before = sessionStorage.getItem(dismissed); } catch (error) { /* storage turned off */ }
      if (status.stale === true && typeof status.notice === "string" && before !== status.notice) {
        var notice = document.createElement("div");
        notice.className = "digest-stale";
        notice.setAttribute("role", "status");
        var words = document.createElement("span");
        words.textContent = status.notice;
        notice.appendChild(words);
        var close = document.createElement("button");
        close.type = "button";
        close.className = "digest-stale__close";
        close.textContent = "×";
        close.setAttribute("aria-label", typeof status.dismiss === "string" ? status.dismiss : "×");
        close.addEventListener("click", function () {
          try { sessionStorage.setItem(dismissed, status.notice); } catch (error) { /* private mode */ }
          notice.remove();
          document.body.classList.remove("digest-has-stale");
        });
        notice.appendChild(close);
        document.body.appendChild(notice);
        document.body.classList.add("digest-has-stale");
      }
    })
    .catch(function () {});
})();

/* The drawer's checkbox is the menu button a keyboard reaches on narrow screens (digest.css):
   on material's own pages it gets the navigation's name, as the generated pages give it. */
(function () {
  "use strict";
  var drawer = document.getElementById("__drawer");
  var navigation = document.querySelector(".md-nav--primary[aria-label], .digest-nav[aria-label]");
  if (drawer && navigation && !drawer.hasAttribute("aria-label")) {
    drawer.setAttribute("aria-label", navigation.getAttribute("aria-label"));
  }
})();
