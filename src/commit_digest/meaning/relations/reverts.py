"""Reverts: what a revert says it reverts, which stored commit that is, and which reverts stand.

A revert names what it undoes by sha ("This reverts commit <sha>."), by quoted title
(``Revert "<title>"``) or, on GitHub, by pull request ("Reverts owner/repo#N"); the first that
resolves in the store wins. A revert of a revert restores the original, so whether a commit is
still reverted follows the chain of reverts to its end.
"""

from __future__ import annotations

import re

from commit_digest.meaning.relations.commit_index import CommitIndex
from commit_digest.meaning.relations.relation import CommitHeader, CommitKey
from commit_digest.models import pr_number_in_title

REVERT_TITLE = re.compile(r'^\s*revert\s*"(.*)"(?:\s*\(#\d+\))?\s*$', re.I)
_REVERTS_SHA = re.compile(r"\breverts commit ([0-9a-fA-F]{7,40})\b", re.I)
_REVERTS_PR = re.compile(r"^\s*Reverts\s+(?:([\w.-]+/[\w.-]+))?#(\d{1,7})\s*$", re.M)  # GitHub's revert PRs


def revert_shas(body: str) -> tuple[str, ...]:
    """The sha prefixes of "This reverts commit <sha>" lines."""
    return tuple(match.group(1) for match in _REVERTS_SHA.finditer(body)) if "everts commit" in body else ()


def revert_pulls(body: str) -> tuple[tuple[str | None, int], ...]:
    """(repository as written or None, number) of GitHub's "Reverts owner/repo#N" lines."""
    if "Reverts" not in body:
        return ()
    return tuple((match.group(1), int(match.group(2))) for match in _REVERTS_PR.finditer(body))


def reverted(
    commit: CommitHeader,
    shas: tuple[str, ...],
    pulls: tuple[tuple[str | None, int], ...],
    index: CommitIndex,
) -> list[tuple[CommitKey | None, tuple[str, int] | None]]:
    """What ``commit`` reverts, from the ``shas`` and ``pulls`` its message names and its title:
    (commit, None) when found in the store, else (None, reference)."""
    own = (commit.repository, commit.sha)
    if shas:
        found = [index.by_sha(sha, commit.repository) for sha in shas]
        resolved = list(dict.fromkeys(key for key in found if key is not None and key != own))
        if resolved:
            return [(key, None) for key in resolved]
    reference: tuple[str, int] | None = None
    title = REVERT_TITLE.match(commit.title)
    if title is not None:
        inner = title.group(1)
        key = index.by_title(commit.repository, inner, commit)
        number = pr_number_in_title(inner)
        if key is None and number is not None and number != commit.pr_number:
            key = index.pull(commit.repository, number)
            reference = (commit.repository, number)
        if key is not None and key != own:
            return [(key, None)]
    for written, number in pulls:
        repository = index.repository(written, commit.repository)
        if (repository, number) == (commit.repository, commit.pr_number):
            continue
        key = index.pull(repository, number)
        if key is not None and key != own:
            return [(key, None)]
        reference = reference or (repository, number)
    return [(None, reference)] if reference is not None else []


def still_reverted(reverted_by: dict[CommitKey, list[CommitKey]]) -> frozenset[CommitKey]:
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
