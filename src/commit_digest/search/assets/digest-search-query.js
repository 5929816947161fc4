/* The search client's words: tokenises a query exactly as commit_digest/search/tokens.py does
   and expands it with the taxonomy's synonyms as search/query.py does. Loaded before
   digest-search.js (window.digestSearchTokens); runs in node too, where the tests compare it
   with the Python it mirrors. */
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
        coveringStarts(word.length).forEach(function (i) { grams.add(word.slice(i, i + 3).join("")); });
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
  // Where the trigrams covering a word of ``length`` start: every third, and the last.
  function coveringStarts(length) {
    var starts = [];
    for (var i = 0; i < length - 2; i += 3) starts.push(i);
    if (starts[starts.length - 1] !== length - 3) starts.push(length - 3);
    return starts;
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


  // ---- query parser: mirrors query.py step for step ------------------------------------------
  var PULL_REQUEST_GRAM = "\u0001#";
  var SYNONYM_WEIGHT = 0.8;
  var NARROWER_WEIGHT = 0.6;
  var NUMBER_WEIGHT = 0.5;
  var PULL_REQUEST = /^\(?#([0-9]{1,9})\)?$/;
  var LONG_SHA = /^[0-9a-f]{13,40}$/;

  function phraseGrams(phrase) {
    var grams = new Set();
    queryTerms(phrase).forEach(function (word) {
      termGrams(word).forEach(function (gram) { grams.add(gram); });
    });
    return Array.from(grams).sort(compareCodePoints);
  }
  function isCjkWord(word) {
    var found = runs(word);
    return found.length === 1 && found[0].kind === "c" && found[0].chars.join("") === word &&
      found[0].chars.length >= 2;
  }
  function Phrases(groups) {
    var self = this;
    self.same = new Map(); // words joined by a space -> the groups holding them as a synonym
    self.known = new Set(); // every synonym and narrower word, in taxonomy order
    groups.forEach(function (group) {
      group.same.forEach(function (phrase) {
        var key = queryTerms(phrase).join(" ");
        if (!self.same.has(key)) self.same.set(key, []);
        self.same.get(key).push(group);
      });
      group.same.concat(group.narrower).forEach(function (phrase) {
        var words = queryTerms(phrase);
        if (words.length) self.known.add(words.join(" "));
      });
    });
    self.longest = 0;
    var inner = [];
    self.known.forEach(function (key) {
      var words = key.split(" ");
      self.longest = Math.max(self.longest, words.length);
      if (words.length === 1 && isCjkWord(words[0])) inner.push(words[0]);
    });
    // Longest first, then in taxonomy order (Array.prototype.sort is stable).
    self.inner = inner.sort(function (a, b) { return Array.from(b).length - Array.from(a).length; });
  }
  Phrases.prototype.split = function (word) {
    if (this.known.has(word)) return [word];
    for (var i = 0; i < this.inner.length; i++) {
      var inner = this.inner[i];
      var at = word.indexOf(inner);
      if (at >= 0) {
        var before = word.slice(0, at);
        var after = word.slice(at + inner.length);
        return before || after ? this.split(before).concat([inner], this.split(after)) : [word];
      }
    }
    return word ? [word] : [];
  };
  function synonymTerm(typed, groups) {
    var alternatives = new Map();
    function add(grams, weight, words) {
      if (!grams.length) return;
      var key = grams.join("\u0000");
      var existing = alternatives.get(key);
      if (!existing || existing.weight < weight) alternatives.set(key, { grams: grams, weight: weight, words: words });
    }
    add(phraseGrams(typed), 1, typed);
    groups.forEach(function (group) {
      group.same.forEach(function (phrase) {
        add(phraseGrams(phrase), SYNONYM_WEIGHT, queryTerms(phrase).join(" "));
      });
      group.narrower.forEach(function (phrase) {
        add(phraseGrams(phrase), NARROWER_WEIGHT, queryTerms(phrase).join(" "));
      });
      add([group.gram], SYNONYM_WEIGHT, "");
    });
    return { typed: typed, alternatives: Array.from(alternatives.values()) };
  }
  function plainTerm(word) {
    if (LONG_SHA.test(word)) word = word.slice(0, 12);
    var grams = termGrams(word);
    var pullRequest = PULL_REQUEST.exec(word);
    if (pullRequest) {
      var number = String(parseInt(pullRequest[1], 10));
      return {
        typed: word,
        alternatives: [
          { grams: [PULL_REQUEST_GRAM + number], weight: 1, words: word },
          { grams: grams, weight: NUMBER_WEIGHT, words: number },
        ],
      };
    }
    return grams.length ? { typed: word, alternatives: [{ grams: grams, weight: 1, words: word }] } : null;
  }
  function parseQuery(query, groups) {
    var phrases = new Phrases(groups || []);
    var words = [];
    queryTerms(query).forEach(function (term) { words = words.concat(phrases.split(term)); });
    var terms = [];
    var position = 0;
    while (position < words.length) {
      var term = null;
      var matched = false;
      for (var length = Math.min(phrases.longest, words.length - position); length > 0; length--) {
        var key = words.slice(position, position + length).join(" ");
        if (phrases.known.has(key)) {
          var same = phrases.same.get(key);
          term = same ? synonymTerm(key, same) :
            { typed: key, alternatives: [{ grams: phraseGrams(key), weight: 1, words: key }] };
          position += length;
          matched = true;
          break;
        }
      }
      if (!matched) {
        term = plainTerm(words[position]);
        position += 1;
      }
      if (term) terms.push(term);
    }
    return terms;
  }

  var tokens = {
    normalise: normalise, documentGrams: documentGrams, queryTerms: queryTerms, termGrams: termGrams,
    queryGrams: queryGrams, fnv1a: fnv1a, parseQuery: parseQuery, isWord: isWord,
    runs: runs,
  };
  if (typeof module !== "undefined" && module.exports) module.exports = tokens;
  else root.digestSearchTokens = tokens;
})(typeof window !== "undefined" ? window : globalThis);

