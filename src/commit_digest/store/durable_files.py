"""The durable form's files as files: durable writes, the manifest, and the checks that keep them whole.

The durable form is the one copy of every paid analysis that survives a lost cache, so it must never
shrink by accident and never be read half-written:

- every file is written to a temporary name, flushed to the disk (fsync), renamed over the old one,
  and the folder is flushed too, so a power cut leaves the old file or the new one, never a part;
- a save first writes a manifest that also accepts each file's bytes as they were (``pending``),
  then the files, then the manifest without ``pending``: a save stopped anywhere leaves a folder
  whose every file matches the manifest, old or new;
- a restore checks every file against the manifest (names, sha256 digests, record counts) before
  it reads any, and says what is missing, damaged or unknown;
- a save reads the keys of every file it would overwrite or remove, and refuses (one line) when the
  store lacks some of them, or when the file cannot be read as the save wrote it.

``durable`` decides what the files hold; this module knows only paths, bytes, lines and keys.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from commit_digest.errors import InputError, StoreError

MANIFEST = "manifest.json"
_BYTE_ORDER_MARK = b"\xef\xbb\xbf"
_CHUNK = 1 << 20

Key = tuple[str, ...]
# A line's key read from its parsed JSON without the models (each kind says how: ``durable_kinds``):
# None when it is no line of its kind, ``()`` for a line a save may drop.
LineKey = Callable[[object], Key | None]


class DurableFormDamaged(InputError):
    """Files of the durable form are missing, damaged or unknown to its manifest."""


class DurableShrinkRefused(StoreError):
    """A save would drop records the durable form holds and the store does not."""


def check_folder(directory: Path) -> None:
    """A durable folder that is something else (a file) is one line, not a NotADirectoryError."""
    if directory.exists() and not directory.is_dir():
        raise StoreError(f"the durable folder {directory} is not a folder: point --durable-dir at the data branch's")


def write_error(directory: Path, error: OSError) -> StoreError:
    """The one line for a durable folder that cannot be written (read-only, full, gone)."""
    return StoreError(
        f"cannot write the durable form at {directory}: {error.strerror or error}; the files there are as the "
        "last complete save left them: make room or make the folder writable, then run the command again"
    )


# -- durable writes ---------------------------------------------------------------------------


def write_durably(path: Path, data: bytes) -> None:
    """``data`` into ``path``: the file and its folder flushed before and after the rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".partial")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        with os.fdopen(descriptor, "wb") as writer:
            writer.write(data)
            writer.flush()
            os.fsync(writer.fileno())
        temporary.replace(path)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def remove_durably(path: Path) -> None:
    path.unlink(missing_ok=True)
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


# -- reading files as bytes -------------------------------------------------------------------


@dataclass(frozen=True)
class FileState:
    """A file as it is on disk: its digest and lines, or why it cannot be read."""

    digest: str | None = None
    lines: int = 0
    cut: bool = False  # the last line has no end: written half-way
    problem: str | None = None


