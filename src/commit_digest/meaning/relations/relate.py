"""How the store's commits relate: reverts, fixes, follow-ups, mentions and numbered series.

A commit page answers "is this commit still there?" (reverted, restored, fixed later, part of a
series) and links the related commits, across days and across the store's repositories. Pure:
``relate`` reads commits and returns a ``Relations``; nothing here touches the store or the site.

Rules, in short:

- A commit reverts another when its message says ``This reverts commit <sha>.`` (a 7–40 hex
  prefix, resolved in its own repository first, then in any; an ambiguous prefix resolves to
  nothing), else when its title is ``Revert "<title>"``: the newest commit of its repository that
  landed before it with that title, else the one whose pull request the quoted title names, else
  GitHub's "Reverts owner/repo#N" line. A revert of a revert restores the original.
- ``Fixes #N`` (and fix/close/resolve in any form), "follow-up to #N" and, in a title only, any
  other ``#N`` refer to pull request N; ``owner/repo#N`` and GitHub issue and pull request URLs
  too. A reference resolves to the stored commit of that pull request; otherwise it stays a
  (repository, number) the page can link to GitHub. The title of a revert is quoted text and is
  not read for references.
- A numbered series is one per (repository, ``series_part`` key).

``relate`` runs at every site build over the whole store, so it is linear in the text it reads:
a message is read up to ``SCAN_LIMIT`` characters, and templates are stripped only from messages
that hold a reference at all.
"""

from __future__ import annotations

import bisect
import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol
from urllib.parse import quote

from commit_digest.meaning.pr_template import strip_template
from commit_digest.meaning.series import series_part
from commit_digest.models import Commit, pr_number_in_title

CommitKey = tuple[str, str]  # (repository, sha)

SCAN_LIMIT = 20_000  # characters of a message read for references: they sit at the top
SLUG_LIMIT = 60


class RelationKind(StrEnum):
    REVERTS = "reverts"
    REVERTED_BY = "reverted-by"
    FIXES = "fixes"
    FIXED_BY = "fixed-by"
    FOLLOWS_UP = "follows-up"
    FOLLOWED_UP_BY = "followed-up-by"
    MENTIONS = "mentions"
    MENTIONED_BY = "mentioned-by"


_INVERSE = {
    RelationKind.REVERTS: RelationKind.REVERTED_BY,
    RelationKind.FIXES: RelationKind.FIXED_BY,
    RelationKind.FOLLOWS_UP: RelationKind.FOLLOWED_UP_BY,
    RelationKind.MENTIONS: RelationKind.MENTIONED_BY,
}
_ORDER = {kind: rank for rank, kind in enumerate(RelationKind)}
# One relation per referred-to commit or reference: the strongest of what the text says.
_STRENGTH = {RelationKind.FIXES: 0, RelationKind.FOLLOWS_UP: 1, RelationKind.MENTIONS: 2}


@dataclass(frozen=True)
class Relation:
    kind: RelationKind
    other: CommitKey | None  # None: an unresolved reference
    # (repository, number): as written when unresolved; when resolved, the other commit's pull
    # request if it has one (so a page can show "#123" without looking it up).
    reference: tuple[str, int] | None = None
    at: datetime | None = None  # the other commit's committed_at when resolved

    @property
    def url(self) -> str | None:
        """GitHub's page of the reference (an issue URL redirects to the pull request)."""
        if self.reference is None:
            return None
        repository, number = self.reference
        # Quoted: a repository read by a \w pattern ("Reverts owner/repo#N") may hold any letter.
        return f"https://github.com/{quote(repository, safe='/')}/issues/{int(number)}"


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


class Relations:
    """What ``relate`` found; ask it about one commit or list the series."""

    def __init__(
        self,
        relations: dict[CommitKey, tuple[Relation, ...]],
        series: tuple[Series, ...],
        reverted: frozenset[CommitKey],
    ) -> None:
        self._relations = relations
        self._series = series
        self._series_of = {key: found for found in series for _, key in found.parts}
        self._reverted = reverted

    def of(self, key: CommitKey) -> tuple[Relation, ...]:
        """The commit's relations: reverts and reverted-by first, then fixes, follow-ups and
        mentions (each kind before its inverse), each kind oldest first, unresolved last."""
        return self._relations.get(key, ())

    def series_of(self, key: CommitKey) -> Series | None:
        return self._series_of.get(key)

    def reverted(self, key: CommitKey) -> bool:
        """Whether a revert of the commit stands: it was reverted and not restored since (by a
        revert of that revert)."""
        return key in self._reverted

    def revert_chain(self, key: CommitKey) -> tuple[Relation, ...]:
        """The revert of the commit, the revert of that revert, and so on (each the newest, as a
        reverted-by relation): "reverted by B on …, restored by C on …"."""
        chain: list[Relation] = []
        seen = {key}
        while True:
            reverts = [found for found in self.of(key) if found.kind is RelationKind.REVERTED_BY]
            if not reverts or reverts[-1].other in seen or reverts[-1].other is None:
                return tuple(chain)
            chain.append(reverts[-1])
            key = reverts[-1].other
            seen.add(key)

    @property
    def series(self) -> tuple[Series, ...]:
        """Every series, newest (by its last part's landing) first."""
        return self._series


