"""The durable form of the store: JSON Lines split by month, committed to a data branch.

The diskcache store is a fast working copy that CI caches may lose; this folder is what
survives. Files are written only when their bytes change and in a stable order, so a
night's change is a small diff: the new month's file grows, the rest stay untouched.

Where each value lives and the line it is written as: ``durable_layout``; the kinds of value, as
data this module loops over: ``durable_kinds``.

The durable form never shrinks by accident (``durable_files`` checks the files, this module
decides what they hold): a save refuses to drop a record the store lacks, a restore refuses a
folder whose files are not as the manifest lists them, and ``prune``/``partial`` say otherwise
on purpose.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from commit_digest.errors import InputError, StoreError
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable_files import (
    MANIFEST,
    DurableFormDamaged,
    Key,
    LineKey,
    Manifest,
    check_against_manifest,
    check_folder,
    check_shrink,
    data_files,
    file_state,
    folder_digest,
    read_manifest,
    remove_durably,
    text_digest,
    write_durably,
    write_error,
    write_manifest,
)
from commit_digest.store.durable_kinds import BY_NAME, KINDS, NOTIFICATIONS, DurableKind, ReleaseTags, kind_of
from commit_digest.store.durable_layout import inside
from commit_digest.store.durable_read import ParsedFiles
from commit_digest.store.durable_results import KindRestored, RestoreResult, SaveResult

logger = logging.getLogger("mkdocs.plugins.commit_digest.store.durable")

_RESTORED_META = "durable-restored-digest"


def _texts(store: AnalysisStore, directory: Path, kind: DurableKind[Any]) -> tuple[dict[Path, str], int, set[Key]]:
    """The texts of ``kind``'s files as the store would have them, how many values they hold, and
    the keys of those values."""
    by_file: dict[Path, list[Any]] = defaultdict(list)
    keys: set[Key] = set()
    for value in kind.stored(store):
        by_file[kind.file(directory, value)].append(value)
        keys.add(kind.key(value))
    texts = {
        path: "".join(kind.line(value) + "\n" for value in sorted(values, key=kind.order))
        for path, values in by_file.items()
    }
    return texts, sum(len(values) for values in by_file.values()), keys


def save_durable(
    store: AnalysisStore,
    directory: Path,
    *,
    prune: bool = False,
    release_tags: Mapping[str, str] | None = None,
) -> SaveResult:
    """Writes every value of the store into its kind's files (records into month files, narratives
    into year files, releases into their repository's file, ...); unchanged files are not touched.

    The durable form never shrinks by accident: a file the save would overwrite or remove whose
    records the store does not all hold (a lost store not restored yet), or which cannot be read
    as a save wrote it, stops the save with one line and leaves every file as it was. Only two
    removals happen on purpose: a legacy placeholder moved onto its real commit, and a release
    whose tag is no longer a release tag (``release_tags``). ``prune`` makes the durable form the
    store's, whatever it drops."""
    check_folder(directory)
    texts: dict[Path, str] = {}
    saved: dict[str, int] = {}
    kept: dict[str, set[Key]] = {}
    for kind in KINDS:
        kind_texts, saved[kind.name], kept[kind.name] = _texts(store, directory, kind)
        texts.update(kind_texts)
    if not prune:
        read_manifest(directory)  # one that cannot be read is damage to report, not to overwrite
    new = {_name(directory, path): text for path, text in texts.items()}
    changes, before = _changes(directory, new)
    removed = [name for name in _present(directory) if name not in new]
    if not prune:
        patterns = release_tags or {}

        def exempt(kind: str, key: Key) -> bool:
            return BY_NAME[kind].may_drop(key, patterns)

        refusal = check_shrink(directory, _guarded([*sorted(changes), *removed]), kept, exempt).refusal(directory)
        if refusal is not None:
            raise refusal
    files = {name: text_digest(text) for name, text in sorted(new.items())}
    digest = folder_digest(files)
    values: dict[str, object] = {
        "format": 1,
        "files": files,
        "counts": {name: text.count("\n") for name, text in new.items()},
        "digest": digest,
    }
    # A kind with nothing saved is left out, as a manifest from before it was kept has it.
    values.update({kind.name: saved[kind.name] for kind in KINDS if saved[kind.name] or kind.counted_when_none})
    try:
        _commit(directory, changes, removed, before, values)
    except OSError as error:
        raise write_error(directory, error) from error
    # The store now matches this durable form: the next restore can skip the work.
    _remember(store, digest)
    return SaveResult(files_written=len(changes), files_unchanged=len(new) - len(changes), digest=digest, saved=saved)


