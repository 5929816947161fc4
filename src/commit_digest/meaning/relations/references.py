"""Pull request and issue references in a commit's title and message: ``#N``, ``owner/repo#N``
and GitHub issue and pull request URLs, each read as a fix ("Fixes #N"), a follow-up
("follow-up to #N") or, in a title only, a mention. A message's PR-template boilerplate is no
reference; it is stripped only when a reference may sit in it, as stripping costs far more
than reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from commit_digest.meaning.pr_template import strip_template
from commit_digest.meaning.relations.relation import RelationKind

SCAN_LIMIT = 20_000  # characters of a message read for references: they sit at the top

_HASH = re.compile(r"#(\d{1,7})(?!\w)")
_OWNER_REPO_BEFORE = re.compile(r"(?<![\w./-])([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)$")
_URL_AT = re.compile(r"github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/(?:issues|pull)/(\d{1,7})(?!\w)")
_URL_PREFIX = re.compile(r"(?:https?://)?(?:www\.)?$")
_OPEN = r"\s*[\[(<]?\s*"
_FIX_BEFORE = re.compile(
    r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s*(?:(?:issue|bug|pr)\s*)?" + _OPEN + "$", re.I
)
_FOLLOW_BEFORE = re.compile(
    r"\bfollow(?:s|ing)?[- ]?ups?(?:\s+(?:pr|to|of|for|on|from))*\s*:?\s*(?:(?:pr|to|of|for|on)\s*)*" + _OPEN + "$",
    re.I,
)
_LIST_SEPARATOR = re.compile(r"\s*(?:,|&|\band\b)\s*(?:and\s*)?[\[(<]?\s*", re.I)
_LOOKBACK = 80


@dataclass(frozen=True)
class Reference:
    kind: RelationKind  # FIXES, FOLLOWS_UP or MENTIONS
    repository: str | None  # None: the referring commit's own
    number: int
    start: int  # where it is written


def _hits(text: str) -> list[tuple[int, int, str | None, int]]:
    """(start, end, repository or None, number) of each ``#N``, ``owner/repo#N`` and GitHub issue
    or pull request URL, in text order."""
    found: list[tuple[int, int, str | None, int]] = []
    for match in _HASH.finditer(text):
        start = match.start()
        before = text[max(0, start - _LOOKBACK) : start]
        owner_repo = _OWNER_REPO_BEFORE.search(before)
        if owner_repo is not None:
            found.append((start - len(owner_repo.group(1)), match.end(), owner_repo.group(1), int(match.group(1))))
        elif not before or not (before[-1].isalnum() or before[-1] in "_&#/") or before[-2:].lower() == "pr":
            # Not "abc#1", an HTML entity ("&#39;") or part of a path; "PR#12" is a reference.
            found.append((start, match.end(), None, int(match.group(1))))
    if "github.com/" in text:
        position = text.find("github.com/")
        while position >= 0:
            url = _URL_AT.match(text, position)
            if url is not None:
                prefix = _URL_PREFIX.search(text, max(0, position - 12), position)
                start = prefix.start() if prefix else position
                found.append((start, url.end(), url.group(1), int(url.group(2))))
            position = text.find("github.com/", position + 1)
        found.sort()
    return found


def text_references(text: str, *, title: bool) -> list[Reference]:
    """The references in ``text``: fixes and follow-ups anywhere, any other one in a title."""
    found: list[Reference] = []
    previous_end, previous_kind = -1, None
    for start, end, repository, number in _hits(text):
        if start < previous_end:  # overlaps the reference before it
            continue
        before = text[max(0, start - _LOOKBACK) : start]
        if previous_kind is not None and _LIST_SEPARATOR.fullmatch(text, previous_end, start):
            kind = previous_kind  # "Fixes #1, #2 and #3"
        elif _FIX_BEFORE.search(before):
            kind = RelationKind.FIXES
        elif _FOLLOW_BEFORE.search(before):
            kind = RelationKind.FOLLOWS_UP
        else:
            kind = RelationKind.MENTIONS
        previous_end, previous_kind = end, (kind if kind is not RelationKind.MENTIONS else None)
        if title or kind is not RelationKind.MENTIONS:
            found.append(Reference(kind, repository, number, start))
    return found


# A line ``strip_template`` may drop or cut: a heading, a checklist item, a trailer, template text.
_TEMPLATE_LINE = re.compile(r"\s*(?:#|(?:[-*+]|\d+[.)])\s+\[|(?:signed-off-by|co-authored-by)\s*:)", re.I)
_TEMPLATE_WORDS = ("link existing issues", "before submitting", "fill in the pr description", "anything written below")


def message_references(text: str) -> list[Reference]:
    """References in a message, read without its PR-template boilerplate (whose "FIX #xxxx",
    comments and checklists are no reference). Stripping costs far more than reading, so the
    template is stripped only when a reference found in the raw text may sit in boilerplate."""
    text = text[:SCAN_LIMIT]
    if "#" not in text and "github.com/" not in text:
        return []
    found = text_references(text, title=False)
    if not found:
        return found
    lowered = text.lower()
    if any(_maybe_template(text, lowered, reference.start) for reference in found):
        return text_references(strip_template(text), title=False)
    return found


def _maybe_template(text: str, lowered: str, position: int) -> bool:
    """Whether ``strip_template`` might drop the text at ``position``: it is in an unclosed
    HTML comment or ``<details>`` block, or on a line it may drop (see ``_TEMPLATE_LINE``)."""
    if text.rfind("<!--", 0, position) > text.rfind("-->", 0, position):
        return True
    if lowered.rfind("<details", 0, position) > lowered.rfind("</details", 0, position):
        return True
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    line = lowered[line_start : len(text) if line_end < 0 else line_end]
    return _TEMPLATE_LINE.match(line) is not None or any(words in line for words in _TEMPLATE_WORDS)
