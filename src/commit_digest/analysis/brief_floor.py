"""The floor a day's brief must clear before it is stored, on top of the prose floor: pure functions.

A brief speaks for the day's commits, so it may rest only on them: every citation names a commit
the request listed (that day, that platform), and no text names a commit id, pull request or
title that is not in the day. A model that cites yesterday's commit, or invents a PR number,
wrote something the page would show as fact: such a reply is refused like one that breaks the
schema. A citation may shorten an id to seven characters when that still names one commit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from commit_digest.analysis.quality_floor import language_problem, looped_sentence, reads_as_prose
from commit_digest.models import LanguageCode

MIN_CITED_PREFIX = 7
# A run of hex digits this long in a sentence is read as a commit id (shorter ones are numbers).
_HEX_RUN = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{7,40}(?![0-9A-Za-z])")
_PR_NUMBER = re.compile(r"(?:#|\bPR\s*#?|\bpull/|\bpull request\s*#?)(\d{2,7})\b", re.IGNORECASE)
# A quoted span as long as a commit title: a model quoting a title quotes one of the day's.
_QUOTED = re.compile(r"[\"“「『`]([^\"”」』`]{24,200})[\"”」』`]")


@dataclass(frozen=True)
class DayCommit:
    """A commit of the day as the floor knows it: its id, pull request and title."""

    sha: str  # the short sha (12)
    pr_number: int | None
    title: str


def fewest_sentences(cited_commits: int) -> int:
    """Three sentences, unless there are fewer commits to say them about (one commit: one sentence)."""
    return max(1, min(3, cited_commits))


def resolve_citation(cited: str, listed: Sequence[str]) -> str | None:
    """The listed short sha ``cited`` names (whole, or a prefix of seven or more naming one), or None."""
    wanted = cited.strip().lower()
    if len(wanted) < MIN_CITED_PREFIX or not all(char in "0123456789abcdef" for char in wanted):
        return None
    found = [sha for sha in listed if sha.startswith(wanted[:12]) or wanted.startswith(sha)]
    return found[0] if len(found) == 1 else None


def named_outside_the_day(text: str, day: Sequence[DayCommit]) -> str | None:
    """What ``text`` names that is not in the day (a commit id, a PR, a quoted title), or None."""
    for run in _HEX_RUN.findall(text):
        if any(char in "abcdefABCDEF" for char in run) and not any(
            commit.sha.startswith(run.lower()[:12]) or run.lower().startswith(commit.sha) for commit in day
        ):
            return f"names commit {run}, not one of the day's"
    numbers = {commit.pr_number for commit in day if commit.pr_number is not None}
    for number in _PR_NUMBER.findall(text):
        if int(number) not in numbers:
            return f"names pull request #{number}, not one of the day's"
    titles = [commit.title.casefold() for commit in day]
    for quoted in _QUOTED.findall(text):
        if not any(quoted.strip().casefold() in title for title in titles):
            return f"quotes {quoted[:40]!r}, no title of the day's"
    return None


def brief_problem(
    texts: Mapping[LanguageCode, Sequence[tuple[str, Sequence[str]]]],
    *,
    listed: Sequence[str],
    day: Sequence[DayCommit],
    where: str,
    most: int,
) -> str | None:
    """Why a brief (per language: its sentences, each a text and the ids it cites) is below the
    floor, or None. ``listed``: the short shas the request listed; ``day``: every commit of the
    day; ``where``: the day and platform, for the reason."""
    fewest = fewest_sentences(len(listed))
    for code, sentences in texts.items():
        if not fewest <= len(sentences) <= most:
            return f"{code}: {len(sentences)} sentences, not {fewest} to {most}"
        for number, (text, cited) in enumerate(sentences, start=1):
            if not cited:
                return f"{code}: sentence {number} cites no commit"
            stray = [sha for sha in cited if resolve_citation(sha, listed) is None]
            if stray:
                return f"{code}: sentence {number} cites {stray[0]!r}, not a commit of {where}"
            named = named_outside_the_day(text, day)
            if named is not None:
                return f"{code}: sentence {number} {named}"
        whole = " ".join(text for text, _ in sentences)
        problem = language_problem(code, whole)
        if problem is not None:
            return f"not in its language: {problem}"
        if not reads_as_prose(whole, code) or looped_sentence(whole):
            return f"{code}: does not read as prose, or repeats one sentence"
    return None
