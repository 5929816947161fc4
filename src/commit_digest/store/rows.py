"""The store's rows: the one user of diskcache's Cache (``disk`` is how a row becomes a value).

Here the store is keys and JSON text: opening the cache in a directory, reading, writing, listing
and deleting rows, one transaction over several of them, the revision counter that every counted
write moves on, the pipeline's meta values and the leases between concurrent runs. Every failure
of the store's files (SQLite's, a value file's, a row no schema accepts) becomes here the one-line
StoreError that names the way back. What a record, a narrative or a release is, and which key
holds it, is ``analysis_store``'s business: this module is the diskcache edge, and only it.
"""

from __future__ import annotations

import errno
import json
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import diskcache
from pydantic import BaseModel, ValidationError

from commit_digest.errors import StoreError
from commit_digest.models import first_problem
from commit_digest.store.disk import TextDisk, UnreadableRow
from commit_digest.store.leases import Lease

_Model = TypeVar("_Model", bound=BaseModel)

_META_PREFIX = "meta/"
# Changes whenever a record, a narrative or a release does: lets a build tell "nothing changed" without
# reading the store.
_REVISION_KEY = "revision/counter"
_IDENTITY_KEY = "revision/store-id"
_LEASE_PREFIX = "lease/"
# SQLite pages (4 KiB) each process keeps cached: 4 MB, not diskcache's 32 MB.
_PAGE_CACHE_PAGES = 1024
DEFAULT_SIZE_LIMIT = 2**40  # far above any archive: the limit must never be what stops a write


