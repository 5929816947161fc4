"""Text to search grams: one definition, mirrored by ``assets/digest-search-query.js`` (tests hold the two equal).

Recall by construction: a query term that occurs in a document's text as a substring (after
normalisation) yields only grams the document also holds, so AND over the term's grams finds it.

- Text is normalised with NFKC and lowercased, then split into runs: *word* runs of ``[a-z0-9_]``
  (``_`` joins, so "fused_moe" is inside "fused_moe_kernel") and *CJK* runs (Han, kana, Hangul);
  everything else separates runs. Where a word run and a CJK run touch ("fp8量化"), the two
  characters at the junction ("8量") are a gram too, so a mixed term is not just both halves.
- A document holds, for each word run: its trigrams, its first one and two characters as prefix
  grams ("^f", "^fu"), its last one and two as suffix grams ("l$", "el$"), and the whole run as
  "^ab$" when it is shorter than three characters; for each CJK run: every character and every
  character bigram.
- A query is split into terms at whitespace. In a term, a word run of three or more characters
  needs the trigrams that cover it (``covering_starts``); a shorter one needs the whole word
  "^ab$" when the term delimits it on both sides, the suffix gram when it touches only the
  term's start (in the document it may end a longer run: "v1引擎" in "enginev1引擎"), the prefix
  gram when it touches only the term's end. A term that is nothing but a one- or two-character
  word ("tp") is taken as that whole word: a substring that short is in most commits. A CJK run
  needs its characters (one) or its bigrams (two or more).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

WORD = "w"
CJK = "c"

# Inclusive code point ranges of the scripts written without spaces between words.
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3400, 0x4DBF),  # CJK Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0x20000, 0x3134F),  # CJK Extensions B-G
)
# Whitespace that separates query terms (after NFKC most of these are already a plain space).
SPACES = frozenset(
    [
        0x09,
        0x0A,
        0x0B,
        0x0C,
        0x0D,
        0x20,
        0x85,
        0xA0,
        0x1680,
        0x2028,
        0x2029,
        0x202F,
        0x205F,
        0x3000,
        *range(0x2000, 0x200B),
    ]
)


@dataclass(frozen=True)
class Run:
    kind: str  # WORD or CJK
    text: str
    start: int  # code point offsets in the normalised text
    end: int


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def is_word(char: str) -> bool:
    code = ord(char)
    return 0x30 <= code <= 0x39 or 0x61 <= code <= 0x7A or code == 0x5F


def is_cjk(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in CJK_RANGES)


_CJK_CLASS = "".join(f"{chr(low)}-{chr(high)}" for low, high in CJK_RANGES)
_RUN = re.compile(f"([0-9a-z_]+)|([{_CJK_CLASS}]+)")
# A run, and the character right after it when that starts a run (of the other kind, as runs
# are maximal): "fp8量化" gives ("fp8", "量") and ("量化", ""). One scan finds the runs and
# the junctions between them.
_RUN_AND_NEXT = re.compile(f"([0-9a-z_]+|[{_CJK_CLASS}]+)(?=([0-9a-z_{_CJK_CLASS}]?))")

# A run and the first character of a run touching its end, or "" (see ``run_keys``).
RunKey = tuple[str, str]
# The grams of each run key met so far (see ``grams_of``).
RunGrams = dict[RunKey, tuple[str, ...]]


def runs(normalised: str) -> Iterator[Run]:
    for found in _RUN.finditer(normalised):
        yield Run(WORD if found.group(1) else CJK, found.group(), found.start(), found.end())


def run_grams(run: str) -> tuple[str, ...]:
    """The grams of one run: a word run's trigrams, prefix and suffix grams (and the whole run
    when it is short), a CJK run's characters and bigrams."""
    if is_word(run[0]):
        grams = {run[i : i + 3] for i in range(len(run) - 2)}
        grams.update(("^" + run[:1], "^" + run[:2], run[-1:] + "$", run[-2:] + "$"))
        if len(run) < 3:
            grams.add("^" + run + "$")
    else:
        grams = set(run)
        grams.update([run[i : i + 2] for i in range(len(run) - 1)])
    return tuple(grams)


def run_keys(text: str) -> set[RunKey]:
    """The distinct runs of a text (normalised here), each with the first character of the run
    that touches its end, if one does: a text repeats its words, and its grams are theirs."""
    return set(_RUN_AND_NEXT.findall(normalise(text)))


def key_grams(key: RunKey) -> tuple[str, ...]:
    """The grams of a run, and the junction gram where another run touches it ("fp8量化": "8量").

    Interned: the runs of a partition share their grams with each other and with its posting
    lists, one string each."""
    run, after = key
    grams = (*run_grams(run), run[-1] + after) if after else run_grams(run)
    return tuple(map(sys.intern, grams))


def grams_of(keys: set[RunKey], known: RunGrams) -> set[str]:
    """The grams of these run keys; ``known`` holds the grams of the keys met so far and learns
    the new ones, so a partition cuts each distinct run into grams once."""
    for key in keys.difference(known):
        known[key] = key_grams(key)
    grams: set[str] = set()
    grams.update(*map(known.__getitem__, keys))
    return grams


def document_grams(text: str, known: RunGrams | None = None) -> set[str]:
    """Every gram of a document's text (``known``: as for ``grams_of``; the documents of a
    partition share most of their words, so its builder passes one for all of them)."""
    return grams_of(run_keys(text), {} if known is None else known)


def query_terms(query: str) -> list[str]:
    """The whitespace-separated terms of a query, normalised."""
    terms: list[str] = []
    current: list[str] = []
    for char in normalise(query):
        if ord(char) in SPACES:
            if current:
                terms.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        terms.append("".join(current))
    return terms


def term_grams(term: str) -> list[str]:
    """The grams a document must hold to contain the (normalised) term; sorted, no repeats."""
    grams: set[str] = set()
    length = len(term)
    # No junction gram: an unspaced mixed term ("fp8量化") finds what its spaced form finds, as
    # readers expect; documents keep their junction grams for telling the two apart in ranking.
    for run in runs(term):
        word = run.text
        if run.kind == CJK:
            if len(word) == 1:
                grams.add(word)
            else:
                grams.update(word[i : i + 2] for i in range(len(word) - 1))
        elif len(word) >= 3:
            grams.update(word[i : i + 3] for i in covering_starts(len(word)))
        else:
            at_start, at_end = run.start == 0, run.end == length
            if at_start and not at_end:
                grams.add(word + "$")
            elif at_end and not at_start:
                grams.add("^" + word)
            else:
                grams.add("^" + word + "$")
    return sorted(grams)


def covering_starts(length: int) -> list[int]:
    """Where the trigrams that cover a word of ``length`` (three or more) start: every third,
    and the last. A document holding the word holds them; few others hold all of them; and a
    query downloads a third of the shards it would for every trigram."""
    starts = list(range(0, length - 2, 3))
    if starts[-1] != length - 3:
        starts.append(length - 3)
    return starts


def query_grams(query: str) -> list[str]:
    """Every gram of every term: a document matches when it holds them all."""
    grams: set[str] = set()
    for term in query_terms(query):
        grams.update(term_grams(term))
    return sorted(grams)


def fnv1a(text: str) -> int:
    """FNV-1a 32-bit of the UTF-8 bytes: the shard a gram lives in, the same in the browser."""
    value = 0x811C9DC5
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value
