/* The digest's search client: tokenises a query exactly as commit_digest/search/tokens.py does,
   downloads only the index shards holding its grams, intersects their posting lists, and shows
   the matching commits newest first. Every text from the index (commit titles are untrusted) is
   set with textContent or DOM APIs, never as HTML. Runs in node too (the tokenizer test). */
(function (root) {
  "use strict";

  // ---- tokenizer: mirrors tokens.py line for line ------------------------------------------
  var CJK_RANGES = [
    [0x3040, 0x30ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xac00, 0xd7af], [0xf900, 0xfaff],
    [0x20000, 0x3134f],
  ];
  var SPACES = [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000];
  for (var space = 0x2000; space < 0x200b; space++) SPACES.push(space);
  var PLATFORM_GRAM = "\u0001p:";
  var SUBSYSTEM_GRAM = "\u0001s:";

  function normalise(text) {
    return text.normalize("NFKC").toLowerCase();
  }
  function isWord(code) {
    return (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
  }
  function isCjk(code) {
    for (var i = 0; i < CJK_RANGES.length; i++) {
      if (code >= CJK_RANGES[i][0] && code <= CJK_RANGES[i][1]) return true;
    }
    return false;
  }
  // Code points, not UTF-16 units: positions and slices agree with Python's str.
  function runs(normalised) {
    var chars = Array.from(normalised);
    var found = [];
    var kind = null;
    var start = 0;
    for (var position = 0; position < chars.length; position++) {
      var code = chars[position].codePointAt(0);
      var current = isWord(code) ? "w" : isCjk(code) ? "c" : null;
      if (current !== kind) {
        if (kind !== null) found.push({ kind: kind, chars: chars.slice(start, position), start: start, end: position });
        kind = current;
        start = position;
      }
    }
    if (kind !== null) found.push({ kind: kind, chars: chars.slice(start), start: start, end: chars.length });
    return found;
  }
  function ngrams(chars, size, into) {
    for (var i = 0; i + size <= chars.length; i++) into.add(chars.slice(i, i + size).join(""));
  }
  function documentGrams(text) {
    var grams = new Set();
    var previous = null;
    runs(normalise(text)).forEach(function (run) {
      var word = run.chars;
      if (previous && previous.end === run.start) grams.add(previous.chars[previous.chars.length - 1] + word[0]);
      previous = run;
      if (run.kind === "w") {
        ngrams(word, 3, grams);
        grams.add("^" + word.slice(0, 1).join(""));
        grams.add("^" + word.slice(0, 2).join(""));
        grams.add(word.slice(-1).join("") + "$");
        grams.add(word.slice(-2).join("") + "$");
        if (word.length < 3) grams.add("^" + word.join("") + "$");
      } else {
        ngrams(word, 1, grams);
        ngrams(word, 2, grams);
      }
    });
    return Array.from(grams).sort(compareCodePoints);
  }
  function queryTerms(query) {
    var terms = [];
    var current = "";
    Array.from(normalise(query)).forEach(function (char) {
      if (SPACES.indexOf(char.codePointAt(0)) >= 0) {
        if (current) terms.push(current);
        current = "";
      } else {
        current += char;
      }
    });
    if (current) terms.push(current);
    return terms;
  }
  function termGrams(term) {
    var grams = new Set();
    var length = Array.from(term).length;
    // No junction gram: "fp8量化" finds what "fp8 量化" finds (see tokens.term_grams).
    runs(term).forEach(function (run) {
      var word = run.chars;
      if (run.kind === "c") {
        ngrams(word, word.length === 1 ? 1 : 2, grams);
      } else if (word.length >= 3) {
        ngrams(word, 3, grams);
      } else {
        var atStart = run.start === 0;
        var atEnd = run.end === length;
        var text = word.join("");
        if (atStart && !atEnd) grams.add(text + "$");
        else if (atEnd && !atStart) grams.add("^" + text);
        else grams.add("^" + text + "$");
      }
    });
    return Array.from(grams).sort(compareCodePoints);
  }
  function queryGrams(query) {
    var grams = new Set();
    queryTerms(query).forEach(function (term) {
      termGrams(term).forEach(function (gram) { grams.add(gram); });
    });
    return Array.from(grams).sort(compareCodePoints);
  }
  // Python sorts strings by code point; JS's default sort compares UTF-16 units.
  function compareCodePoints(a, b) {
    var left = Array.from(a);
    var right = Array.from(b);
    for (var i = 0; i < Math.min(left.length, right.length); i++) {
      var difference = left[i].codePointAt(0) - right[i].codePointAt(0);
      if (difference) return difference;
    }
    return left.length - right.length;
  }
  var encoder = typeof TextEncoder !== "undefined" ? new TextEncoder() : null;
  function fnv1a(text) {
    var value = 0x811c9dc5;
    var bytes = encoder.encode(text);
    for (var i = 0; i < bytes.length; i++) {
      value = Math.imul(value ^ bytes[i], 0x01000193) >>> 0;
    }
    return value >>> 0;
  }

  var tokens = {
    normalise: normalise, documentGrams: documentGrams, queryTerms: queryTerms, termGrams: termGrams,
    queryGrams: queryGrams, fnv1a: fnv1a,
  };
  if (typeof module !== "undefined" && module.exports) {
    module.exports = tokens;
    return;
  }

  // ---- index reader ---------------------------------------------------------------------------
  function shardName(shard, shards) {
    var bits = shards > 1 ? (shards - 1).toString(2).length : 0;
    var width = Math.floor((bits + 3) / 4) || 1;
    var hex = shard.toString(16);
    while (hex.length < width) hex = "0" + hex;
    return hex;
  }
  var decoder = new TextDecoder();
  function decodeShard(buffer) {
    var data = new Uint8Array(buffer);
    var position = 0;
    function varint() {
      var value = 0;
      var scale = 1;
      for (;;) {
        var byte = data[position++];
        value += (byte & 0x7f) * scale;
        if (byte < 0x80) return value;
        scale *= 128;
      }
    }
    var entries = new Map();
    while (position < data.length) {
      var length = varint();
      var gram = decoder.decode(data.subarray(position, position + length));
      position += length;
      var count = varint();
      var ids = new Uint32Array(count);
      var current = 0;
      for (var i = 0; i < count; i++) {
        current += varint();
        ids[i] = current;
      }
      entries.set(gram, ids);
    }
    return entries;
  }
  function intersect(lists) {
    lists.sort(function (a, b) { return a.length - b.length; });
    var result = Array.from(lists[0]);
    for (var i = 1; i < lists.length && result.length; i++) {
      var other = lists[i];
      var kept = [];
      var j = 0;
      for (var k = 0; k < result.length; k++) {
        while (j < other.length && other[j] < result[k]) j++;
        if (j < other.length && other[j] === result[k]) kept.push(result[k]);
      }
      result = kept;
    }
    return result;
  }

  // One search: partitions are read newest first and only as far as the results shown need.
  function Search(base, manifest, grams) {
    this.base = base;
    this.manifest = manifest;
    this.grams = grams;
    this.bytes = 0;
    this.next = 0; // the next partition to read
    this.matches = []; // {partition, id} newest first
    this.rows = new Map();
  }
  Search.prototype.fetch = function (path, kind) {
    var self = this;
    return fetch(self.base + path).then(function (response) {
      if (!response.ok) throw new Error(path + ": HTTP " + response.status);
      return response.arrayBuffer();
    }).then(function (buffer) {
      self.bytes += buffer.byteLength;
      return kind === "json" ? JSON.parse(decoder.decode(buffer)) : buffer;
    });
  };
  Search.prototype.done = function () {
    return this.next >= this.manifest.partitions.length;
  };
  Search.prototype.readPartition = function () {
    var self = this;
    var partition = self.manifest.partitions[self.next++];
    var shards = {};
    self.grams.forEach(function (gram) { shards[fnv1a(gram) % partition.shards] = true; });
    var wanted = Object.keys(shards).map(Number);
    return Promise.all(wanted.map(function (shard) {
      return self.fetch(partition.id + "/s/" + shardName(shard, partition.shards) + ".bin", "bin")
        .then(function (buffer) { shards[shard] = decodeShard(buffer); });
    })).then(function () {
      var lists = self.grams.map(function (gram) {
        return shards[fnv1a(gram) % partition.shards].get(gram) || new Uint32Array(0);
      });
      intersect(lists).forEach(function (id) { self.matches.push({ partition: partition, id: id }); });
    });
  };
  // Resolves once at least ``count`` matches are known or every partition is read.
  Search.prototype.find = function (count) {
    var self = this;
    if (self.matches.length >= count || self.done()) return Promise.resolve(self.matches.length);
    return self.readPartition().then(function () { return self.find(count); });
  };
  // The rows (metadata) of matches [start, end), fetching only the chunks they are in.
  Search.prototype.rowsOf = function (start, end) {
    var self = this;
    var size = self.manifest.chunk_size;
    var slice = self.matches.slice(start, end);
    var chunks = {};
    slice.forEach(function (match) {
      var key = match.partition.id + "/d/" + Math.floor(match.id / size) + ".json";
      if (!self.rows.has(key)) chunks[key] = true;
    });
    return Promise.all(Object.keys(chunks).map(function (key) {
      return self.fetch(key, "json").then(function (rows) { self.rows.set(key, rows); });
    })).then(function () {
      return slice.map(function (match) {
        return self.rows.get(match.partition.id + "/d/" + Math.floor(match.id / size) + ".json")[match.id % size];
      });
    });
  };

  function gramsOf(query, filters) {
    var grams = queryGrams(query);
    if (filters && filters.platform) grams.push(PLATFORM_GRAM + filters.platform);
    if (filters && filters.subsystem) grams.push(SUBSYSTEM_GRAM + filters.subsystem);
    return grams;
  }

  // ---- the search page ---------------------------------------------------------------------
  var PAGE = 20;
  var script = document.currentScript;
  var siteRoot = new URL("..", script ? script.src : location.href).href;
  var indexBase = siteRoot + "search/";
  var manifestPromise = null;
  function loadManifest() {
    if (!manifestPromise) {
      manifestPromise = fetch(indexBase + "manifest.json").then(function (response) {
        if (!response.ok) throw new Error("manifest.json: HTTP " + response.status);
        return response.arrayBuffer();
      }).then(function (buffer) {
        return { manifest: JSON.parse(decoder.decode(buffer)), bytes: buffer.byteLength };
      });
    }
    return manifestPromise;
  }

  // For the benchmark and tests: every match of a query, with the bytes it downloaded.
  root.digestSearch = function (query, filters) {
    return loadManifest().then(function (loaded) {
      var grams = gramsOf(query, filters);
      var search = new Search(indexBase, loaded.manifest, grams);
      search.bytes = loaded.bytes;
      if (!grams.length) return { ids: [], bytes: search.bytes };
      return search.find(Infinity).then(function () {
        return search.rowsOf(0, search.matches.length);
      }).then(function (rows) {
        return { ids: rows.map(function (row) { return row[0]; }), bytes: search.bytes };
      });
    });
  };
  root.digestSearchTokens = tokens;

  function commitUrl(manifest, row) {
    return siteRoot + manifest.commit_url.replace("{sha}", row[0]);
  }

  // The header box of every page (assets/digest.js): the first ``count`` matches of a query,
  // newest first, as {url, title, day} (title is untrusted text), and whether there are more.
  root.digestSearchFirst = function (query, count) {
    return loadManifest().then(function (loaded) {
      var grams = gramsOf(query);
      if (!grams.length) return { results: [], more: false };
      var search = new Search(indexBase, loaded.manifest, grams);
      return search.find(count + 1).then(function () {
        return search.rowsOf(0, count);
      }).then(function (rows) {
        return {
          results: rows.map(function (row) {
            return { url: commitUrl(loaded.manifest, row), title: row[1], day: row[2] };
          }),
          more: search.matches.length > count,
        };
      });
    });
  };

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function setUp(container) {
    var input = container.querySelector("#digest-search-input");
    var platform = container.querySelector("#digest-search-platform");
    var subsystem = container.querySelector("#digest-search-subsystem");
    var status = container.querySelector("#digest-search-status");
    var list = container.querySelector("#digest-search-results");
    var more = container.querySelector("#digest-search-more");
    var words = container.dataset;
    var generation = 0;
    var current = null;
    var shown = 0;
    var timer = null;

    function fillSelect(select, pairs) {
      pairs.forEach(function (pair) {
        var option = element("option", null, pair[1]);
        option.value = pair[0];
        select.appendChild(option);
      });
    }

    function render(rows, manifest) {
      rows.forEach(function (row) {
        var item = element("li", "digest-search__result");
        var link = element("a", "digest-search__title", row[1]);
        link.href = commitUrl(manifest, row);
        item.appendChild(link);
        var meta = element("div", "digest-search__meta");
        meta.appendChild(element("span", "digest-search__day", row[2]));
        meta.appendChild(element("span", "digest-search__importance", manifest.importance[row[3]] || ""));
        if (row[4]) meta.appendChild(element("span", "digest-search__type", manifest.change_types[row[4]] || row[4]));
        item.appendChild(meta);
        list.appendChild(item);
      });
    }

    function report(search) {
      var count = search.matches.length;
      var complete = search.done();
      // What the shown results answer: tests and the benchmark wait for their own query.
      list.setAttribute("data-query", search.query);
      list.setAttribute("data-platform", search.filters.platform || "");
      list.setAttribute("data-subsystem", search.filters.subsystem || "");
      list.setAttribute("data-count", String(count));
      list.setAttribute("data-complete", complete ? "true" : "false");
      list.setAttribute("data-bytes", String(search.bytes));
      if (!count) status.textContent = words.textEmpty;
      else status.textContent = (complete ? words.textCount : words.textCountAtLeast).replace("{count}", String(count));
      more.hidden = shown >= count && complete;
    }

    function showMore(manifest, search, mine) {
      more.disabled = true;
      return search.find(shown + PAGE + 1).then(function () {
        return search.rowsOf(shown, shown + PAGE);
      }).then(function (rows) {
        if (mine !== generation) return;
        render(rows, manifest);
        shown += rows.length;
        more.disabled = false;
        report(search);
      });
    }

    function run() {
      var mine = ++generation;
      var query = input.value;
      var filters = { platform: platform.value, subsystem: subsystem.value };
      var url = new URL(location.href);
      if (query) url.searchParams.set("q", query); else url.searchParams.delete("q");
      history.replaceState(null, "", url.href);
      list.textContent = "";
      list.removeAttribute("data-count");
      more.hidden = true;
      shown = 0;
      loadManifest().then(function (loaded) {
        if (mine !== generation) return null;
        var grams = gramsOf(query, filters);
        if (!grams.length) {
          status.textContent = "";
          return null;
        }
        status.textContent = words.textSearching;
        current = new Search(indexBase, loaded.manifest, grams);
        current.query = query;
        current.filters = filters;
        current.bytes = loaded.bytes;
        return showMore(loaded.manifest, current, mine);
      }).catch(function (error) {
        if (mine === generation) status.textContent = words.textFailed + " " + error.message;
      });
    }

    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(run, 150);
    }

    loadManifest().then(function (loaded) {
      fillSelect(platform, loaded.manifest.platforms);
      fillSelect(subsystem, loaded.manifest.subsystems);
      var query = new URL(location.href).searchParams.get("q");
      if (query) {
        input.value = query;
        run();
      }
    }).catch(function (error) {
      status.textContent = words.textFailed + " " + error.message;
    });
    input.addEventListener("input", schedule);
    platform.addEventListener("change", run);
    subsystem.addEventListener("change", run);
    container.querySelector("form").addEventListener("submit", function (event) {
      event.preventDefault();
      run();
    });
    more.addEventListener("click", function () {
      loadManifest().then(function (loaded) {
        if (current) showMore(loaded.manifest, current, generation);
      });
    });
  }

  function start() {
    var container = document.getElementById("digest-search");
    if (container) setUp(container);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(typeof window !== "undefined" ? window : globalThis);