# --- reading the text -------------------------------------------------------------------------

_REVERT_TITLE = re.compile(r'^\s*revert\s*"(.*)"(?:\s*\(#\d+\))?\s*$', re.I)
_REVERTS_SHA = re.compile(r"\breverts commit ([0-9a-fA-F]{7,40})\b", re.I)
_REVERTS_PR = re.compile(r"^\s*Reverts\s+(?:([\w.-]+/[\w.-]+))?#(\d{1,7})\s*$", re.M)  # GitHub's revert PRs
_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
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
class _Reference:
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


def _references(text: str, *, title: bool) -> list[_Reference]:
    """The references in ``text``: fixes and follow-ups anywhere, any other one in a title."""
    found: list[_Reference] = []
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
            found.append(_Reference(kind, repository, number, start))
    return found


# A line ``strip_template`` may drop or cut: a heading, a checklist item, a trailer, template text.
_TEMPLATE_LINE = re.compile(r"\s*(?:#|(?:[-*+]|\d+[.)])\s+\[|(?:signed-off-by|co-authored-by)\s*:)", re.I)
_TEMPLATE_WORDS = ("link existing issues", "before submitting", "fill in the pr description", "anything written below")


def _message_references(text: str) -> list[_Reference]:
    """References in a message, read without its PR-template boilerplate (whose "FIX #xxxx",
    comments and checklists are no reference). Stripping costs far more than reading, so the
    template is stripped only when a reference found in the raw text may sit in boilerplate."""
    text = text[:SCAN_LIMIT]
    if "#" not in text and "github.com/" not in text:
        return []
    found = _references(text, title=False)
    if not found:
        return found
    lowered = text.lower()
    if any(_maybe_template(text, lowered, reference.start) for reference in found):
        return _references(strip_template(text), title=False)
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


# --- the store's indexes ----------------------------------------------------------------------


