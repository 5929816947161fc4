"""How a label rule's words are found in a commit's title and message, and found fast.

Classifying runs every rule of the taxonomy over every commit of the archive at each build, so
a rule's words are compiled into one alternation per case rule (``Words``), and a text is read
once into its runs of ASCII word characters (``Text``): a rule whose words' leading runs
(anchors) are not among a text's runs never scans it. The results are those of scanning with
the regex everywhere, in the same order; this module only makes them cheap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

# The word characters of a word rule's boundaries, as written there (without IGNORECASE).
_ASCII_WORD = re.compile(r"[A-Za-z0-9_]+")
# The four letters besides ASCII's that IGNORECASE makes equal to an ASCII letter (İ ı → i, ſ → s,
# Kelvin K → k; see the re docs): a text holding one is scanned by every rule, unfiltered.
_ASCII_CASE_TWINS = re.compile("[\u0130\u0131\u017f\u212a]")


class _Runs:
    """A text's maximal runs of ASCII word characters (as written, or lowercased): which there
    are, and, for the few rules that have one of them as an anchor, where each starts."""

    def __init__(self, text: str, runs: list[str]) -> None:
        self.text = text
        self.runs = runs
        self.distinct = frozenset(runs)

    @cached_property
    def starts(self) -> dict[str, list[int]]:
        """Where each distinct run starts in the text, in order."""
        found: dict[str, list[int]] = {}
        for match, run in zip(_ASCII_WORD.finditer(self.text), self.runs, strict=True):
            found.setdefault(run, []).append(match.start())
        return found


@dataclass(frozen=True)
class Text:
    """A title or message as the word rules read it: the text, and its ASCII word runs, which
    tell where a word rule's match can start (most rules: nowhere)."""

    field: str
    text: str
    runs: _Runs  # as written
    folded: _Runs | None  # lowercased; None when IGNORECASE could see other runs (a case twin)


def commit_keys(tags: Sequence[str], texts: Sequence[Text]) -> frozenset[str] | None:
    """A commit's tags and ASCII word runs (as written and lowercased) in one set, for
    ``LabelRule.may_concern``; None when a text's runs may not be all IGNORECASE sees."""
    keys = set(tags)
    for text in texts:
        if text.folded is None:
            return None
        keys.update(text.runs.distinct, text.folded.distinct)
    return frozenset(keys)


def read_text(field: str, text: str) -> Text:
    """``text`` (the commit's ``field``, "title" or "message") with its runs, read once for all rules."""
    runs = _ASCII_WORD.findall(text)
    folded = None if _ASCII_CASE_TWINS.search(text) else _Runs(text, [run.lower() for run in runs])
    return Text(field=field, text=text, runs=_Runs(text, runs), folded=folded)


@dataclass(frozen=True)
class Words:
    """The words of a rule under one case rule: the regex that finds them, tried only where a
    match can start, so most rules never scan most texts (Python's re tries a lookbehind-led
    alternation at every position of a text).

    Where a match can start follows from the regex's boundaries: a match of a word that starts
    with an ASCII word character starts a maximal run of the text's ASCII word characters, and
    the word's leading run (its anchor) is that whole run. Other words (CJK, "/v1/...") are
    looked for anywhere, with the regex's flags, by ``loose``: where one begins is a start too."""

    pattern: re.Pattern[str]
    canonical: dict[str, str]  # matched text (lowercased when ignore_case) -> the word as listed
    ignore_case: bool
    anchors: frozenset[str]  # the leading runs, lowercased when ignore_case
    loose: re.Pattern[str] | None
    anywhere: bool  # an empty word: its (empty) matches may start anywhere, so the regex scans

    def matches(self, text: Text) -> list[re.Match[str]]:
        """The matches ``pattern.finditer`` gives, the same ones in the same order."""
        runs = text.folded if self.ignore_case else text.runs
        if runs is None or self.anywhere:
            return list(self.pattern.finditer(text.text))
        starts = [start for run in self.anchors.intersection(runs.distinct) for start in runs.starts[run]]
        if self.loose is not None:
            starts.extend(_starts(self.loose, text.text))
        if not starts:
            return []
        # finditer's scan, done at the only places a match can start: the leftmost match at or
        # after the end of the previous one (no match is empty here).
        found: list[re.Match[str]] = []
        end = 0
        for start in sorted(set(starts)):
            if start >= end:
                match = self.pattern.match(text.text, start)  # its lookbehind sees text[start - 1]
                if match is not None:
                    found.append(match)
                    end = match.end()
        return found

    def canonical_of(self, matched: str) -> str:
        return self.canonical.get(matched, self.canonical.get(matched.lower(), matched))


def _starts(pattern: re.Pattern[str], text: str) -> list[int]:
    """Every position where ``pattern`` (no empty match) matches, overlapping matches too: a
    search from the character after each (loose words are rare in a text)."""
    starts: list[int] = []
    found = pattern.search(text)
    while found is not None:
        starts.append(found.start())
        found = pattern.search(text, found.start() + 1)
    return starts


def compile_words(words: Sequence[str], *, ignore_case: bool) -> Words:
    """A rule's ``words`` under one case rule, with the anchors that say where a match can start."""
    anchors: set[str] = set()
    loose: list[str] = []
    for word in words:
        run = _ASCII_WORD.match(word)
        # A word with a case twin in it could end its leading run where a text's run goes on.
        if run is None or _ASCII_CASE_TWINS.search(word):
            loose.append(word)
        else:
            anchors.add(run.group().lower() if ignore_case else run.group())
    flags = re.IGNORECASE if ignore_case else 0
    return Words(
        pattern=_words_pattern(words, ignore_case=ignore_case),
        canonical={(word.lower() if ignore_case else word): word for word in words},
        ignore_case=ignore_case,
        anchors=frozenset(anchors),
        loose=re.compile("|".join(map(re.escape, loose)), flags) if loose else None,
        anywhere="" in words,
    )


def _words_pattern(words: Sequence[str], *, ignore_case: bool) -> re.Pattern[str]:
    # Word boundaries that also hold next to CJK text and inside identifiers with dots; the
    # longest words first, so "CUDA graph" is found as itself rather than as "CUDA".
    flags = re.IGNORECASE if ignore_case else 0
    alternatives = "|".join(re.escape(word) for word in sorted(set(words), key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])", flags)