def _name(directory: Path, path: Path) -> str:
    return inside(directory, path, follow_links=True).relative_to(directory).as_posix()


def _guarded(names: Iterable[str]) -> list[tuple[str, str, LineKey]]:
    """Each file with its kind and how its lines' keys are read: what the save's guard checks."""
    return [(name, (kind := kind_of(name)).name, kind.line_key) for name in names]


def _present(directory: Path) -> list[str]:
    return data_files(directory) if directory.is_dir() else []


def _changes(directory: Path, new: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str | None]]:
    """The files whose bytes differ from ``new``'s, and the digest of each as it is now (None: absent)."""
    changes: dict[str, str] = {}
    before: dict[str, str | None] = {}
    for name, text in sorted(new.items()):
        path = directory / name
        try:
            current = path.read_bytes() if path.is_file() else None
        except OSError:
            current = None
        if current == text.encode():
            continue
        changes[name] = text
        before[name] = None if current is None else file_state(path).digest
    return changes, before


def _commit(
    directory: Path,
    changes: Mapping[str, str],
    removed: Iterable[str],
    before: Mapping[str, str | None],
    values: Mapping[str, object],
    still_pending: Mapping[str, str | None] | None = None,
) -> None:
    """Writes ``changes``, removes ``removed`` and leaves the manifest ``values``. The manifest that
    also accepts each file as it was comes first: a save stopped anywhere leaves files it matches.
    ``still_pending``: files an earlier save cut short and this one does not write, which every
    manifest it leaves must go on accepting as they are."""
    removed = list(removed)
    kept = dict(still_pending or {})
    if changes or removed:
        pending = {**kept, **before, **{name: file_state(directory / name).digest for name in removed}}
        write_manifest(directory, {**values, "pending": pending})
        for name in sorted(changes):
            write_durably(directory / name, changes[name].encode())
            logger.debug("durable form: wrote %s", name)
        for name in removed:
            remove_durably(inside(directory, directory / name, follow_links=True))
    write_manifest(directory, {**values, "pending": kept} if kept else values)


def _salvaged(parsed: ParsedFiles, directory: Path, problem: str, damaged: Mapping[str, str]) -> str:
    """``problem`` as a partial restore reports it: a damaged file's valid lines are restored (a file
    cut mid-line loses only its last line), a missing or unknown file is left out."""
    name = next((name for name, said in damaged.items() if said == problem), None)
    if name is None:
        return problem
    try:
        added, skipped = parsed.salvage(directory / name, kind_of(name))
    except InputError:
        return problem
    return f"{problem}: its {added} valid lines restored, {skipped} left out"


def _remember(store: AnalysisStore, digest: str) -> None:
    try:
        store.set_meta(_RESTORED_META, digest)
    except StoreError as error:
        # Only a shortcut is lost (the next restore reads the files again); the files are saved.
        logger.warning("the store cannot note that it matches the durable form: %s", error)


def save_notifications(store: AnalysisStore, directory: Path) -> int:
    """Writes the notification ledger's year files and the manifest's entries for them, leaving the
    rest of the durable form as it is: what a notify run calls after each delivery, so the data
    branch knows it even when the store is lost before the next full save: a year file left with no
    entry is removed, and files a save cut short stay pending (accepted as they are). No manifest
    yet: writes the whole durable form. Returns the files written (an OSError when one cannot be)."""
    check_folder(directory)
    manifest = read_manifest(directory)
    if manifest is None:
        return save_durable(store, directory).files_written
    texts, notifications, keys = _texts(store, directory, NOTIFICATIONS)
    new = {_name(directory, path): text for path, text in texts.items()}
    changes, before = _changes(directory, new)
    # A year whose every attempt was withdrawn: its old "unknown" lines must not come back on a restore.
    removed = [name for name in _present(directory) if kind_of(name) is NOTIFICATIONS and name not in new]
    overwritten = _guarded([*sorted(changes), *removed])
    refusal = check_shrink(directory, overwritten, {NOTIFICATIONS.name: keys}, lambda kind, key: False).refusal(
        directory
    )
    if refusal is not None:
        raise refusal
    values, pending = _notifications_manifest(manifest, new, removed, notifications)
    _commit(directory, changes, removed, before, values, pending)
    # The store matched the durable form before (a save or a restore said so): it still does.
    if store.get_meta(_RESTORED_META) == manifest.digest:
        _remember(store, str(values["digest"]))
    return len(changes)


