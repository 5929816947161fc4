/* The digest's search client: parses a query with digest-search-query.js, looks its words up
   in the global title index (titles.py: every title, #PR and sha prefix of the archive), asks the
   filter files which partitions may hold its words, downloads only the shards holding its grams,
   and ranks the matches: commits whose title holds every word first, over the whole archive, by
   how much of the title they are (an exact sha, pull request or title first); then the rest,
   newest partitions first, BM25-style over fields. Recency only breaks ties. Every text from the
   index (commit titles, excerpts) is untrusted: it is set with textContent or DOM text nodes,
   never as HTML. */
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
  var BOOST_ITEM = 1000; // the sha or pull request asked for
  var BOOST_TITLE = 500; // the whole title typed (with or without its tags and "(#123)")
  var BOOST_PHRASE_TITLE = 50; // the query as typed, inside the title
  // A title token's class (titles.token_classes): its BM25 weight in the title, from a short
  // title that says it twice (3) down to a long title that mentions it once (0). Their spread stays under the step between a word
  // typed, its synonym and a narrower word (1, 0.8, 0.6): the words decide first.
  var TITLE_CLASS_WEIGHTS = [1, 1.05, 1.1, 1.2];
  var SHA_TOKEN = "\u0001s";
  var SHA_DIGITS = 7;
  var TITLE_MARK = "\u0001t";
  var PLATFORM_GRAM = "\u0001p:";
  var SUBSYSTEM_GRAM = "\u0001s:";
  var IMPORTANCE_GRAM = "\u0001i:";
  var REPOSITORY_GRAM = "\u0001r:";
  var PULL_REQUEST_GRAM = "\u0001#";
  var EMPTY = { ids: new Uint32Array(0), levels: new Uint8Array(0) };
  // What a request costs beyond its body, in bytes, when filter blocks can come from one file or
  // from many: its headers both ways (GitHub Pages answers with about 700 bytes of them) and the
  // page's work per fetch on a phone's main thread.
  var REQUEST_BYTES = 1024;
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
  // A title's tokens as titles.title_tokens cuts them: word runs whole, Chinese runs in pairs.
  function titleTokens(text) {
    var found = [];
    tokens.runs(normalise(text)).forEach(function (run) {
      var chars = run.chars;
      if (run.kind === "c" && chars.length > 1) {
        for (var i = 0; i + 1 < chars.length; i++) found.push(chars[i] + chars[i + 1]);
      } else {
        found.push(chars.join(""));
      }
    });
    return found;
  }
  function bucketName(bucket) {
    return "filter/" + (bucket < 16 ? "0" : "") + bucket.toString(16) + ".bin";
  }
  // A partition's whole filter: every bucket's block of it, in bucket order (index.py).
  function wholeFilterName(partition) {
    return partition.id + "/filter.bin";
  }
  function bytesOf(buffer) {
    return new Uint8Array(buffer);
  }
  // A shard file: get(gram) -> {ids, levels}, ids ascending (newest first), or undefined. A query
  // needs a few of a shard's thousand grams: reading one finds where each gram's postings start
  // and skips them; a gram's postings are decoded when it is asked for. Decoding all of them
  // took three quarters of the time, in one long task of the page as its results arrive.
  function Shard(data, starts) {
    this.data = data;
    this.starts = starts; // gram -> [offset of its first posting, posting count]
    this.decoded = new Map();
  }
  Shard.prototype.get = function (gram) {
    var found = this.decoded.get(gram);
    if (found) return found;
    var start = this.starts.get(gram);
    if (!start) return undefined;
    var data = this.data;
    var position = start[0];
    var count = start[1];
    var ids = new Uint32Array(count);
    var levels = new Uint8Array(count);
    var current = 0;
    for (var i = 0; i < count; i++) {
      var value = 0;
      var scale = 1;
      for (;;) {
        var byte = data[position++];
        value += (byte & 0x7f) * scale;
        if (byte < 0x80) break;
        scale *= 128;
      }
      current += Math.floor(value / 4);
      ids[i] = current;
      levels[i] = value % 4;
    }
    found = { ids: ids, levels: levels };
    this.decoded.set(gram, found);
    return found;
  };
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
    var starts = new Map();
    while (position < data.length) {
      var length = varint();
      var gram = decoder.decode(data.subarray(position, position + length));
      position += length;
      var count = varint();
      starts.set(gram, [position, count]);
      for (var i = 0; i < count; i++) while (data[position++] >= 0x80);
    }
    return new Shard(data, starts);
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

  // The global ids in every token's list, each with its classes there.
  function intersectTokens(lists) {
    var found = new Map();
    if (!lists.length) return found;
    var sorted = lists.slice().sort(function (a, b) { return a.ids.length - b.ids.length; });
    for (var i = 0; i < sorted[0].ids.length; i++) found.set(sorted[0].ids[i], [sorted[0].levels[i]]);
    for (var k = 1; k < sorted.length && found.size; k++) {
      var other = sorted[k];
      var kept = new Map();
      for (var j = 0; j < other.ids.length; j++) {
        var classes = found.get(other.ids[j]);
        if (classes) kept.set(other.ids[j], classes.concat([other.levels[j]]));
      }
      found = kept;
    }
    return found;
  }

  // The manifest and every file downloaded for it, shared by the searches of a page.
  function Index(base, manifest, size) {
    this.base = base;
    this.manifest = manifest;
    this.size = size;
    this.files = new Map(); // path -> Promise of {value, size}
    this.offsets = [];
    this.starts = []; // the global id of each partition's first document (titles.py)
    var offset = 0;
    var start = 0;
    var self = this;
    manifest.partitions.forEach(function (partition) {
      self.offsets.push(offset);
      offset += partition.filter_bytes;
      self.starts.push(start);
      start += partition.docs;
    });
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
  // The partition (by position) and local id of a global id.
  Index.prototype.locate = function (global) {
    var position = this.starts.length - 1;
    while (position > 0 && this.starts[position] > global) position--;
    return { position: position, id: global - this.starts[position] };
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
  // Whether the filter blocks of ``buckets`` for the partitions at ``positions`` cost less read
  // from each partition's whole filter than from the buckets' files (one file per bucket, with
  // that block of every partition): requests against bytes. A query of a synonym group (cuda:
  // nvidia, 英伟达, h100...) has tens of grams; on a young archive a block is tens of bytes, and
  // the whole filter (8 to 23 KB on the demo) is one request where the buckets are tens of them,
  // each a fetch the page's main thread handles. On an archive of years the buckets cost less.
  Index.prototype.wholeFilters = function (positions, buckets) {
    var self = this;
    var partitions = self.manifest.partitions;
    var missing = buckets.filter(function (bucket) { return !self.files.has(bucketName(bucket)); }).length;
    if (!missing) return false;
    var bucketBytes = 0; // one bucket file: its block of every partition
    partitions.forEach(function (partition) { bucketBytes += partition.filter_bytes; });
    var whole = 0;
    positions.forEach(function (position) {
      var partition = partitions[position];
      if (!self.files.has(wholeFilterName(partition))) {
        whole += self.manifest.filter.buckets * partition.filter_bytes + REQUEST_BYTES;
      }
    });
    return whole < missing * (bucketBytes + REQUEST_BYTES);
  };
  // The bucket and bit positions of a gram in a filter block of ``bits``: as index.filter_bits.
  // ``blocks(bucket)`` is where partition ``position``'s block of that bucket is: [data, offset].
  Index.prototype.mayHold = function (blocks, position, gram) {
    var filter = this.manifest.filter;
    var block = this.manifest.partitions[position].filter_bytes;
    var first = fnv1a(gram);
    var second = fnv1a(filter.seed + gram);
    var step = (first >>> 8) | 1;
    var found = blocks(first % filter.buckets);
    var data = found[0];
    var offset = found[1];
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

  // Per term, the alternatives the title index can answer: their tokens, weight, and whether
  // they stand for a sha prefix (the index holds its first SHA_DIGITS digits; the row tells the
  // rest). Null when a term has none (then no title holds the query), or when a label,
  // importance or repository filter is set (the partitions answer those).
  function titleTerms(terms, shaPrefix, filtered) {
    if (filtered || !terms.length) return null;
    var found = [];
    for (var t = 0; t < terms.length; t++) {
      var alternatives = [];
      terms[t].alternatives.forEach(function (alternative) {
        var grams = alternative.grams;
        if (grams.length === 1 && grams[0].indexOf(PULL_REQUEST_GRAM) === 0) {
          alternatives.push({ tokens: grams, weight: alternative.weight, sha: "", item: true });
        } else if (alternative.words) {
          var words = titleTokens(alternative.words);
          if (words.length) alternatives.push({ tokens: words, weight: alternative.weight, sha: "", item: false });
        }
      });
      if (shaPrefix && t === 0) {
        var token = SHA_TOKEN + shaPrefix.slice(0, SHA_DIGITS);
        alternatives.push({ tokens: [token], weight: 1, sha: shaPrefix, item: true });
      }
      if (!alternatives.length) return null;
      found.push(alternatives);
    }
    return found;
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
    this.shaPrefix = /^[0-9a-f]{7,40}$/.test(single) ? single.slice(0, 12) : "";
    var pull = null;
    this.terms.forEach(function (term) {
      term.alternatives.forEach(function (alternative) {
        if (alternative.grams.length === 1 && alternative.grams[0].indexOf(PULL_REQUEST_GRAM) === 0) {
          pull = alternative.grams[0];
        }
      });
    });
    this.pullRequest = pull ? parseInt(pull.slice(PULL_REQUEST_GRAM.length), 10) : 0;
    this.titleTerms = titleTerms(this.terms, this.shaPrefix, this.filterGrams.length > 0);
    this.titlesRead = false;
    this.titled = new Set(); // "position:id" of the title matches, which the partitions skip
    this.itemFound = false; // a title match by its sha or pull request: the first page is it
    // The header box's few results: when some titles hold every word, they are its answer (they
    // rank above every other match, which would cost the partitions' shards to find).
    this.titlesSuffice = false;
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
  Search.prototype.buckets = function (grams) {
    var count = this.manifest.filter.buckets;
    return Array.from(new Set(grams.map(function (gram) { return fnv1a(gram) % count; })));
  };
  // The filter blocks of the grams: which of them partition ``position`` may hold. They are read
  // from its whole filter when it is loaded or ``whole`` asks for it, else from the buckets' files.
  Search.prototype.presence = function (position, grams, whole) {
    var self = this;
    var index = self.index;
    var partition = self.manifest.partitions[position];
    var holds = new Map();
    if (whole || index.files.has(wholeFilterName(partition))) {
      return self.use(wholeFilterName(partition), bytesOf).then(function (data) {
        function blocks(bucket) { return [data, bucket * partition.filter_bytes]; }
        grams.forEach(function (gram) { holds.set(gram, index.mayHold(blocks, position, gram)); });
        return holds;
      });
    }
    var buckets = new Map();
    return Promise.all(self.buckets(grams).map(function (bucket) {
      return self.use(bucketName(bucket), bytesOf).then(function (data) { buckets.set(bucket, data); });
    })).then(function () {
      function blocks(bucket) { return [buckets.get(bucket), index.offsets[position]]; }
      grams.forEach(function (gram) { holds.set(gram, index.mayHold(blocks, position, gram)); });
      return holds;
    });
  };
  // Which of ``grams`` some partition's filter may hold.
  Search.prototype.anywhere = function (grams) {
    var self = this;
    var positions = self.manifest.partitions.map(function (_partition, position) { return position; });
    var whole = self.index.wholeFilters(positions, self.buckets(grams));
    return Promise.all(positions.map(function (position) { return self.presence(position, grams, whole); }))
      .then(function (each) {
        var held = new Map();
        grams.forEach(function (gram) {
          held.set(gram, each.some(function (holds) { return holds.get(gram); }));
        });
        return held;
      });
  };
  // The commits whose title holds every term (one of its alternatives' tokens), over the whole
  // archive, scored by the terms' rarity among titles and how much of each title they are.
  Search.prototype.readTitles = function () {
    var self = this;
    self.titlesRead = true;
    var terms = self.titleTerms;
    var shards = self.manifest.title_shards;
    if (!terms || !shards) return Promise.resolve();
    var wanted = new Set();
    terms.forEach(function (alternatives) {
      alternatives.forEach(function (alternative) { alternative.tokens.forEach(function (token) { wanted.add(token); }); });
    });
    var marks = Array.from(wanted).map(function (token) { return TITLE_MARK + token; });
    return self.anywhere(marks).then(function (held) {
      var live = terms.map(function (alternatives) {
        return alternatives.filter(function (alternative) {
          return alternative.tokens.every(function (token) { return held.get(TITLE_MARK + token); });
        });
      });
      if (live.some(function (alternatives) { return !alternatives.length; })) return null;
      var files = new Map();
      live.forEach(function (alternatives) {
        alternatives.forEach(function (alternative) {
          alternative.tokens.forEach(function (token) { files.set("titles/" + shardName(fnv1a(token) % shards, shards) + ".bin", null); });
        });
      });
      return Promise.all(Array.from(files.keys()).map(function (path) {
        return self.use(path, decodeShard).then(function (entries) { files.set(path, entries); });
      })).then(function () {
        function entry(token) {
          return files.get("titles/" + shardName(fnv1a(token) % shards, shards) + ".bin").get(token) || EMPTY;
        }
        self.addTitleMatches(live, entry);
      });
    });
  };
  Search.prototype.addTitleMatches = function (live, entry) {
    var self = this;
    var total = self.index.starts.length ? self.index.starts[self.index.starts.length - 1] +
      self.manifest.partitions[self.manifest.partitions.length - 1].docs : 0;
    var bests = live.map(function (alternatives) {
      var best = new Map(); // global id -> [value, the alternative]
      alternatives.forEach(function (alternative) {
        var lists = alternative.tokens.map(entry);
        var found = intersectTokens(lists);
        found.forEach(function (classes, global) {
          var sum = 0;
          classes.forEach(function (level) { sum += TITLE_CLASS_WEIGHTS[level]; });
          var value = alternative.weight * sum / classes.length;
          var known = best.get(global);
          if (!known || known[0] < value) best.set(global, [value, alternative]);
        });
      });
      return best;
    });
    var rarity = bests.map(function (best) {
      return Math.log(1 + (total - best.size + 0.5) / (best.size + 0.5));
    });
    var smallest = bests.reduce(function (a, b) { return a.size <= b.size ? a : b; });
    smallest.forEach(function (_value, global) {
      var score = 0;
      var sha = "";
      var item = false;
      for (var t = 0; t < bests.length; t++) {
        var value = bests[t].get(global);
        if (value === undefined) return;
        score += rarity[t] * value[0];
        sha = sha || value[1].sha;
        item = item || value[1].item;
      }
      var place = self.index.locate(global);
      var partition = self.manifest.partitions[place.position];
      var range = idRange(partition, self.filters);
      if (place.id < range[0] || place.id >= range[1]) return;
      self.titled.add(place.position + ":" + place.id);
      self.itemFound = self.itemFound || item;
      self.matches.push({
        partition: partition, position: place.position, id: place.id, score: score, title: true, sha: sha,
        day: self.index.dayOf(partition, place.id),
      });
    });
  };
  Search.prototype.readPartition = function (position) {
    var self = this;
    self.read.add(position);
    var partition = self.manifest.partitions[position];
    var range = idRange(partition, self.filters);
    if (range[0] >= range[1]) return Promise.resolve();
    var asked = self.allGrams();
    var whole = self.index.wholeFilters([position], self.buckets(asked));
    return self.presence(position, asked, whole).then(function (holds) {
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
      if (self.titled.has(position + ":" + id)) return;
      var score = bests.length ? 0 : 1;
      for (var t = 0; t < bests.length; t++) {
        var value = bests[t].get(id);
        if (value === undefined) return;
        score += rarity[t] * value;
      }
      var day = self.index.dayOf(partition, id);
      self.matches.push({ partition: partition, position: position, id: id, score: score, day: day });
    });
  };
  // Resolves once more than ``count`` matches are known, or every partition is read. The title
  // index is read first: a known item's first page (its sha or pull request) is that commit.
  Search.prototype.find = function (count) {
    var self = this;
    if (!self.titlesRead) return self.readTitles().then(function () { return self.find(count); });
    if (self.done() || (self.itemFound && !self.wantMore)) return Promise.resolve();
    if (self.matches.length > count || (self.titlesSuffice && self.matches.length && !self.wantMore)) {
      return Promise.resolve();
    }
    var position = 0;
    while (self.read.has(position)) position++;
    return self.readPartition(position).then(function () { return self.find(count); });
  };
  // Title matches first, then by score; the newer commit wins a tie.
  function rank(a, b) {
    var left = a.boosted === undefined ? a.score : a.boosted;
    var right = b.boosted === undefined ? b.score : b.boosted;
    return (b.title ? 1 : 0) - (a.title ? 1 : 0) || right - left || b.day - a.day || a.position - b.position ||
      a.id - b.id;
  }
  var TAGS = /^(\[[^\]]*\]\s*)+/;
  var PULL_REQUEST_SUFFIX = / ?\(#[0-9]+\)$/;
  Search.prototype.boost = function (row) {
    var boost = 0;
    if (this.shaPrefix && row[0].indexOf(this.shaPrefix) === 0) boost += BOOST_ITEM;
    if (this.pullRequest && row[7] === this.pullRequest) boost += BOOST_ITEM;
    var title = normalisedText(row[1]);
    if (!this.phrase) return boost;
    var bare = title.replace(PULL_REQUEST_SUFFIX, "");
    var untagged = normalisedText(row[1].replace(TAGS, "")).replace(PULL_REQUEST_SUFFIX, "");
    if (title === this.phrase || bare === this.phrase || untagged === this.phrase) boost += BOOST_TITLE;
    else if (title.indexOf(this.phrase) >= 0) boost += BOOST_PHRASE_TITLE;
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
        // A title match by its sha's first digits that the whole prefix typed does not start.
        var wrong = candidates.filter(function (match) { return match.sha && match.row[0].indexOf(match.sha) !== 0; });
        if (wrong.length) {
          self.matches = self.matches.filter(function (match) { return wrong.indexOf(match) < 0; });
          candidates = candidates.filter(function (match) { return wrong.indexOf(match) < 0; });
        }
        candidates.forEach(function (match) { match.boosted = match.score + self.boost(match.row); });
        var page = candidates.sort(rank).slice(0, count);
        page.forEach(function (match) { match.shown = true; });
        self.shown += page.length;
        return page;
      });
    });
  };

  // The excerpts of the results shown (row[8]): the search page's, which the header box needs not.
  Search.prototype.excerptsOf = function (page) {
    var self = this;
    var size = self.manifest.chunk_size;
    var chunks = new Map();
    page.forEach(function (match) { chunks.set(match.partition.id + "/e/" + Math.floor(match.id / size) + ".json", null); });
    return Promise.all(Array.from(chunks.keys()).map(function (path) {
      return self.use(path, function (buffer) { return JSON.parse(decoder.decode(buffer)); })
        .then(function (excerpts) { chunks.set(path, excerpts); });
    })).then(function () {
      page.forEach(function (match) {
        match.row[8] = chunks.get(match.partition.id + "/e/" + Math.floor(match.id / size) + ".json")[match.id % size];
      });
      return page;
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
      search.titlesSuffice = true;
      if (search.empty()) return { results: [], more: false };
      return search.nextPage(count).then(function (page) {
        return {
          results: page.map(function (match) {
            return { url: commitUrl(index.manifest, match.row), title: match.row[1], day: match.row[2] };
          }),
          more: search.matches.length > count || !search.done(),
          needles: search.needles,
          bytes: search.bytes, // downloaded for these results, manifest included (the benchmark)
        };
      });
    });
  };

  // ---- rendering: DOM text nodes only ---------------------------------------------------------
  var PAGE = 20;
  // Results drawn in the first task, about what a phone's screen shows under the form; the rest
  // of a page follow once that frame is painted. Building and laying out twenty results with
  // their excerpts at once was one of the page's longest tasks on a phone's CPU.
  var FIRST_DRAWN = 4;
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
        return search.excerptsOf(page);
      }).then(function (page) {
        if (mine !== generation) return null;
        names = names || labelNames(index.manifest); // a search typed before the filters were filled
        function draw(matches) {
          var drawn = document.createDocumentFragment();
          matches.forEach(function (match) { drawn.appendChild(renderResult(index.manifest, names, search, match.row)); });
          list.appendChild(drawn);
        }
        draw(page.slice(0, FIRST_DRAWN));
        return new Promise(function (resolve) { afterNextPaint(resolve); }).then(function () {
          if (mine !== generation) return;
          draw(page.slice(FIRST_DRAWN));
          more.disabled = false;
          report(search);
        });
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

    // The index is asked for once the page is drawn: its paints wait for no fetch and no decoding
    // on a phone's slow CPU (and Lighthouse's simulation of one counts every request that ended
    // before the largest paint as delaying it).
    function prepare() {
      loadIndex().then(function (index) {
        var manifest = index.manifest;
        names = names || labelNames(manifest);
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
        if (restored) setTimeout(run, 0); // its own task: the filters are drawn first
      }).catch(function (error) {
        status.textContent = words.textFailed + " " + error.message;
      });
    }
    afterFirstPaint(prepare);
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

  function afterNextPaint(callback) {
    requestAnimationFrame(function () { setTimeout(callback, 0); });
  }
  // Once the page's first contentful paint is shown, two frames later (its largest paint, the
  // introduction, is in that frame or the next): the page is drawn before any fetch or decoding
  // of the index competes with it. A browser that reports no paints waits one frame.
  function afterFirstPaint(callback) {
    function twoFramesLater() {
      requestAnimationFrame(function () { afterNextPaint(callback); });
    }
    var types = (typeof PerformanceObserver === "function" && PerformanceObserver.supportedEntryTypes) || [];
    if (types.indexOf("paint") < 0) {
      afterNextPaint(callback);
      return;
    }
    new PerformanceObserver(function (list, observer) {
      if (!list.getEntriesByName("first-contentful-paint").length) return;
      observer.disconnect();
      twoFramesLater();
    }).observe({ type: "paint", buffered: true });
  }

  function start() {
    var container = document.getElementById("digest-search");
    if (container) setUp(container);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(typeof window !== "undefined" ? window : globalThis);
