"""Comparing the two sides of a commit's diff: the names the finders saw before and after,
matched into added, removed, renamed and changed names. Context the commit did not touch
reports nothing, and a default the diff does not show cannot be said to change."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from commit_digest.meaning.impact.findings import UNKNOWN, Change, ChangeKind, ImpactKind, Seen


def compared(old: list[Seen], new: list[Seen]) -> Iterator[Change]:
    """Names the commit touched, matched across the sides. Env vars, flags and fields are matched
    over the commit (one moved from a file to another is not new), dependencies per file. Only
    files where the commit touched a name count for it: elsewhere it was merely in context."""
    groups: dict[tuple[object, ...], tuple[list[Seen], list[Seen]]] = {}
    for side, found in enumerate((old, new)):
        for seen in found:
            group = (seen.kind, seen.path, *seen.key) if seen.kind is ImpactKind.DEPENDENCY else (seen.kind, *seen.key)
            groups.setdefault(group, ([], []))[side].append(seen)
    for before, after in groups.values():
        paths = frozenset(seen.path for seen in (*before, *after) if seen.touched)
        if paths:
            yield from _group_changes(
                [seen for seen in before if seen.path in paths], [seen for seen in after if seen.path in paths], paths
            )


def _group_changes(before: list[Seen], after: list[Seen], paths: frozenset[str]) -> Iterator[Change]:
    if not before or not after:
        best = _best(after or before)
        change = ChangeKind.ADDED if after else ChangeKind.REMOVED
        value = {"new" if after else "old": best.value}
        yield Change(
            best.kind,
            change,
            best.name,
            best.path,
            paths,
            scope=best.scope,
            detail=best.detail,
            same=best.compared,
            **value,
        )
        return
    before = _ranked(before)
    after = _ranked(after)
    old_values = {seen.compared for seen in before} - {UNKNOWN}
    new_values = {seen.compared for seen in after} - {UNKNOWN}
    if not old_values or not new_values:
        return  # a default the diff does not show cannot be said to change
    gone = _unique(before, new_values)
    came = _unique(after, old_values)
    kind = after[0].kind
    pairs = list(zip(gone, came, strict=False))
    for was, now in pairs if kind is ImpactKind.DEPENDENCY else pairs[:1]:
        change = ChangeKind.VERSION_CHANGED if kind is ImpactKind.DEPENDENCY else ChangeKind.DEFAULT_CHANGED
        yield Change(
            kind, change, now.name, now.path, paths, old=was.value, new=now.value, scope=now.scope, detail=now.detail
        )


def _ranked(found: list[Seen]) -> list[Seen]:
    """The entries of the most authoritative rank, those the commit touched first."""
    rank = min(seen.rank for seen in found)
    return sorted((seen for seen in found if seen.rank == rank), key=lambda seen: not seen.touched)


def _best(found: list[Seen]) -> Seen:
    return _ranked(found)[0]


def _unique(found: list[Seen], others: set[str]) -> list[Seen]:
    """Entries whose value the other side lacks, one per value, in order."""
    kept: dict[str, Seen] = {}
    for seen in found:
        if seen.compared not in others:
            kept.setdefault(seen.compared, seen)
    return list(kept.values())


def renamed(changes: Iterable[Change]) -> list[Change]:
    """In one file (and class), exactly one name removed and one added with the same default:
    one rename. Dependencies are not renamed."""
    kept = list(changes)
    slots: dict[tuple[object, ...], tuple[list[int], list[int]]] = {}
    for index, change in enumerate(kept):
        if change.kind is not ImpactKind.DEPENDENCY and change.change in (ChangeKind.ADDED, ChangeKind.REMOVED):
            side = 0 if change.change is ChangeKind.REMOVED else 1
            slots.setdefault((change.kind, change.path, change.scope), ([], []))[side].append(index)
    dropped: set[int] = set()
    for removed, added in slots.values():
        if len(removed) == 1 and len(added) == 1 and kept[removed[0]].same == kept[added[0]].same != UNKNOWN:
            was, now = kept[removed[0]], kept[added[0]]
            kept[added[0]] = replace(
                now, change=ChangeKind.RENAMED, previous_name=was.name, old=was.old, paths=was.paths | now.paths
            )
            dropped.add(removed[0])
    return [change for index, change in enumerate(kept) if index not in dropped]
