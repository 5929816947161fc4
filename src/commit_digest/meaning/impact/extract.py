"""What a commit changes for someone who runs the software: environment variables, CLI flags,
engine-argument fields, dependencies and new deprecation warnings, read from its patches alone.

``operator_impact`` sends each patch the rules look at to the finders (``env_vars``,
``arguments``, ``dependencies``, ``deprecations``), each of which lists what it sees on the old
and on the new side of every hunk (a name, its default or version as written, and whether the
commit changed the lines it stands on); comparing the two sides (``compare``) gives added,
removed and changed names, so context the commit did not touch reports nothing. This module
holds the result (``OperatorImpact``) and turns what was found into it, capped and sorted.
Pure, deterministic and bounded: the site runs it over every commit at build time.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from commit_digest.meaning.impact.arguments import class_fields, cli_flags
from commit_digest.meaning.impact.compare import compared, renamed
from commit_digest.meaning.impact.dependencies import dependencies
from commit_digest.meaning.impact.deprecations import added_deprecations
from commit_digest.meaning.impact.diff import parse_hunks
from commit_digest.meaning.impact.env_vars import env_reads, env_table
from commit_digest.meaning.impact.findings import Change, ChangeKind, ImpactKind, Seen
from commit_digest.meaning.impact.rules import FileRoles, ImpactRules
from commit_digest.models import Commit, FileChange, PatchState

NAME_CAP = 200
VALUE_CAP = 200
DETAIL_CAP = 300


class OperatorChange(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ImpactKind
    change: ChangeKind
    name: str  # the variable, "--flag", field, package or image; the new name when renamed
    previous_name: str | None = None  # renamed only
    old: str | None = None  # default, version spec or tag as written
    new: str | None = None
    path: str
    # The deprecation message; "EngineArgs --max-model-len" (class and flag) for an engine
    # argument; the marker, "ARG", "FROM" or "pip install" for a dependency.
    detail: str = ""
    platforms: tuple[str, ...] = ()


class OperatorImpact(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    changes: tuple[OperatorChange, ...] = ()
    partial: bool = False  # a file the rules look at had a truncated, unavailable or uncollected patch


_KIND_ORDER = {kind: index for index, kind in enumerate(ImpactKind)}


def operator_impact(commit: Commit, rules: ImpactRules) -> OperatorImpact:
    """Operator-facing changes of ``commit`` in order of (path, kind, name)."""
    if not rules.enabled:
        return OperatorImpact()
    seen: tuple[list[Seen], list[Seen]] = ([], [])
    deprecations: list[Change] = []
    platforms: dict[str, tuple[str, ...]] = {}
    partial = False
    for file in commit.files:
        roles = rules.roles(file.path)
        if not roles.looked_at and file.previous_path:
            roles = rules.roles(file.previous_path)
        if not roles.looked_at:
            continue
        partial = partial or _incomplete(file)
        if file.patch:
            platforms[file.path] = roles.platforms
            _read_file(file.path, file.patch, roles, rules, seen, deprecations)
    changes = [*renamed(compared(*seen)), *deprecations]
    made = {_operator_change(change, platforms, rules.platform_order) for change in changes}
    return OperatorImpact(changes=tuple(sorted(made, key=_sort_key)), partial=partial)


def _incomplete(file: FileChange) -> bool:
    if file.patch_state is PatchState.UNAVAILABLE:
        # A pure rename or mode change has no hunks and nothing to read.
        return file.additions + file.deletions > 0 or file.patch is not None
    return file.patch_state in (PatchState.TRUNCATED, PatchState.NOT_COLLECTED)


def _read_file(
    path: str,
    patch: str,
    roles: FileRoles,
    rules: ImpactRules,
    seen: tuple[list[Seen], list[Seen]],
    deprecations: list[Change],
) -> None:
    reads = roles.python and not roles.env_table and ("getenv" in patch or "environ" in patch)
    flags = roles.python and "add_argument" in patch
    warns = roles.python and rules.mentions_deprecation(patch)
    if not (roles.env_table or roles.classes or roles.dependency or reads or flags or warns):
        return
    hunks = parse_hunks(patch)
    for hunk in hunks:
        for side, found in ((hunk.old, seen[0]), (hunk.new, seen[1])):
            if roles.env_table:
                found.extend(env_table(side, path))
            if reads:
                found.extend(env_reads(side, path, rules.env_name))
            if flags:
                found.extend(cli_flags(side, path))
            if roles.classes:
                found.extend(class_fields(hunk, side, path, roles.classes))
            if roles.dependency:
                found.extend(dependencies(side, path))
    if warns:
        deprecations.extend(added_deprecations(hunks, path, rules))


def _operator_change(change: Change, platforms: dict[str, tuple[str, ...]], order: dict[str, int]) -> OperatorChange:
    found = {platform for path in change.paths for platform in platforms.get(path, ())}
    detail = change.detail
    if change.kind is ImpactKind.ENGINE_ARG:
        detail = f"{change.scope} --{change.name.replace('_', '-')}".strip()
    return OperatorChange(
        kind=change.kind,
        change=change.change,
        name=_capped(change.name, NAME_CAP) or "?",
        previous_name=_capped(change.previous_name, NAME_CAP),
        old=_capped(_one_line(change.old), VALUE_CAP),
        new=_capped(_one_line(change.new), VALUE_CAP),
        path=change.path,
        detail=_capped(detail, DETAIL_CAP) or "",
        platforms=tuple(sorted(found, key=lambda platform: order.get(platform, len(order)))),
    )


def _one_line(value: str | None) -> str | None:
    """A default written over several lines, on one (spacing inside it does not matter)."""
    return " ".join(value.split()) if value is not None and "\n" in value else value


def _capped(text: str | None, cap: int) -> str | None:
    """Plain text, at most ``cap`` characters, valid UTF-8 (escaping is the page's job)."""
    if text is None:
        return None
    text = text.encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= cap else text[: cap - 1] + "…"


def _sort_key(change: OperatorChange) -> tuple[object, ...]:
    return (
        change.path,
        _KIND_ORDER[change.kind],
        change.name,
        change.change.value,
        change.previous_name or "",
        change.old or "",
        change.new or "",
        change.detail,
    )
