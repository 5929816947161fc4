"""A query to what a matching commit must hold; mirrored step for step by ``parseQuery`` in
``assets/digest-search.js`` (tests/search/test_js_tokens.py runs both on the same table).

A query is a list of *terms*, each a list of *alternatives*; a commit matches when, for every
term, it holds all the grams of one of that term's alternatives. A term is what the reader
typed between spaces, except:

- words that spell a taxonomy label's synonym ("推测解码", "speculative decoding") are one term
  whose alternatives are every synonym of the label, its narrower words ("eagle", "mtp") and the
  label itself (the gram every commit with the label holds). A narrower word typed alone stays
  itself: a reader asking for EAGLE wants EAGLE, not all of speculative decoding.
- a Chinese term that holds a synonym inside ("推测解码性能") is split around it first, as
  Chinese is written without spaces.
- "#12345" (or "(#12345)", as a pasted title ends) is that pull request's commit (an exact
  gram) or, with less weight, the number.
- a whole sha (13 to 40 hex digits) is cut to the 12 digits the index holds.

The weights rank the words typed above their synonyms; the browser client uses them, the
reference reader (reader.py) only which commits match.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from commit_digest.search.tokens import CJK, query_terms, runs, term_grams

PULL_REQUEST_GRAM = "\x01#"  # + the number: the commit of that pull request
SYNONYM_WEIGHT = 0.8  # a synonym's or the label's match, against 1 for the words typed
NARROWER_WEIGHT = 0.6  # a kind of the label ("eagle" for spec decode): less than the label itself
NUMBER_WEIGHT = 0.5  # "#123" found as a number in the text, not as the commit of pull request 123
_PULL_REQUEST = re.compile(r"\(?#([0-9]{1,9})\)?")  # "#123", or "(#123)" at the end of a pasted title
_LONG_SHA = re.compile(r"[0-9a-f]{13,40}")  # the index holds the first 12 digits of a sha


@dataclass(frozen=True)
class SynonymGroup:
    """One label's search words, normalised (tokens.normalise) and in taxonomy order."""

    gram: str  # the label's gram (index.PLATFORM_GRAM + id, ...)
    same: tuple[str, ...]
    narrower: tuple[str, ...]


@dataclass(frozen=True)
class Alternative:
    grams: tuple[str, ...]  # sorted; all of them, or this alternative does not match
    weight: float
    words: str  # the normalised words it stands for ("" for a label's gram), for highlighting


@dataclass(frozen=True)
class Term:
    typed: str  # what the reader typed, normalised, words joined by one space
    alternatives: tuple[Alternative, ...]


def _phrase_grams(phrase: str) -> tuple[str, ...]:
    grams: set[str] = set()
    for word in query_terms(phrase):
        grams.update(term_grams(word))
    return tuple(sorted(grams))


def _is_cjk_word(word: str) -> bool:
    found = list(runs(word))
    return len(found) == 1 and found[0].kind == CJK and found[0].text == word and len(word) >= 2


class _Phrases:
    """Every synonym and narrower word, keyed by its words, to find them in a query."""

    def __init__(self, groups: Sequence[SynonymGroup]) -> None:
        self.same: dict[tuple[str, ...], list[SynonymGroup]] = {}
        self.known: dict[tuple[str, ...], None] = {}  # ordered, as the client's Set is
        for group in groups:
            for phrase in group.same:
                self.same.setdefault(tuple(query_terms(phrase)), []).append(group)
            for phrase in (*group.same, *group.narrower):
                words = tuple(query_terms(phrase))
                if words:
                    self.known[words] = None
        self.longest = max((len(words) for words in self.known), default=0)
        # Chinese words to find inside a longer term, longest first (then in taxonomy order).
        inner = [words[0] for words in self.known if len(words) == 1 and _is_cjk_word(words[0])]
        self.inner = sorted(inner, key=len, reverse=True)

    def split(self, word: str) -> list[str]:
        """A term around the longest known Chinese word inside it ("推测解码性能" -> 推测解码, 性能)."""
        if (word,) in self.known:
            return [word]
        for inner in self.inner:
            at = word.find(inner)
            if at >= 0:
                before, after = word[:at], word[at + len(inner) :]
                return [*self.split(before), inner, *self.split(after)] if before or after else [word]
        return [word] if word else []


def _synonym_term(typed: str, groups: Sequence[SynonymGroup]) -> Term:
    alternatives: dict[tuple[str, ...], Alternative] = {}

    def add(grams: tuple[str, ...], weight: float, words: str) -> None:
        if grams and (grams not in alternatives or alternatives[grams].weight < weight):
            alternatives[grams] = Alternative(grams, weight, words)

    add(_phrase_grams(typed), 1.0, typed)
    for group in groups:
        for phrase in group.same:
            add(_phrase_grams(phrase), SYNONYM_WEIGHT, " ".join(query_terms(phrase)))
        for phrase in group.narrower:
            add(_phrase_grams(phrase), NARROWER_WEIGHT, " ".join(query_terms(phrase)))
        add((group.gram,), SYNONYM_WEIGHT, "")
    return Term(typed, tuple(alternatives.values()))


def _plain_term(word: str) -> Term | None:
    if _LONG_SHA.fullmatch(word):
        word = word[:12]
    grams = tuple(term_grams(word))
    pull_request = _PULL_REQUEST.fullmatch(word)
    if pull_request:
        number = str(int(pull_request.group(1)))
        exact = Alternative((PULL_REQUEST_GRAM + number,), 1.0, word)
        return Term(word, (exact, Alternative(grams, NUMBER_WEIGHT, number)))
    return Term(word, (Alternative(grams, 1.0, word),)) if grams else None


def parse_query(query: str, groups: Sequence[SynonymGroup] = ()) -> list[Term]:
    """The terms of a query; a term with no grams (punctuation only) is left out."""
    phrases = _Phrases(groups)
    words: list[str] = []
    for term in query_terms(query):
        words.extend(phrases.split(term))
    terms: list[Term] = []
    position = 0
    while position < len(words):
        for length in range(min(phrases.longest, len(words) - position), 0, -1):
            key = tuple(words[position : position + length])
            if key in phrases.known:
                typed = " ".join(key)
                same = phrases.same.get(key)
                term = (
                    _synonym_term(typed, same)
                    if same
                    else Term(typed, (Alternative(_phrase_grams(typed), 1.0, typed),))
                )
                position += length
                break
        else:
            term = _plain_term(words[position])
            position += 1
        if term is not None:
            terms.append(term)
    return terms
