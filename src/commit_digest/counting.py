"""A count and its noun in English: "1 commit", "3 commits".

Apart from ``words`` (which fills the words files' ``{count:one|other}`` with the same rule) so
that the stop handling, installed before any other import, can say its counts without the YAML
reader ``words`` needs.
"""

from __future__ import annotations


def is_one(count: object) -> bool:
    """Whether ``count`` takes a noun's form for one: English's rule, 1 alone (0 files, 1 file,
    2 files). A count arrives as a number or as its escaped text, so it is read as written."""
    return str(count).strip() == "1"


def counted(count: int, one: str, other: str) -> str:
    """``count`` and its noun: "1 commit", "3 commits" (the CLI's lines are English)."""
    return f"{count} {one if is_one(count) else other}"
