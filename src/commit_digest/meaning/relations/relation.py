"""One relation between two commits, and what relating reads of every commit.

The shared vocabulary of the relations package: a ``Relation`` of some ``RelationKind`` points
at another commit (by ``CommitKey``) or at a pull request the store does not hold, and
``CommitHeader`` is all that relating needs of every commit at once. Everything else in the
package builds on these, so they sit below it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol
from urllib.parse import quote

CommitKey = tuple[str, str]  # (repository, sha)
# A title's trailing pull request number, "Fix the cache (#123)".
PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")


class RelationKind(StrEnum):
    REVERTS = "reverts"
    REVERTED_BY = "reverted-by"
    FIXES = "fixes"
    FIXED_BY = "fixed-by"
    FOLLOWS_UP = "follows-up"
    FOLLOWED_UP_BY = "followed-up-by"
    MENTIONS = "mentions"
    MENTIONED_BY = "mentioned-by"


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
