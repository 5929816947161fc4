"""What the finders of operator impact report, and the kinds they sort it into.

A finder (env_vars, arguments, dependencies, deprecations) lists each name it sees on one side
of a hunk as a ``Seen``; comparing the two sides (compare) turns them into ``Change``s, which
``operator_impact`` caps and hands out as ``OperatorChange``s. The kinds live here, below all of
them, so that the finders, the comparison and the public result share one vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from commit_digest.meaning.impact.diff import canonical


class ImpactKind(StrEnum):
    ENV_VAR = "env-var"
    CLI_FLAG = "cli-flag"
    ENGINE_ARG = "engine-arg"
    DEPENDENCY = "dependency"
    DEPRECATION = "deprecation"


class ChangeKind(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    DEFAULT_CHANGED = "default-changed"
    RENAMED = "renamed"
    VERSION_CHANGED = "version-changed"


UNKNOWN = "\0unknown"  # the compared value of a default the diff does not show


@dataclass(frozen=True, slots=True)
class Seen:
    """One name on one side of one file's diff."""

    kind: ImpactKind
    key: tuple[str, ...]  # what the two sides are matched on
    name: str  # as written
    value: str | None  # default or version as written
    path: str
    touched: bool  # the commit changed a line it stands on
    rank: int = 0  # env vars: 0 table entry, 1 TYPE_CHECKING declaration, 2 read elsewhere
    scope: str = ""  # the class of an engine-argument field
    detail: str = ""
    same: str | None = None  # the value as compared (None: worked out from ``value``)

    @property
    def compared(self) -> str:
        return self.same if self.same is not None else canonical(self.value)


@dataclass(frozen=True, slots=True)
class Change:
    """A name the commit added, removed, renamed or gave another default or version, before
    ``operator_impact`` caps its text and looks up its platforms."""

    kind: ImpactKind
    change: ChangeKind
    name: str
    path: str
    paths: frozenset[str]
    old: str | None = None
    new: str | None = None
    previous_name: str | None = None
    scope: str = ""
    detail: str = ""
    same: str = ""  # the compared value of an added or removed name (renames pair on it)
