"""Numbered series of commits: "[2/3] Add the kernel", "Refactor the scheduler (part 2)", "[Part 1] …".

A series is recognised from titles alone: its parts share the title once the part marker, the
pull request number and case are taken away. ``series_part`` reads one title (the week pages
fold a series into one line with it); ``store_series`` groups the store's parts into
``Series``, each with a slug for its page. Pure.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from commit_digest.meaning.relations.relation import PR_SUFFIX, CommitHeader, CommitKey
from commit_digest.meaning.relations.reverts import REVERT_TITLE

SLUG_LIMIT = 60

# [2/3], (2/3), 2/3 at the start, "part 2 of 3" anywhere; [Part 2], (part 2), "Part 2:" anywhere.
# "[3/n]": a series whose length its author did not know yet (total None).
_OF = re.compile(r"[\[(]\s*(\d{1,2})\s*/\s*(\d{1,2}|[nN])\s*[\])]|^\s*(\d{1,2})\s*/\s*(\d{1,2}|[nN])\b[:.\s]")
_PART_OF = re.compile(r"\bpart\s+(\d{1,2})\s+of\s+(\d{1,2})\b", re.I)
_PART = re.compile(r"[\[(]\s*part\s*(\d{1,2})\s*[\])]|\bpart\s*(\d{1,2})\s*:", re.I)
_TAGS = re.compile(r"(?:\s*\[[^\]]{1,40}\])*")
_TAG = re.compile(r"\[([^\]]+)\]")
_NOISE = re.compile(r"[\s\-_:;,.()\[\]]+")


@dataclass(frozen=True)
class SeriesPart:
    key: str  # the same for every part of one series
    part: int
    total: int | None  # None when the titles do not say ("[Part 2]")
    name: str  # the title without its part marker and pull request number
    tags: str  # its leading bracket tags, folded ("[kernel][moe]"): parts often differ after them
    numbered: bool = False  # "k/N" or "k/n" (not "[Part k]"): the author numbered the parts


@lru_cache(maxsize=32768)  # a week page asks for each title once per label it carries
def series_part(title: str) -> SeriesPart | None:
    """The series a commit title belongs to, or None. Only a part number from 1 to the total
    counts ("[3/2]" and "[0/3]" are not series markers; "1/2 of the budget" needs its brackets)."""
    text = PR_SUFFIX.sub("", title)
    found = _OF.search(text)
    if found is not None:
        total_text = found.group(2) or found.group(4)
        total = None if total_text in ("n", "N") else int(total_text)
        return _part(text, found, int(found.group(1) or found.group(3)), total, numbered=True)
    found = _PART_OF.search(text)
    if found is not None:
        return _part(text, found, int(found.group(1)), int(found.group(2)), numbered=True)
    found = _PART.search(text)
    if found is not None:
        return _part(text, found, int(found.group(1) or found.group(2)), None)
    return None


def _part(
    text: str, found: re.Match[str], part: int, total: int | None, *, numbered: bool = False
) -> SeriesPart | None:
    if part < 1 or (total is not None and (total < 2 or part > total)):
        return None
    name = (text[: found.start()] + " " + text[found.end() :]).strip(" -:,")
    name = re.sub(r"\s{2,}", " ", name)
    key = _NOISE.sub(" ", name.casefold()).strip()
    if not key:
        return None
    prefix = _TAGS.match(name)
    tags = "".join(f"[{tag.strip().casefold()}]" for tag in _TAG.findall(prefix.group(0) if prefix else ""))
    return SeriesPart(key=key, part=part, total=total, name=name, tags=tags, numbered=numbered)


@dataclass(frozen=True)
class Series:
    slug: str  # URL-safe, unique in the store
    repository: str
    key: str  # series_part's key
    name: str  # the title of its first part without the part marker and pull request number
    total: int | None  # the largest total a part states; None when none does ("[Part 2]")
    numbered: bool  # some part says "k/N" or "part k of N"
    parts: tuple[tuple[int, CommitKey], ...]  # (part number, commit), by part number then landing time

    @property
    def landed(self) -> int:
        """How many distinct parts landed."""
        return len({part for part, _ in self.parts})

    @property
    def missing(self) -> tuple[int, ...]:
        """The parts 1..total not landed; () when the total is not known."""
        if self.total is None:
            return ()
        landed = {part for part, _ in self.parts}
        return tuple(part for part in range(1, self.total + 1) if part not in landed)


def store_series(commits: dict[CommitKey, CommitHeader]) -> tuple[Series, ...]:
    """The series of the store's ``commits``: parts of one (repository, key) of which two landed
    or one says the series has two parts or more, newest (by its last part's landing) first."""
    grouped: dict[tuple[str, str], list[tuple[int, datetime, CommitKey, int | None, bool, str]]] = defaultdict(list)
    for key, commit in commits.items():
        if REVERT_TITLE.match(commit.title):  # 'Revert "[2/3] …"' is no part of a series
            continue
        part = series_part(commit.title)
        if part is not None:
            grouped[(commit.repository, part.key)].append(
                (part.part, commit.committed_at, key, part.total, part.numbered, part.name)
            )
    kept = []
    for (repository, key), parts in grouped.items():
        parts.sort(key=lambda entry: (entry[0], entry[1], entry[2]))
        totals = [entry[3] for entry in parts if entry[3] is not None]
        total = max(totals) if totals else None
        landed = len({entry[0] for entry in parts})
        if landed >= 2 or (total is not None and total >= 2):
            kept.append((repository, key, total, parts))
    slugs = _slugs([(repository, key) for repository, key, _, _ in kept])
    series = [
        (
            max(entry[1] for entry in parts),
            Series(
                slug=slugs[(repository, key)],
                repository=repository,
                key=key,
                name=parts[0][5],
                total=total,
                numbered=any(entry[4] for entry in parts),
                parts=tuple((entry[0], entry[2]) for entry in parts),
            ),
        )
        for repository, key, total, parts in kept
    ]
    series.sort(key=lambda item: (-item[0].timestamp(), item[1].slug))
    return tuple(found for _, found in series)


def _slugs(series: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """A URL-safe slug per (repository, key): the repository's name and the key, ascii,
    lower-case, hyphenated, at most ``SLUG_LIMIT`` long. A short hash of (repository, key) is
    added when the text had to be folded or cut, or another series has the same slug; the slug
    therefore depends on the series alone unless two collide."""
    plain: dict[tuple[str, str], tuple[str, bool]] = {}
    for repository, key in series:
        text = f"{repository.rsplit('/', 1)[-1]} {key}"
        folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        base = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
        plain[(repository, key)] = (base, text.isascii() and 0 < len(base) <= SLUG_LIMIT)
    counts: dict[str, int] = defaultdict(int)
    for base, _ in plain.values():
        counts[base] += 1
    slugs: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    for item in sorted(plain):
        base, faithful = plain[item]
        slug = base if faithful and counts[base] == 1 else ""
        digest = hashlib.blake2b(f"{item[0]}\n{item[1]}".encode(), digest_size=16).hexdigest()
        width = 8
        while not slug or slug in taken:
            head = base[: SLUG_LIMIT - width - 1].rstrip("-") or "series"
            slug = f"{head}-{digest[:width]}"
            width += 4
        taken.add(slug)
        slugs[item] = slug
    return slugs