class StoreRows:
    """The rows of a store directory, as JSON text by key. Opening it touches only local files."""

    def __init__(self, directory: Path | str, *, size_limit: int = DEFAULT_SIZE_LIMIT) -> None:
        self.directory = Path(directory)
        try:
            self._cache = diskcache.Cache(
                str(self.directory),
                disk=TextDisk,
                eviction_policy="none",
                size_limit=size_limit,
                cull_limit=0,
                statistics=False,
                # Reading every record through a memory map (diskcache's default, 64 MB) makes
                # the database part of each reader's resident memory, growing with the archive;
                # with read() through a small page cache a build's memory does not.
                sqlite_mmap_size=0,
                sqlite_cache_size=_PAGE_CACHE_PAGES,
            )
        except (OSError, sqlite3.Error) as error:
            raise self.error("cannot open the store", error) from error

    @property
    def _database(self) -> Path:
        return self.directory / "cache.db"

    def close(self) -> None:
        self._cache.close()

    def __contains__(self, key: str) -> bool:
        return key in self._cache

    @contextmanager
    def transaction(self, failing: str | None = None) -> Iterator[None]:
        """Reads and writes inside are one transaction: another process sees all of them or none.

        With ``failing`` ("cannot write <key> to the store"), a failure of the store's files is a
        StoreError saying so; without it, that failure is raised as SQLite raised it.
        """
        if failing is None:
            with self._cache.transact():
                yield
            return
        try:
            with self._cache.transact():
                yield
        except sqlite3.Error as error:
            raise self.error(failing, error) from error

    # -- rows ------------------------------------------------------------------------------

    def keys(self, prefix: str) -> Iterator[str]:
        """The keys starting with ``prefix``, in key order."""
        try:
            for key in self._cache.iterkeys():
                if isinstance(key, str) and key.startswith(prefix):
                    yield key
        except UnreadableRow as error:
            raise self.damaged("cannot list the store", self._database, error.why) from error
        except sqlite3.Error as error:
            raise self.error("cannot list the store", error) from error

    def read(self, key: str) -> str | None:
        """The text stored under ``key``, or None when there is none."""
        missing = None
        while True:
            try:
                value = self._cache.get(key, default=None, retry=True)
            except UnreadableRow as error:
                # A value file is removed just after its row is replaced or deleted: gone once may be
                # a writer's doing (read the row again); gone again with the same row, it is lost.
                if error.missing is not None and error.missing != missing:
                    missing = error.missing
                    continue
                place = self._database if error.file is None else error.file
                raise self.damaged(f"cannot read {key}", place, error.why) from error
            except sqlite3.Error as error:
                raise self.error(f"cannot read {key} from the store", error) from error
            if value is None:
                self._check_not_expired(key)
            elif not isinstance(value, str):
                raise self.damaged(f"cannot read {key}", self._database, "its value is not JSON text")
            return value

    def _check_not_expired(self, key: str) -> None:
        """diskcache reads an expired row as absent: the store never sets an expiry, so a row that
        has one would be a record lost in silence (and a merge would overwrite it)."""
        # diskcache has no public read that sees an expired row; _sql is its connection's execute.
        try:
            rows = self._cache._sql(
                "SELECT 1 FROM Cache WHERE key = ? AND raw = 1 AND expire_time IS NOT NULL", (key,)
            ).fetchall()
        except sqlite3.Error as error:
            raise self.error(f"cannot read {key} from the store", error) from error
        if rows:
            raise self.damaged(f"cannot read {key}", self._database, "its row is set to expire")

    def write(self, key: str, text: str) -> None:
        """Stores ``text`` under ``key`` and moves the revision on, in one transaction."""
        try:
            with self._cache.transact():
                self._cache.set(key, text, retry=True)
                self._count_write()
        except sqlite3.Error as error:
            raise self.error(f"cannot write {key} to the store", error) from error

    def delete(self, key: str) -> bool:
        """Removes one value and moves the revision on; True when it was there."""
        try:
            with self._cache.transact():
                deleted = bool(self._cache.delete(key, retry=True))
                if deleted:
                    self._count_write()
                return deleted
        except sqlite3.Error as error:
            raise self.error(f"cannot delete {key} from the store", error) from error

    def _count_write(self) -> None:
        """Moves the revision on (inside the caller's transaction)."""
        try:
            self._cache.incr(_REVISION_KEY, retry=True)
        except TypeError as error:  # diskcache adds 1 to whatever the row holds
            raise self.damaged(
                f"cannot count a write in {_REVISION_KEY}", self._database, "its value is not a number"
            ) from error

    def revision(self) -> str:
        """An opaque token that changes whenever any record, narrative or release is written or deleted.

        It names this store (a random id made when the store was created) and counts its
        record, narrative and release writes, so a store deleted and rebuilt never repeats an old token.
        """
        try:
            self._cache.add(_IDENTITY_KEY, uuid.uuid4().hex, retry=True)
            return f"{self._cache.get(_IDENTITY_KEY, retry=True)}:{self._cache.get(_REVISION_KEY, 0, retry=True)}"
        except UnreadableRow as error:
            raise self.damaged("cannot read the revision of the store", self._database, error.why) from error
        except sqlite3.Error as error:
            raise self.error("cannot read the revision of the store", error) from error

    # -- metadata: small JSON values the pipeline keeps between runs ---------------------

    def get_meta(self, name: str) -> object | None:
        key = _META_PREFIX + name
        text = self.read(key)
        if text is None:
            return None
        try:
            return json.loads(text)
        except ValueError as error:
            raise self.damaged(f"cannot read {key}", self._database, f"its value is not JSON: {error}") from error

    def set_meta(self, name: str, value: object) -> None:
        # Not a record: the revision stays.
        key = _META_PREFIX + name
        try:
            self._cache.set(key, json.dumps(value, ensure_ascii=False, sort_keys=True), retry=True)
        except sqlite3.Error as error:
            raise self.error(f"cannot write {key} to the store", error) from error

    # -- leases: claims on commits between concurrent runs --------------------------------

    def acquire_lease(self, name: str, lease: Lease, *, lapsed: Callable[[Lease], bool]) -> bool:
        """Takes ``name`` for ``lease.holder`` unless another holder's lease is still running.

        Read and write happen in one transaction: of two processes asking at once, one wins.
        Leases are not records: they change neither the revision nor the durable form.
        """
        key = _LEASE_PREFIX + name
        with self.transaction(f"cannot write {key} to the store"):
            text = self.read(key)
            if text is not None:
                held = self.parsed(key, text, Lease)
                if held.holder != lease.holder and not lapsed(held):
                    return False
            self._cache.set(key, lease.model_dump_json(), retry=True)
            return True

    def release_lease(self, name: str, holder: str) -> None:
        """Gives ``name`` up if ``holder`` still holds it (a lapsed lease may have been taken over)."""
        key = _LEASE_PREFIX + name
        with self.transaction(f"cannot write {key} to the store"):
            text = self.read(key)
            if text is not None and self.parsed(key, text, Lease).holder == holder:
                self._cache.delete(key, retry=True)

    # -- values and failures ---------------------------------------------------------------

    def parsed(self, key: str, text: str, model: type[_Model]) -> _Model:
        """``text``, read from ``key``, as a ``model``; a value the schema refuses is a damaged store."""
        try:
            return model.model_validate_json(text)
        except ValidationError as error:
            why = f"its value does not match the schema: {first_problem(error)}"
            raise self.damaged(f"cannot read {key}", self._database, why) from error

    def error(self, what: str, error: sqlite3.Error | OSError) -> StoreError:
        """One message for every failure of the store's files, with the way back when they are damaged."""
        text = str(error)
        damaged = type(error) is sqlite3.DatabaseError or any(
            sign in text for sign in ("malformed", "not a database", "file is encrypted")
        )
        full = isinstance(error, sqlite3.OperationalError) and "disk is full" in text
        full = full or (isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT))
        if full:
            return StoreError(
                f"{what} at {self.directory}: {text}; free space on its disk (or move the store with --cache): "
                "what is stored is kept"
            )
        if not damaged:
            return StoreError(f"{what} at {self.directory}: {text}")
        return self.damaged(what, self._database, text)

    def damaged(self, what: str, place: Path, why: str) -> StoreError:
        """The one-line error for a damaged store: what failed, the file, why, and the way back."""
        broken = self.directory.with_name(self.directory.name + ".damaged")
        message = (
            f"{what}: {place} is damaged ({why}). Rebuild the store from the durable form (the data "
            f"branch's folder, data/ by default) with no LLM calls: "
            f"mv {self.directory} {broken} && commit-digest restore --cache {self.directory} --durable-dir data"
        )
        # Keys and file names come from the rows: a newline in one must not start a second line.
        return StoreError("".join(c if c.isprintable() else ascii(c)[1:-1] for c in message))
