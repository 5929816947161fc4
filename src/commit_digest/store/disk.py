"""How the store's rows become values: diskcache's Disk without pickle.

The second importer of diskcache, beside ``rows``, which alone opens the cache. Whoever can write to
the store's folder (a poisoned CI cache can) writes its rows; diskcache's own Disk unpickles a
row marked as a pickle, running whatever the pickle names. The store writes only string keys,
JSON text (in the database, or past 32 KB in a value file of its own) and the revision's
integer, so this Disk reads those and refuses every other row before reading its bytes; it never
reads or removes a value file outside the store. Stores written with diskcache's own Disk read
the same: diskcache keeps the Disk's settings (``disk_*``) in the database, never its class.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import diskcache
from diskcache.core import MODE_BINARY, MODE_PICKLE, MODE_RAW, MODE_TEXT

from commit_digest.errors import StoreError

_NEVER_LOADED = "a pickle (which the store never loads)"
_REFUSED = {MODE_PICKLE: _NEVER_LOADED, MODE_BINARY: "bytes"}


class UnreadableRow(Exception):
    """A row the store did not write as it is; the store turns it into a StoreError."""

    def __init__(self, why: str, *, file: Path | None = None, missing: str | None = None) -> None:
        super().__init__(why)
        # ``file``: the value file at fault (else the database); ``missing``: the row's file name,
        # when that file is not there.
        self.why, self.file, self.missing = why, file, missing


class TextDisk(diskcache.Disk):
    # ``**_``: a ``disk_`` setting diskcache finds in the database and this Disk does not know
    # is not a reason to fail opening the store.
    def __init__(self, directory: str, min_file_size: int = 0, pickle_protocol: int = 0, **_: object) -> None:
        super().__init__(directory, min_file_size, pickle_protocol)
        self._root = Path(directory).resolve()

    def get(self, key: object, raw: bool) -> object:
        if not raw:
            raise UnreadableRow(f"a key is stored as {_NEVER_LOADED}")
        return super().get(key, raw)

    def fetch(self, mode: int, filename: object, value: object, read: bool) -> object:
        if mode == MODE_RAW and not read:
            return super().fetch(mode, filename, value, read)
        if mode == MODE_TEXT and not read:
            return self._text(filename)
        raise UnreadableRow(f"its value is stored as {_REFUSED.get(mode, f'mode {mode!r}')}, not as JSON text")

    def store(self, value: object, read: bool, key: object = diskcache.core.UNKNOWN) -> tuple[object, ...]:
        # What this Disk writes it can read back: a value diskcache would pickle is a bug here.
        if read or not isinstance(value, str | int):
            raise TypeError(f"the store keeps only JSON text and counters, not {type(value).__name__}")
        try:
            return super().store(value, read, key)
        except OSError as error:  # a value past 32 KB is a file of its own: a full disk fails here, not in SQLite
            raise StoreError(
                f"cannot write a value file in the store at {self._root}: {error.strerror or error}; "
                "free space on its disk (or point --cache at a folder with room) and run again: nothing stored is lost"
            ) from error

    def remove(self, file_path: object) -> None:
        # The file of a row being replaced or deleted: never one outside the store. (A link in
        # the store to a file elsewhere is removed, not what it points at.)
        if _named(file_path) and self._inside((Path(self._directory) / str(file_path)).parent):
            super().remove(file_path)

    def _text(self, filename: object) -> str:
        if not _named(filename):
            raise UnreadableRow("its value file has no name")
        path = (Path(self._directory) / str(filename)).resolve()
        if not self._inside(path):
            raise UnreadableRow(f"its value file {filename} is outside the store")
        try:
            # Non-blocking, so that a FIFO planted as a value file is refused, not waited on.
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            raise UnreadableRow("missing from the store's folder", file=path, missing=str(filename)) from None
        except OSError as error:
            raise UnreadableRow(f"cannot be read: {error.strerror}", file=path) from None
        with os.fdopen(descriptor, "rb") as reader:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise UnreadableRow("not a regular file", file=path)
            data = reader.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UnreadableRow(f"not UTF-8 text: {error.reason} at byte {error.start}", file=path) from None

    def _inside(self, path: Path) -> bool:
        return path.resolve().is_relative_to(self._root)


def _named(filename: object) -> bool:
    """A file name a path can be made of (a NUL in one makes the path functions fail)."""
    return isinstance(filename, str) and filename != "" and "\0" not in filename