class CommitHeader(Protocol):
    """What relating commits needs of every commit at once (the message only one at a time)."""

    @property
    def repository(self) -> str: ...
    @property
    def sha(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def pr_number(self) -> int | None: ...
    @property
    def committed_at(self) -> datetime: ...


class _Index:
    def __init__(self, commits: dict[CommitKey, CommitHeader]) -> None:
        self.commits = commits
        self.repositories = {repository.lower(): repository for repository, _ in commits}
        self._shas = sorted((sha, repository) for repository, sha in commits)
        self._pulls: dict[tuple[str, int], CommitKey] = {}
        self._titles: dict[tuple[str, str], list[tuple[datetime, str]]] = defaultdict(list)
        self._bare_titles: dict[tuple[str, str], list[tuple[datetime, str]]] = defaultdict(list)
        for key, commit in sorted(commits.items(), key=lambda item: (item[1].committed_at, item[0])):
            if commit.pr_number is not None:
                self._pulls.setdefault((commit.repository, commit.pr_number), key)
            title = commit.title.strip()
            self._titles[(commit.repository, title)].append((commit.committed_at, commit.sha))
            self._bare_titles[(commit.repository, _PR_SUFFIX.sub("", title))].append((commit.committed_at, commit.sha))

    def repository(self, written: str | None, own: str) -> str:
        if written is None:
            return own
        return self.repositories.get(written.lower(), written)

    def pull(self, repository: str, number: int) -> CommitKey | None:
        return self._pulls.get((repository, number))

    def by_sha(self, prefix: str, repository: str) -> CommitKey | None:
        """The commit whose sha starts with ``prefix``: in ``repository`` if any there, else in
        any repository; None when none or several match."""
        prefix = prefix.lower()
        matches = []
        at = bisect.bisect_left(self._shas, (prefix,))
        while at < len(self._shas) and self._shas[at][0].startswith(prefix):
            matches.append(self._shas[at])
            at += 1
        own = [(repository, sha) for sha, found in matches if found == repository]
        if own:
            return own[0] if len(own) == 1 else None
        return (matches[0][1], matches[0][0]) if len(matches) == 1 else None

    def by_title(self, repository: str, title: str, before: CommitHeader) -> CommitKey | None:
        """The newest commit of ``repository`` titled ``title`` that landed before ``before``:
        the title as written, else without its pull request number."""
        for index, wanted in ((self._titles, title.strip()), (self._bare_titles, _PR_SUFFIX.sub("", title.strip()))):
            landed = index.get((repository, wanted), [])
            at = bisect.bisect_right(landed, before.committed_at, key=lambda entry: entry[0])
            for _, sha in reversed(landed[:at]):
                if sha != before.sha:
                    return (repository, sha)
        return None


# --- relating ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommitLinks:
    """What a commit's message says of other commits, before any is looked up: a pure function
    of the commit, so a build keeps it instead of the message."""

    revert_shas: tuple[str, ...] = ()  # "This reverts commit <sha>"
    revert_pulls: tuple[tuple[str | None, int], ...] = ()  # GitHub's "Reverts owner/repo#N"
    references: tuple[_Reference, ...] = ()  # in the title, the message and the PR description

    # As plain values, for a build to keep them between runs (site.summaries).
    Parts = tuple[
        tuple[str, ...], tuple[tuple[str | None, int], ...], tuple[tuple[RelationKind, str | None, int, int], ...]
    ]

    def parts(self) -> CommitLinks.Parts:
        references = tuple((found.kind, found.repository, found.number, found.start) for found in self.references)
        return self.revert_shas, self.revert_pulls, references

    @classmethod
    def of_parts(cls, parts: CommitLinks.Parts) -> CommitLinks:
        revert_shas, revert_pulls, references = parts
        if not (revert_shas or revert_pulls or references):
            return NO_LINKS
        return cls(revert_shas, revert_pulls, tuple(_Reference(*found) for found in references))


NO_LINKS = CommitLinks()


def commit_links(commit: Commit) -> CommitLinks:
    body = commit.body[:SCAN_LIMIT]
    revert_shas = tuple(match.group(1) for match in _REVERTS_SHA.finditer(body)) if "everts commit" in body else ()
    revert_pulls: tuple[tuple[str | None, int], ...] = ()
    if "Reverts" in body:
        revert_pulls = tuple((match.group(1), int(match.group(2))) for match in _REVERTS_PR.finditer(body))
    references: list[_Reference] = []
    if _REVERT_TITLE.match(commit.title) is None:  # a revert's title quotes another commit's
        references += _references(_PR_SUFFIX.sub("", commit.title), title=True)
    references += _message_references(commit.body)
    if commit.pull_request is not None:
        references += _message_references(commit.pull_request.description)
    if not (revert_shas or revert_pulls or references):
        return NO_LINKS
    return CommitLinks(revert_shas, revert_pulls, tuple(references))


def _reverted(
    commit: CommitHeader, links: CommitLinks, index: _Index
) -> list[tuple[CommitKey | None, tuple[str, int] | None]]:
    """What ``commit`` reverts: (commit, None) when found in the store, else (None, reference)."""
    own = (commit.repository, commit.sha)
    if links.revert_shas:
        found = [index.by_sha(sha, commit.repository) for sha in links.revert_shas]
        resolved = list(dict.fromkeys(key for key in found if key is not None and key != own))
        if resolved:
            return [(key, None) for key in resolved]
    reference: tuple[str, int] | None = None
    title = _REVERT_TITLE.match(commit.title)
    if title is not None:
        inner = title.group(1)
        key = index.by_title(commit.repository, inner, commit)
        number = pr_number_in_title(inner)
        if key is None and number is not None and number != commit.pr_number:
            key = index.pull(commit.repository, number)
            reference = (commit.repository, number)
        if key is not None and key != own:
            return [(key, None)]
    for written, number in links.revert_pulls:
        repository = index.repository(written, commit.repository)
        if (repository, number) == (commit.repository, commit.pr_number):
            continue
        key = index.pull(repository, number)
        if key is not None and key != own:
            return [(key, None)]
        reference = reference or (repository, number)
    return [(None, reference)] if reference is not None else []


def _forward(
    commit: CommitHeader, links: CommitLinks, index: _Index
) -> list[tuple[RelationKind, CommitKey | None, tuple[str, int] | None]]:
    """The commit's own relations: (kind, other commit or None, reference when unresolved)."""
    own = (commit.repository, commit.sha)
    found: list[tuple[RelationKind, CommitKey | None, tuple[str, int] | None]] = [
        (RelationKind.REVERTS, key, reference) for key, reference in _reverted(commit, links, index)
    ]
    taken: set[object] = {
        key or (reference[0].lower(), reference[1]) for _, key, reference in found if key or reference
    }
    strongest: dict[object, tuple[RelationKind, CommitKey | None, tuple[str, int] | None]] = {}
    for reference in links.references:
        repository = index.repository(reference.repository, commit.repository)
        if (repository, reference.number) == (commit.repository, commit.pr_number):
            continue
        key = index.pull(repository, reference.number)
        target: object = key or (repository.lower(), reference.number)
        if key == own or target in taken:
            continue
        if target not in strongest or _STRENGTH[reference.kind] < _STRENGTH[strongest[target][0]]:
            strongest[target] = (reference.kind, key, None if key else (repository, reference.number))
    return found + list(strongest.values())


def _pull_of(commit: CommitHeader) -> tuple[str, int] | None:
    return (commit.repository, commit.pr_number) if commit.pr_number is not None else None


def _sort_key(relation: Relation) -> tuple[object, ...]:
    return (
        _ORDER[relation.kind],
        relation.at is None,
        relation.at.timestamp() if relation.at else 0.0,
        relation.other or ("", ""),
        relation.reference or ("", 0),
    )


def _still_reverted(reverted_by: dict[CommitKey, list[CommitKey]]) -> frozenset[CommitKey]:
    """The commits a standing revert undoes: one whose own revert was not reverted in turn.
    Iterative (a chain may be long) and safe on cycles (a cycle counts as not reverted)."""
    state: dict[CommitKey, bool] = {}
    for root in reverted_by:
        stack, visiting = [root], {root}
        while stack:
            key = stack[-1]
            pending = [other for other in reverted_by.get(key, ()) if other not in state and other not in visiting]
            if pending:
                stack.append(pending[0])
                visiting.add(pending[0])
                continue
            state[key] = any(not state.get(other, True) for other in reverted_by.get(key, ()))
            stack.pop()
    return frozenset(key for key, reverted in state.items() if reverted)


def relate(commits: Iterable[CommitHeader], links: Callable[[CommitKey], CommitLinks] | None = None) -> Relations:
    """The relations between ``commits`` (the whole store), both ways, and their series.

    ``commits`` may be headers (what listings keep of a commit) when ``links`` gives what each
    one's message says (``commit_links``, kept by the caller); else they are whole commits."""
    by_key: dict[CommitKey, CommitHeader] = {}
    for commit in commits:
        by_key.setdefault((commit.repository, commit.sha), commit)
    index = _Index(by_key)
    found: dict[CommitKey, dict[tuple[RelationKind, object], Relation]] = defaultdict(dict)
    reverted_by: dict[CommitKey, list[CommitKey]] = defaultdict(list)
    for key, commit in by_key.items():
        if links is not None:
            said = links(key)
        else:
            assert isinstance(commit, Commit), "relate() needs whole commits or their links"
            said = commit_links(commit)
        for kind, other, reference in _forward(commit, said, index):
            if other is None:
                found[key].setdefault((kind, reference), Relation(kind, None, reference))
                continue
            target = by_key[other]
            found[key].setdefault((kind, other), Relation(kind, other, _pull_of(target), target.committed_at))
            inverse = _INVERSE[kind]
            found[other].setdefault((inverse, key), Relation(inverse, key, _pull_of(commit), commit.committed_at))
            if kind is RelationKind.REVERTS:
                reverted_by[other].append(key)
    relations = {key: tuple(sorted(each.values(), key=_sort_key)) for key, each in found.items()}
    return Relations(relations, _series(by_key), _still_reverted(reverted_by))


# --- series -----------------------------------------------------------------------------------


def _series(commits: dict[CommitKey, CommitHeader]) -> tuple[Series, ...]:
    grouped: dict[tuple[str, str], list[tuple[int, datetime, CommitKey, int | None, bool, str]]] = defaultdict(list)
    for key, commit in commits.items():
        if _REVERT_TITLE.match(commit.title):  # 'Revert "[2/3] …"' is no part of a series
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
