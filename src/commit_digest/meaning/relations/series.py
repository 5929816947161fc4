"""Numbered series of commits: "[2/3] Add the kernel", "Refactor the scheduler (part 2)", "[Part 1] …".

A series is recognised from titles alone: its parts share the title once the part marker, the
pull request number and case are taken away. Pure; the week pages fold a series into one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# [2/3], (2/3), 2/3 at the start, "part 2 of 3" anywhere; [Part 2], (part 2), "Part 2:" anywhere.
# "[3/n]": a series whose length its author did not know yet (total None).
_OF = re.compile(r"[\[(]\s*(\d{1,2})\s*/\s*(\d{1,2}|[nN])\s*[\])]|^\s*(\d{1,2})\s*/\s*(\d{1,2}|[nN])\b[:.\s]")
_PART_OF = re.compile(r"\bpart\s+(\d{1,2})\s+of\s+(\d{1,2})\b", re.I)
_PART = re.compile(r"[\[(]\s*part\s*(\d{1,2})\s*[\])]|\bpart\s*(\d{1,2})\s*:", re.I)
_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
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
    text = _PR_SUFFIX.sub("", title)
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