def _notifications_manifest(
    manifest: Manifest, new: Mapping[str, str], removed: list[str], notifications: int
) -> tuple[dict[str, object], dict[str, str | None]]:
    """The manifest once ``new`` is written and ``removed`` gone, and the files still ``pending``."""
    files = {name: digest for name, digest in manifest.files.items() if name not in removed}
    files.update({name: text_digest(text) for name, text in new.items()})
    counts = {name: count for name, count in manifest.counts.items() if name not in removed}
    counts.update({name: text.count("\n") for name, text in new.items()})
    pending = {name: old for name, old in manifest.pending.items() if name not in new and name not in removed}
    values = {key: value for key, value in manifest.values.items() if key != "pending"}
    values.update(files=files, counts=counts, digest=folder_digest(files))
    values[NOTIFICATIONS.name] = notifications
    return values, pending


def restore_durable(
    store: AnalysisStore,
    directory: Path,
    *,
    release_tags: Mapping[str, str] | None = None,
    partial: bool = False,
) -> RestoreResult:
    """Merges the durable form into the store (missing or older store: nothing paid is lost).

    Every file is checked against the manifest first (names, sha256 digests, record counts): a
    file missing, damaged or unknown to it, or no manifest beside the files, raises
    ``DurableFormDamaged`` naming each, and the store is left as it was. With ``partial`` the
    intact files are merged and the others listed in ``left_out`` (without a manifest, every file
    that reads is merged).

    Merging keeps the more valuable analysis of each commit, the newer narrative of each week
    and platform, the newer brief of each day and platform, and the stored release of each tag
    (a release the store lacks is added), so restoring into a store that is newer than the
    durable form changes nothing that matters.
    ``release_tags`` (repository → its ``release_tags``; the default pattern for one not named)
    is the fetch's filter: a release whose tag it refuses is skipped and counted, never stored.
    """
    patterns = release_tags or {}
    check_folder(directory)
    manifest = read_manifest(directory)
    check = check_against_manifest(directory, manifest)
    if check.problems and not partial:
        raise DurableFormDamaged(
            f"{check.summary(directory)}. Check them out again from the data branch's history "
            f"(git -C {directory} checkout -- .), or restore the intact files with "
            f"`commit-digest restore --partial --durable-dir {directory}`"
        )
    if manifest is None and not check.problems:
        return RestoreResult(skipped=True)
    listed = _listed(manifest, directory)
    if (
        manifest is not None
        and not check.problems
        and not manifest.pending
        and store.get_meta(_RESTORED_META) == manifest.digest
        and all(kind.in_store(store) >= listed[kind.name] for kind in KINDS)
    ):
        return RestoreResult(skipped=True, kinds={name: KindRestored(read=count) for name, count in listed.items()})
    names = check.intact if manifest is not None else data_files(directory)
    # Parse everything before writing anything: a bad file leaves the store as it was.
    parsed = ParsedFiles()
    left_out = [_salvaged(parsed, directory, problem, check.damaged) for problem in check.problems]
    for name in names:
        try:
            parsed.read(directory / name, kind_of(name))
        except InputError as error:
            if not partial:
                raise
            left_out.append(f"{name}: {str(error).splitlines()[0]}")
    restored = {kind.name: _merge(store, kind, parsed.of(kind), patterns) for kind in KINDS}
    if manifest is not None and not left_out:
        store.set_meta(_RESTORED_META, manifest.digest)
    return RestoreResult(skipped=False, kinds=restored, left_out=tuple(left_out))


def _listed(manifest: Manifest | None, directory: Path) -> dict[str, int]:
    """How many values of each kind the manifest says the files hold (none: a kind it does not name)."""
    values = manifest.values if manifest is not None else {}
    try:
        return {kind.name: int(values.get(kind.name, 0)) for kind in KINDS}
    except (ValueError, TypeError) as error:
        names = ", ".join(kind.name for kind in KINDS[:-1]) + f" or {KINDS[-1].name}"
        raise InputError(f"{directory / MANIFEST}: the {names} count is not a number: {error}") from error


def _merge(store: AnalysisStore, kind: DurableKind[Any], values: list[Any], patterns: ReleaseTags) -> KindRestored:
    admitted = [value for value in values if kind.admits(value, patterns)]
    return KindRestored(read=len(admitted), merged=kind.merge(store, admitted), skipped=len(values) - len(admitted))
