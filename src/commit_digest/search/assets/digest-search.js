/* The digest's search client: parses a query with digest-search-query.js, asks the filter
   files which partitions may hold its words, downloads only the shards holding its grams, and
   ranks the matches (BM25-style over fields, with a small recency prior; an exact sha, pull
   request, title or phrase first). Every text from the index (commit titles, excerpts) is
   untrusted: it is set with textContent or DOM text nodes, never as HTML. */
(function (root) {
  "use strict";

  var tokens = root.digestSearchTokens;
  if (!tokens) throw new Error("digest-search-query.js must load before digest-search.js");
  var normalise = tokens.normalise;
  var queryTerms = tokens.queryTerms;
  var parseQuery = tokens.parseQuery;
  var fnv1a = tokens.fnv1a;
  var isWord = tokens.isWord;

  // ---- index reader ---------------------------------------------------------------------------
  // Body, summary, labels, title: a pseudo term frequency. Saturated (K1), a title match is
  // worth 2.6 body matches and a labels match 1.8: a synonym in a title (x SYNONYM_WEIGHT)
  // still ranks above the label's name, which every commit with the label holds.
  var LEVEL_WEIGHTS = [1, 2, 3, 12];
  var K1 = 2; // BM25's saturation
  var RECENCY = 0.15; // a commit of the newest day scores up to 15% more ...
  var HALF_LIFE_DAYS = 30; // ... and one a month older half of that
  var BOOST_ITEM = 1000; // the sha or pull request asked for
  var BOOST_TITLE = 500; // the whole title typed
  var BOOST_PHRASE_TITLE = 50; // the query as typed, inside the title ...
  var BOOST_PHRASE_EXCERPT = 20; // ... or inside the excerpt
  var PLATFORM_GRAM = "\u0001p:";
  var SUBSYSTEM_GRAM = "\u0001s:";
  var IMPORTANCE_GRAM = "\u0001i:";
  var REPOSITORY_GRAM = "\u0001r:";
  var PULL_REQUEST_GRAM = "\u0001#";
  var EMPTY = { ids: new Uint32Array(0), levels: new Uint8Array(0) };
  var decoder = new TextDecoder();

  function saturate(weight) {
    return (weight * (K1 + 1)) / (weight + K1);
  }
  function dayNumber(iso) {
    return Date.UTC(+iso.slice(0, 4), +iso.slice(5, 7) - 1, +iso.slice(8, 10)) / 86400000;
  }
  function shardName(shard, shards) {
    var bits = shards > 1 ? (shards - 1).toString(2).length : 0;
    var width = Math.floor((bits + 3) / 4) || 1;
    var hex = shard.toString(16);
    while (hex.length < width) hex = "0" + hex;
    return hex;
  }
  function bucketName(bucket) {
    return "filter/" + (bucket < 16 ? "0" : "") + bucket.toString(16) + ".bin";
  }
  // A shard file: gram -> {ids, levels}, ids ascending (newest first).
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
      var levels = new Uint8Array(count);
      var current = 0;
      for (var i = 0; i < count; i++) {
        var value = varint();
        current += Math.floor(value / 4);
        ids[i] = current;
        levels[i] = value % 4;
      }
      entries.set(gram, { ids: ids, levels: levels });
    }
    return entries;
  }
  // The documents holding every entry, each with its lowest level among them.
  function intersectLevels(entries) {
    entries = entries.slice().sort(function (a, b) { return a.ids.length - b.ids.length; });
    var ids = Array.from(entries[0].ids);
    var levels = Array.from(entries[0].levels);
    for (var i = 1; i < entries.length && ids.length; i++) {
      var other = entries[i];
      var keptIds = [];
      var keptLevels = [];
      var j = 0;
      for (var k = 0; k < ids.length; k++) {
        while (j < other.ids.length && other.ids[j] < ids[k]) j++;
        if (j < other.ids.length && other.ids[j] === ids[k]) {
          keptIds.push(ids[k]);
          keptLevels.push(Math.min(levels[k], other.levels[j]));
        }
      }
      ids = keptIds;
      levels = keptLevels;
    }
    return { ids: ids, levels: levels };
  }

  // The manifest and every file downloaded for it, shared by the searches of a page.
  function Index(base, manifest, size) {
    this.base = base;
    this.manifest = manifest;
    this.size = size;
    this.files = new Map(); // path -> Promise of {value, size}
    this.offsets = [];
    var offset = 0;
    var self = this;
    manifest.partitions.forEach(function (partition) {
      self.offsets.push(offset);
      offset += partition.filter_bytes;
    });
    this.newest = manifest.partitions.length ? dayNumber(manifest.partitions[0].last_day) : 0;
    this.days = new Map(); // partition id -> day number of each document id
  }
  Index.prototype.load = function (path, decode) {
    var self = this;
    if (!self.files.has(path)) {
      var loading = fetch(self.base + path).then(function (response) {
        if (!response.ok) throw new Error(path + ": HTTP " + response.status);
        return response.arrayBuffer();
      }).then(function (buffer) {
        return { value: decode(buffer), size: buffer.byteLength };
      });
      loading.catch(function () { self.files.delete(path); }); // a later search tries again
      self.files.set(path, loading);
    }
    return self.files.get(path);
  };
  Index.prototype.dayOf = function (partition, id) {
    var days = this.days.get(partition.id);
    if (!days) {
      days = [];
      partition.days.forEach(function (pair) {
        var day = dayNumber(pair[0]);
        for (var i = 0; i < pair[1]; i++) days.push(day);
      });
      this.days.set(partition.id, days);
    }
    return days[id];
  };
  // The bucket and bit positions of a gram in a filter block of ``bits``: as index.filter_bits.
  Index.prototype.mayHold = function (buckets, position, gram) {
    var filter = this.manifest.filter;
    var block = this.manifest.partitions[position].filter_bytes;
    var first = fnv1a(gram);
    var second = fnv1a(filter.seed + gram);
    var step = (first >>> 8) | 1;
    var data = buckets.get(first % filter.buckets);
    var offset = this.offsets[position];
    for (var i = 0; i < filter.hashes; i++) {
      var bit = (second + i * step) % (block * 8);
      if (!((data[offset + (bit >> 3)] >> (bit & 7)) & 1)) return false;
    }
    return true;
  };

  function idRange(partition, filters) {
    var first = -1;
    var last = -1;
    var position = 0;
    partition.days.forEach(function (pair) {
      var inside = (!filters.from || pair[0] >= filters.from) && (!filters.to || pair[0] <= filters.to);
      if (inside) {
        if (first < 0) first = position;
        last = position + pair[1];
      }
      position += pair[1];
    });
    return first < 0 ? [0, 0] : [first, last];
  }
  function normalisedText(text) {
    return queryTerms(text || "").join(" ");
  }

  // One search: partitions are read newest first and only as far as the results shown need;
  // a partition the filter files rule out is not downloaded at all.
  function Search(index, query, filters) {
    this.index = index;
    this.manifest = index.manifest;
    this.query = query;
    this.filters = filters || {};
    this.terms = parseQuery(query, this.manifest.synonyms || []);
    this.filterGrams = [];
    if (this.filters.platform) this.filterGrams.push(PLATFORM_GRAM + this.filters.platform);
    if (this.filters.subsystem) this.filterGrams.push(SUBSYSTEM_GRAM + this.filters.subsystem);
    if (this.filters.importance) this.filterGrams.push(IMPORTANCE_GRAM + this.filters.importance);
    if (this.filters.repository) this.filterGrams.push(REPOSITORY_GRAM + this.filters.repository);
    this.bytes = index.size;
    this.counted = new Set();
    this.read = new Set(); // the partitions read (or ruled out), by position
    this.matches = [];
    this.shown = 0;
    this.wantMore = false; // the reader asked for more than the first page
    var single = this.terms.length === 1 ? this.terms[0].typed : "";
    // A sha is one commit anywhere in the archive: every partition the filter admits is read
    // before ranking (its grams are rare, the filter makes that cheap).
    this.shaPrefix = /^[0-9a-f]{7,40}$/.test(single) ? single.slice(0, 12) : "";
    // A pull request ("#123", or a pasted title ending "(#123)") is one commit too: the
    // partitions whose filter holds its exact gram are read first, and when they match, the
    // first page needs no other partition (a title's many words would read them all).
    var pull = null;
    this.terms.forEach(function (term) {
      term.alternatives.forEach(function (alternative) {
        if (alternative.grams.length === 1 && alternative.grams[0].indexOf(PULL_REQUEST_GRAM) === 0) {
          pull = alternative.grams[0];
        }
      });
    });
    this.itemGram = pull;
    this.pullRequest = pull ? parseInt(pull.slice(PULL_REQUEST_GRAM.length), 10) : 0;
    this.itemChecked = !pull;
    this.itemFound = false;
    this.phrase = normalisedText(query);
    // The words to mark in a result: each run of what was typed ("fp8量化" marks fp8 and 量化),
    // and each synonym as a whole ("draft model", not every "model").
    var needles = new Set();
    this.terms.forEach(function (term) {
      term.alternatives.forEach(function (alternative) {
        if (alternative.words !== term.typed) {
          if (alternative.words) needles.add(alternative.words);
          return;
        }
        queryTerms(alternative.words).forEach(function (word) {
          tokens.runs(word).forEach(function (run) { needles.add(run.chars.join("")); });
        });
      });
    });
    this.needles = Array.from(needles).sort(function (a, b) { return b.length - a.length; });
  }
  Search.prototype.empty = function () {
    return !this.terms.length && !this.filterGrams.length;
  };
  Search.prototype.done = function () {
    return this.empty() || this.read.size >= this.manifest.partitions.length;
  };
  Search.prototype.use = function (path, decode) {
    var self = this;
    return self.index.load(path, decode).then(function (loaded) {
      if (!self.counted.has(path)) {
        self.counted.add(path);
        self.bytes += loaded.size;
      }
      return loaded.value;
    });
  };
  Search.prototype.allGrams = function () {
    var grams = new Set(this.filterGrams);
    this.terms.forEach(function (term) {
      term.alternatives.forEach(function (alternative) {
        alternative.grams.forEach(function (gram) { grams.add(gram); });
      });
    });
    return Array.from(grams);
  };
  // The filter blocks of the grams: which of them partition ``position`` may hold.
  Search.prototype.presence = function (position, grams) {
    var self = this;
    var filter = self.manifest.filter;
    var wanted = new Set(grams.map(function (gram) { return fnv1a(gram) % filter.buckets; }));
    var buckets = new Map();
    return Promise.all(Array.from(wanted).map(function (bucket) {
      return self.use(bucketName(bucket), function (buffer) { return new Uint8Array(buffer); })
        .then(function (data) { buckets.set(bucket, data); });
    })).then(function () {
      var holds = new Map();
      grams.forEach(function (gram) { holds.set(gram, self.index.mayHold(buckets, position, gram)); });
      return holds;
    });
  };
  Search.prototype.readPartition = function (position) {
    var self = this;
    self.read.add(position);
    var partition = self.manifest.partitions[position];
    var range = idRange(partition, self.filters);
    if (range[0] >= range[1]) return Promise.resolve();
    return self.presence(position, self.allGrams()).then(function (holds) {
      if (!self.filterGrams.every(function (gram) { return holds.get(gram); })) return null;
      var alive = [];
      for (var t = 0; t < self.terms.length; t++) {
        var kept = self.terms[t].alternatives.filter(function (alternative) {
          return alternative.grams.every(function (gram) { return holds.get(gram); });
        });
        if (!kept.length) return null;
        alive.push(kept);
      }
      var grams = new Set(self.filterGrams);
      alive.forEach(function (kept) {
        kept.forEach(function (alternative) { alternative.grams.forEach(function (gram) { grams.add(gram); }); });
      });
      var shards = new Map();
      grams.forEach(function (gram) { shards.set(fnv1a(gram) % partition.shards, null); });
      return Promise.all(Array.from(shards.keys()).map(function (shard) {
        return self.use(partition.id + "/s/" + shardName(shard, partition.shards) + ".bin", decodeShard)
          .then(function (entries) { shards.set(shard, entries); });
      })).then(function () {
        function entry(gram) {
          return shards.get(fnv1a(gram) % partition.shards).get(gram) || EMPTY;
        }
        self.score(position, partition, range, alive, entry);
      });
    });
  };
  // BM25-style: per term, the best of its alternatives (weight x saturated field weight), times
  // the term's rarity in the partition; then the recency prior.
  Search.prototype.score = function (position, partition, range, alive, entry) {
    var self = this;
    var allowed = null;
    self.filterGrams.forEach(function (gram) {
      var ids = new Set(entry(gram).ids);
      allowed = allowed ? new Set(Array.from(allowed).filter(function (id) { return ids.has(id); })) : ids;
    });
    var bests = alive.map(function (kept) {
      var best = new Map();
      kept.forEach(function (alternative) {
        var found = intersectLevels(alternative.grams.map(entry));
        for (var i = 0; i < found.ids.length; i++) {
          var value = alternative.weight * saturate(LEVEL_WEIGHTS[found.levels[i]]);
          if (!(best.get(found.ids[i]) >= value)) best.set(found.ids[i], value);
        }
      });
      return best;
    });
    var rarity = bests.map(function (best) {
      var documents = best.size;
      return Math.log(1 + (partition.docs - documents + 0.5) / (documents + 0.5));
    });
    var candidates;
    if (bests.length) {
      var smallest = bests.reduce(function (a, b) { return a.size <= b.size ? a : b; });
      candidates = Array.from(smallest.keys());
    } else {
      candidates = allowed ? Array.from(allowed) : [];
    }
    candidates.sort(function (a, b) { return a - b; });
    candidates.forEach(function (id) {
      if (id < range[0] || id >= range[1] || (allowed && !allowed.has(id))) return;
      var score = bests.length ? 0 : 1;
      for (var t = 0; t < bests.length; t++) {
        var value = bests[t].get(id);
        if (value === undefined) return;
        score += rarity[t] * value;
      }
      var day = self.index.dayOf(partition, id);
      score *= 1 + RECENCY * Math.pow(0.5, (self.index.newest - day) / HALF_LIFE_DAYS);
      self.matches.push({ partition: partition, position: position, id: id, score: score, day: day });
    });
  };
  // The partitions that may hold the pull request's exact gram, newest first, read before any.
  Search.prototype.readItemPartitions = function () {
    var self = this;
    self.itemChecked = true;
    var positions = self.manifest.partitions.map(function (_partition, position) { return position; });
    return positions.reduce(function (chain, position) {
      return chain.then(function () {
        return self.presence(position, [self.itemGram]).then(function (holds) {
          if (holds.get(self.itemGram)) return self.readPartition(position);
          return null;
        });
      });
    }, Promise.resolve()).then(function () {
      self.itemFound = self.matches.length > 0;
    });
  };
  // Resolves once more than ``count`` matches are known, or every partition is read; a known
  // item's first page stops at the partitions holding it.
  Search.prototype.find = function (count) {
    var self = this;
    if (!self.itemChecked) return self.readItemPartitions().then(function () { return self.find(count); });
    if (self.done() || (self.itemFound && !self.wantMore)) return Promise.resolve();
    if (!self.shaPrefix && self.matches.length > count) return Promise.resolve();
    var position = 0;
    while (self.read.has(position)) position++;
    return self.readPartition(position).then(function () { return self.find(count); });
  };
  function rank(a, b) {
    var left = a.boosted === undefined ? a.score : a.boosted;
    var right = b.boosted === undefined ? b.score : b.boosted;
    return right - left || b.day - a.day || a.position - b.position || a.id - b.id;
  }
  Search.prototype.boost = function (row) {
    var boost = 0;
    if (this.shaPrefix && row[0].indexOf(this.shaPrefix) === 0) boost += BOOST_ITEM;
    if (this.pullRequest && row[7] === this.pullRequest) boost += BOOST_ITEM;
    var title = normalisedText(row[1]);
    if (!this.phrase) return boost;
    if (title === this.phrase || title.replace(/ ?\(#[0-9]+\)$/, "") === this.phrase) boost += BOOST_TITLE;
    else if (title.indexOf(this.phrase) >= 0) boost += BOOST_PHRASE_TITLE;
    else if (normalisedText(row[8]).indexOf(this.phrase) >= 0) boost += BOOST_PHRASE_EXCERPT;
    return boost;
  };
  Search.prototype.rowsOf = function (matches) {
    var self = this;
    var size = self.manifest.chunk_size;
    var chunks = new Map();
    matches.forEach(function (match) {
      if (!match.row) chunks.set(match.partition.id + "/d/" + Math.floor(match.id / size) + ".json", null);
    });
    return Promise.all(Array.from(chunks.keys()).map(function (path) {
      return self.use(path, function (buffer) { return JSON.parse(decoder.decode(buffer)); })
        .then(function (rows) { chunks.set(path, rows); });
    })).then(function () {
      matches.forEach(function (match) {
        if (!match.row) match.row = chunks.get(match.partition.id + "/d/" + Math.floor(match.id / size) + ".json")[match.id % size];
      });
    });
  };
  // The next ``count`` results, best first. Their rows are read for the best twice as many,
  // so an exact sha, pull request, title or phrase among them comes first.
  Search.prototype.nextPage = function (count) {
    var self = this;
    return self.find(self.shown + count).then(function () {
      var pending = self.matches.filter(function (match) { return !match.shown; }).sort(rank);
      var candidates = pending.slice(0, count * 2);
      return self.rowsOf(candidates).then(function () {
        candidates.forEach(function (match) { match.boosted = match.score + self.boost(match.row); });
        var page = candidates.sort(rank).slice(0, count);
        page.forEach(function (match) { match.shown = true; });
        self.shown += page.length;
        return page;
      });
    });
  };

  // ---- shared by the search page, the header box, tests and the benchmark -------------------
  var script = document.currentScript;
  var siteRoot = new URL("..", script ? script.src : location.href).href;
  var indexBase = siteRoot + "search/";
  var indexPromise = null;
  function loadIndex() {
    if (!indexPromise) {
      indexPromise = fetch(indexBase + "manifest.json").then(function (response) {
        if (!response.ok) throw new Error("manifest.json: HTTP " + response.status);
        return response.arrayBuffer();
      }).then(function (buffer) {
        return new Index(indexBase, JSON.parse(decoder.decode(buffer)), buffer.byteLength);
      });
      indexPromise.catch(function () { indexPromise = null; });
    }
    return indexPromise;
  }
  function commitUrl(manifest, row) {
    return siteRoot + manifest.commit_url.replace("{sha}", row[0]).replace("{repo}", row[9] || "");
  }

  // Every match of a query, ranked, with the bytes downloaded (tests and the benchmark).
  root.digestSearch = function (query, filters) {
    return loadIndex().then(function (index) {
      var search = new Search(index, query, filters);
      search.wantMore = true;
      if (search.empty()) return { ids: [], bytes: search.bytes };
      return search.nextPage(Infinity).then(function (page) {
        return { ids: page.map(function (match) { return match.row[0]; }), bytes: search.bytes };
      });
    });
  };

  // The header box of every page (assets/digest.js): the first ``count`` results of a query,
  // best first, as {url, title, day} (title is untrusted text), and whether there are more.
  root.digestSearchFirst = function (query, count) {
    return loadIndex().then(function (index) {
      var search = new Search(index, query, {});
      if (search.empty()) return { results: [], more: false };
      return search.nextPage(count).then(function (page) {
        return {
          results: page.map(function (match) {
            return { url: commitUrl(index.manifest, match.row), title: match.row[1], day: match.row[2] };
          }),
          more: search.matches.length > count,
          needles: search.needles,
        };
      });
    });
  };

  // ---- rendering: DOM text nodes only ---------------------------------------------------------
  var PAGE = 20;
  var EXCERPT_BEFORE = 40; // characters shown before the first matched word
  var EXCERPT_LENGTH = 200;

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function isWordChar(char) {
    return char !== undefined && isWord(char.codePointAt(0));
  }
  // [start, end) character ranges of ``chars`` (code points) where a needle occurs, merged.
  function matchRanges(chars, needles) {
    var units = []; // the normalised text, code point by code point, and where each came from
    var origins = [];
    chars.forEach(function (char, index) {
      Array.from(normalise(char)).forEach(function (unit) {
        units.push(unit);
        origins.push(index);
      });
    });
    var marked = new Uint8Array(chars.length);
    needles.forEach(function (needle) {
      var wanted = Array.from(needle);
      var short = wanted.length < 3 && wanted.every(function (char) { return isWordChar(char); });
      for (var at = 0; at + wanted.length <= units.length; at++) {
        var same = true;
        for (var k = 0; k < wanted.length && same; k++) same = units[at + k] === wanted[k];
        if (!same) continue;
        // A one- or two-letter word ("tp") is highlighted only where it is a whole word.
        if (short && (isWordChar(units[at - 1]) || isWordChar(units[at + wanted.length]))) continue;
        for (var m = origins[at]; m <= origins[at + wanted.length - 1]; m++) marked[m] = 1;
      }
    });
    var ranges = [];
    for (var i = 0; i < marked.length; i++) {
      if (!marked[i]) continue;
      var start = i;
      while (i < marked.length && marked[i]) i++;
      ranges.push([start, i]);
    }
    return ranges;
  }
  function appendMarked(parent, text, needles) {
    var chars = Array.from(text);
    var at = 0;
    matchRanges(chars, needles).forEach(function (range) {
      if (range[0] > at) parent.appendChild(document.createTextNode(chars.slice(at, range[0]).join("")));
      parent.appendChild(element("mark", null, chars.slice(range[0], range[1]).join("")));
      at = range[1];
    });
    if (at < chars.length) parent.appendChild(document.createTextNode(chars.slice(at).join("")));
  }
  // A title as the pages show it: `code` spans as code, matched words marked.
  function appendTitle(parent, title, needles) {
    var parts = title.split("`");
    parts.forEach(function (part, i) {
      var odd = i % 2 === 1; // the text after an opening backtick
      var closed = i < parts.length - 1;
      if (odd && closed && part) {
        var code = element("code");
        appendMarked(code, part, needles);
        parent.appendChild(code);
      } else {
        appendMarked(parent, (odd ? "`" : "") + part + (odd && closed ? "`" : ""), needles);
      }
    });
  }
  // About EXCERPT_LENGTH characters of the excerpt, from just before its first matched word.
  function appendExcerpt(parent, excerpt, needles) {
    var chars = Array.from(excerpt || "");
    var ranges = matchRanges(chars, needles);
    var start = ranges.length ? Math.max(0, ranges[0][0] - EXCERPT_BEFORE) : 0;
    if (start > 0) {
      var space = chars.slice(start, ranges[0][0]).indexOf(" ");
      if (space >= 0 && space < EXCERPT_BEFORE / 2) start += space + 1; // start at a word
    }
    var end = Math.min(chars.length, start + EXCERPT_LENGTH);
    appendMarked(parent, (start > 0 ? "…" : "") + chars.slice(start, end).join("") + (end < chars.length ? "…" : ""), needles);
  }

  // The name without its emoji mark: the badge's colour dot is CSS, the same on every system.
  function importanceName(manifest, level) {
    return (manifest.importance[level] || "").replace(/^[^\p{L}\p{N}]+\s/u, "");
  }
  // For the header box: a title with its code spans and the query's words marked.
  root.digestSearchTitle = appendTitle;

  function labelNames(manifest) {
    var names = { platforms: new Map(), subsystems: new Map(), repositories: new Map() };
    (manifest.repositories || []).forEach(function (pair) { names.repositories.set(pair[0], pair[1]); });
    manifest.platforms.forEach(function (pair) { names.platforms.set(pair[0], pair[1]); });
    manifest.subsystems.forEach(function (pair) { names.subsystems.set(pair[0], pair[1]); });
    return names;
  }

  function renderResult(manifest, names, search, row) {
    var item = element("li", "digest-search__result");
    var link = element("a", "digest-search__title");
    link.href = commitUrl(manifest, row);
    appendTitle(link, row[1], search.needles);
    item.appendChild(link);
    var meta = element("div", "digest-search__meta");
    var importance = importanceName(manifest, row[3]);
    var badge = element("span", "digest-search__badge digest-search__badge--" + (row[3] || "none"), importance);
    meta.appendChild(badge);
    if (row[9]) {
      var repository = element("a", "digest-search__chip digest-search__chip--repositories", names.repositories.get(row[9]) || row[9]);
      repository.href = siteRoot + manifest.label_urls.repositories.replace("{id}", row[9]);
      meta.appendChild(repository);
    }
    var day = element("time", "digest-search__day", row[2]);
    day.setAttribute("datetime", row[2]);
    meta.appendChild(day);
    if (row[4]) meta.appendChild(element("span", "digest-search__type", manifest.change_types[row[4]] || row[4]));
    [["platforms", row[5]], ["subsystems", row[6]]].forEach(function (pair) {
      (pair[1] || []).forEach(function (id) {
        var chip = element("a", "digest-search__chip digest-search__chip--" + pair[0], names[pair[0]].get(id) || id);
        var template = (manifest.label_urls || {})[pair[0]];
        if (template) chip.href = siteRoot + template.replace("{id}", id);
        meta.appendChild(chip);
      });
    });
    item.appendChild(meta);
    if (row[8]) {
      var excerpt = element("p", "digest-search__excerpt");
      appendExcerpt(excerpt, row[8], search.needles);
      item.appendChild(excerpt);
    }
    return item;
  }

  // ---- the search page ---------------------------------------------------------------------
  var FIELDS = ["q", "repository", "platform", "subsystem", "importance", "from", "to"];

  function setUp(container) {
    var controls = {
      q: container.querySelector("#digest-search-input"),
      platform: container.querySelector("#digest-search-platform"),
      subsystem: container.querySelector("#digest-search-subsystem"),
      importance: container.querySelector("#digest-search-importance"),
      repository: container.querySelector("#digest-search-repository"),
      from: container.querySelector("#digest-search-from"),
      to: container.querySelector("#digest-search-to"),
    };
    var input = controls.q;
    var status = container.querySelector("#digest-search-status");
    var list = container.querySelector("#digest-search-results");
    var more = container.querySelector("#digest-search-more");
    var words = container.dataset;
    var generation = 0;
    var current = null;
    var timer = null;
    var names = null;

    function fillSelect(select, pairs) {
      pairs.forEach(function (pair) {
        var option = element("option", null, pair[1]);
        option.value = pair[0];
        select.appendChild(option);
      });
    }
    function values() {
      var found = {};
      FIELDS.forEach(function (field) { found[field] = controls[field] ? controls[field].value : ""; });
      return found;
    }

    function report(search) {
      var count = search.matches.length;
      var complete = search.done();
      var chosen = values();
      // What the shown results answer: tests and the benchmark wait for their own query.
      list.setAttribute("data-query", search.query);
      list.setAttribute("data-platform", search.filters.platform || "");
      list.setAttribute("data-subsystem", search.filters.subsystem || "");
      list.setAttribute("data-importance", search.filters.importance || "");
      list.setAttribute("data-repository", search.filters.repository || "");
      list.setAttribute("data-from", chosen.from);
      list.setAttribute("data-to", chosen.to);
      list.setAttribute("data-count", String(count));
      list.setAttribute("data-complete", complete ? "true" : "false");
      list.setAttribute("data-bytes", String(search.bytes));
      if (!count) status.textContent = words.textEmpty;
      else if (count === 1 && complete) status.textContent = words.textCountOne;
      else status.textContent = (complete ? words.textCount : words.textCountAtLeast).replace("{count}", String(count));
      more.hidden = search.shown >= count && complete;
    }

    function showMore(index, search, mine) {
      more.disabled = true;
      return search.nextPage(PAGE).then(function (page) {
        if (mine !== generation) return;
        page.forEach(function (match) { list.appendChild(renderResult(index.manifest, names, search, match.row)); });
        more.disabled = false;
        report(search);
      });
    }

    function run() {
      clearTimeout(timer);
      var mine = ++generation;
      var chosen = values();
      var url = new URL(location.href);
      FIELDS.forEach(function (field) {
        if (chosen[field]) url.searchParams.set(field, chosen[field]);
        else url.searchParams.delete(field);
      });
      history.replaceState(null, "", url.href);
      // The results' space is kept while a search is asked for (see page.py's RESERVE_SCRIPT).
      container.classList.toggle("digest-search--query", FIELDS.some(function (field) { return chosen[field]; }));
      list.textContent = "";
      list.removeAttribute("data-count");
      more.hidden = true;
      loadIndex().then(function (index) {
        if (mine !== generation) return null;
        var search = new Search(index, chosen.q, chosen);
        if (search.empty()) {
          status.textContent = "";
          return null;
        }
        status.textContent = words.textSearching;
        current = search;
        return showMore(index, search, mine);
      }).catch(function (error) {
        if (mine === generation) status.textContent = words.textFailed + " " + error.message;
      });
    }

    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(run, 150);
    }
    function resultLinks() {
      return Array.prototype.slice.call(list.querySelectorAll("a.digest-search__title"));
    }

    loadIndex().then(function (index) {
      var manifest = index.manifest;
      names = labelNames(manifest);
      fillSelect(controls.platform, manifest.platforms);
      fillSelect(controls.subsystem, manifest.subsystems);
      if ((manifest.repositories || []).length > 1) {
        fillSelect(controls.repository, manifest.repositories);
        controls.repository.hidden = false;
      }
      fillSelect(controls.importance, ["high", "medium", "low"].map(function (level) {
        return [level, importanceName(manifest, level)];
      }));
      var partitions = manifest.partitions;
      if (partitions.length) {
        [controls.from, controls.to].forEach(function (control) {
          control.min = partitions[partitions.length - 1].first_day;
          control.max = partitions[0].last_day;
        });
      }
      // A search/?q=...&platform=... address restores that search.
      var params = new URL(location.href).searchParams;
      var restored = false;
      FIELDS.forEach(function (field) {
        var value = params.get(field);
        if (value && controls[field]) {
          controls[field].value = value;
          restored = true;
        }
      });
      if (restored) run();
    }).catch(function (error) {
      status.textContent = words.textFailed + " " + error.message;
    });
    input.addEventListener("input", schedule);
    ["repository", "platform", "subsystem", "importance", "from", "to"].forEach(function (field) {
      controls[field].addEventListener("change", run);
    });
    container.querySelector("form").addEventListener("submit", function (event) {
      event.preventDefault();
      run();
    });
    more.addEventListener("click", function () {
      loadIndex().then(function (index) {
        if (!current) return;
        current.wantMore = true;
        showMore(index, current, generation);
      });
    });
    // Arrows move from the box through the results; Enter opens the one focused (a link).
    input.addEventListener("keydown", function (event) {
      if (event.key !== "ArrowDown") return;
      var links = resultLinks();
      if (!links.length) return;
      event.preventDefault();
      links[0].focus();
    });
    list.addEventListener("keydown", function (event) {
      if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
      var links = resultLinks();
      var at = links.indexOf(document.activeElement);
      if (at < 0) return;
      event.preventDefault();
      var next = event.key === "ArrowDown" ? at + 1 : at - 1;
      if (next < 0) input.focus();
      else links[Math.min(next, links.length - 1)].focus();
    });
  }

  function start() {
    var container = document.getElementById("digest-search");
    if (container) setUp(container);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(typeof window !== "undefined" ? window : globalThis);