def file_state(path: Path) -> FileState:
    """The digest (a leading byte order mark an editor added left out) and line count of ``path``;
    a link to a device or anything not a regular file is a problem, never read."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        return FileState(problem=f"cannot be read ({error.strerror})")
    with os.fdopen(descriptor, "rb") as reader:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return FileState(problem="is not a regular file")
        digest, lines, first, last = hashlib.sha256(), 0, True, b"\n"
        try:
            while chunk := reader.read(_CHUNK):
                if first and chunk.startswith(_BYTE_ORDER_MARK):
                    chunk = chunk[len(_BYTE_ORDER_MARK) :]
                first = False
                if chunk:
                    digest.update(chunk)
                    lines += chunk.count(b"\n")
                    last = chunk[-1:]
        except OSError as error:
            return FileState(problem=f"cannot be read ({error.strerror})")
    return FileState(digest=digest.hexdigest(), lines=lines + (last != b"\n"), cut=last != b"\n")


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# -- the manifest -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Manifest:
    """What a save wrote. ``pending``: while a save runs, each file's bytes before it (None: it did
    not exist), which a check accepts as well as the new ones."""

    values: dict[str, object]
    files: dict[str, str]
    counts: dict[str, int] = field(default_factory=dict)  # missing in a manifest from before counts
    pending: dict[str, str | None] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        return str(self.values.get("digest", ""))


def read_manifest(directory: Path) -> Manifest | None:
    path = directory / MANIFEST
    if not path.exists():
        return None
    try:
        values = json.loads(path.read_text(encoding="utf-8"))
        files = {str(name): str(digest) for name, digest in dict(values["files"]).items()}
        counts = {str(name): int(count) for name, count in dict(values.get("counts") or {}).items()}
        pending = {
            str(name): None if digest is None else str(digest)
            for name, digest in dict(values.get("pending") or {}).items()
        }
        if "digest" not in values:
            raise KeyError("digest")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise DurableFormDamaged(
            f"{path} is not a commit-digest manifest ({error}): check it out again from the data branch's history"
        ) from error
    return Manifest(values, files, counts, pending)


def write_manifest(directory: Path, values: Mapping[str, object]) -> None:
    text = json.dumps(values, indent=2, sort_keys=True) + "\n"
    path = directory / MANIFEST
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (OSError, ValueError):
        pass
    write_durably(path, text.encode())


def folder_digest(file_digests: Mapping[str, str]) -> str:
    return hashlib.sha256(json.dumps(dict(file_digests), sort_keys=True).encode()).hexdigest()


def data_files(directory: Path) -> list[str]:
    """Every JSON Lines file of the folder, relative, in order (``.git`` left out)."""
    return sorted(
        path.relative_to(directory).as_posix()
        for path in directory.rglob("*.jsonl")
        if ".git" not in path.relative_to(directory).parts
    )


# -- checking the files against the manifest --------------------------------------------------


@dataclass(frozen=True)
class FolderCheck:
    intact: list[str]  # relative names of the files that are as a save wrote them
    problems: list[str]  # "<name>: <what is wrong>", one per missing, damaged or unknown file
    damaged: dict[str, str] = field(default_factory=dict)  # name -> its problem, for a file listed but changed

    def summary(self, directory: Path) -> str:
        shown = "; ".join(self.problems[:5]) + (
            f"; and {len(self.problems) - 5} more" if len(self.problems) > 5 else ""
        )
        return f"the durable form at {directory} is not as saved: {shown}"


def check_against_manifest(directory: Path, manifest: Manifest | None) -> FolderCheck:
    present = data_files(directory)
    if manifest is None:
        if not present:
            return FolderCheck([], [])
        return FolderCheck([], [f"{MANIFEST}: missing, so none of its {len(present)} files can be checked"])
    intact, problems, damaged = [], [], {}
    for name in sorted(set(manifest.files) | set(manifest.pending)):
        if name in present:
            continue
        if name in manifest.files and not (name in manifest.pending and manifest.pending[name] is None):
            count = manifest.counts.get(name)
            problems.append(f"{name}: missing" + ("" if count is None else f" ({_records(count)})"))
    for name in present:
        accepted = {manifest.files.get(name), manifest.pending.get(name)} - {None}
        if not accepted:
            problems.append(f"{name}: not in {MANIFEST}")
            continue
        state = file_state(directory / name)
        if state.problem is not None:
            problems.append(f"{name}: {state.problem}")
        elif state.digest not in accepted:
            problems.append(f"{name}: {_damage(state, manifest.counts.get(name))}")
            damaged[name] = problems[-1]
        else:
            intact.append(name)
    return FolderCheck(intact, problems, damaged)


def _damage(state: FileState, count: int | None) -> str:
    what = "cut mid-line" if state.cut else "changed"
    if count is None:
        return f"{what} (its sha256 is not the manifest's)"
    lines = f"{state.lines} line" + ("" if state.lines == 1 else "s")
    return f"{what} ({lines} where the manifest lists {_records(count)}; its sha256 is not the manifest's)"


def _records(count: int) -> str:
    return f"{count} record" + ("" if count == 1 else "s")


# -- the keys of a file, for the save's guard -------------------------------------------------


def file_keys(path: Path, kind: str, line_key: LineKey) -> tuple[set[Key], str | None]:
    """The keys of the lines of ``path`` (a file of ``kind``), or why it cannot be read as a save
    wrote it (cut mid-line, a line that is not JSON or lacks its key, not text)."""
    state = file_state(path)
    if state.problem is not None:
        return set(), state.problem
    if state.cut:
        return set(), f"cut mid-line (line {state.lines} has no end)"
    keys: set[Key] = set()
    try:
        with path.open(encoding="utf-8-sig") as reader:
            for number, line in enumerate(reader, start=1):
                if not line.strip():
                    continue
                key = _line_key(line, line_key)
                if key is None:
                    return set(), f"line {number} is not a {kind} line"
                if key:
                    keys.add(key)
    except (OSError, UnicodeDecodeError) as error:
        return set(), f"cannot be read as text ({error})"
    return keys, None


def _line_key(line: str, line_key: LineKey) -> Key | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return line_key(value)


def field_key(*paths: tuple[str, ...]) -> LineKey:
    """The ``LineKey`` of a line whose key is the text at each of ``paths`` (field names, nested)."""

    def key(value: object) -> Key | None:
        found = []
        for path in paths:
            part: object = value
            for name in path:
                part = part.get(name) if isinstance(part, dict) else None
            if not isinstance(part, str):
                return None
            found.append(part)
        return tuple(found)

    return key


@dataclass
class ShrinkCheck:
    """What a save would drop: per file, the keys the store lacks, or why the file cannot be read."""

    lost: dict[str, int] = field(default_factory=dict)
    damaged: dict[str, str] = field(default_factory=dict)

    def refusal(self, directory: Path) -> DurableShrinkRefused | None:
        if not self.lost and not self.damaged:
            return None
        parts = [f"{name} ({count} of its records are not in the store)" for name, count in sorted(self.lost.items())]
        parts += [f"{name} ({why})" for name, why in sorted(self.damaged.items())]
        total = sum(self.lost.values())
        shown = "; ".join(parts[:4]) + (f"; and {len(parts) - 4} more files" if len(parts) > 4 else "")
        lost = f"{total} records the store does not hold would be lost" if total else "damaged files would be replaced"
        return DurableShrinkRefused(
            f"refusing to save the durable form at {directory}: {lost}: {shown}. Restore them into the store "
            f"first (commit-digest restore --durable-dir {directory}), or pass --prune to drop them on purpose"
        )


def check_shrink(
    directory: Path,
    overwritten: Iterable[tuple[str, str, LineKey]],
    kept: Mapping[str, set[Key]],
    exempt: Callable[[str, Key], bool],
) -> ShrinkCheck:
    """Reads the keys of each (name, kind, its lines' key) file about to be overwritten or removed;
    a key of it that ``kept[kind]`` lacks, unless ``exempt``, would be lost."""
    check = ShrinkCheck()
    for name, kind, line_key in overwritten:
        path = directory / name
        if not path.exists():
            continue
        keys, problem = file_keys(path, kind, line_key)
        if problem is not None:
            check.damaged[name] = problem
            continue
        lost = [key for key in keys if key not in kept.get(kind, set()) and not exempt(kind, key)]
        if lost:
            check.lost[name] = len(lost)
    return check
