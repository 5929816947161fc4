"""The analysis store: the only user of diskcache (``store_disk`` is how it reads rows).

Values are JSON text, never pickles (``store_disk`` refuses any other row unread), one per
commit, keyed by repository and sha; beside the commits, each week's narrative per platform
(``narratives``) and each release tag of a repository with the commits it released first
(``releases``), under keys of their own. Analyses are paid for, so the cache never evicts
(``eviction_policy="none"``): a size limit only stops culling, it never drops a record. SQLite
underneath lets several processes read and write at once.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import uuid
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Self, TypeVar

import diskcache
from pydantic import BaseModel, ValidationError

from commit_digest.errors import StoreError
from commit_digest.meaning.releases import Release, ordered
from commit_digest.models import Analysis, Commit, CommitRecord, first_problem
from commit_digest.store.disk import TextDisk, UnreadableRow
from commit_digest.store.hygiene import clean_record
from commit_digest.store.leases import Lease
from commit_digest.store.merge import merge_records
from commit_digest.store.narratives import WeekNarrative

logger = logging.getLogger("mkdocs.plugins.commit_digest.store.analysis_store")
_Model = TypeVar("_Model", bound=BaseModel)

_RECORD_PREFIX = "commit/"
_NARRATIVE_PREFIX = "narrative/"
_RELEASE_PREFIX = "release/"
_META_PREFIX = "meta/"
# Changes whenever a record, a narrative or a release does: lets a build tell "nothing changed" without
# reading the store.
_REVISION_KEY = "revision/counter"
_IDENTITY_KEY = "revision/store-id"
_LEASE_PREFIX = "lease/"
# SQLite pages (4 KiB) each process keeps cached: 4 MB, not diskcache's 32 MB.
_PAGE_CACHE_PAGES = 1024
DEFAULT_SIZE_LIMIT = 2**40  # far above any archive: the limit must never be what stops a write


def record_key(repository: str, sha: str) -> str:
    return f"{_RECORD_PREFIX}{repository}/{sha}"


def narrative_key(week: str, platform: str) -> str:
    return f"{_NARRATIVE_PREFIX}{week}/{platform}"


def release_key(repository: str, tag: str) -> str:
    return f"{_RELEASE_PREFIX}{repository}/{tag}"


class AnalysisStore:
    """A directory of commits and their analyses. Opening it touches only local files."""

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
            raise self._error("cannot open the store", error) from error

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def _database(self) -> Path:
        return self.directory / "cache.db"

    def close(self) -> None:
        self._cache.close()

    def __len__(self) -> int:
        return sum(1 for _ in self._record_keys())

    # -- reading -------------------------------------------------------------------------

    def get(self, repository: str, sha: str) -> CommitRecord | None:
        key = record_key(repository, sha)
        text = self._read(key)
        return None if text is None else self._parse(key, text)

    def record_text(self, repository: str, sha: str) -> str | None:
        """The record as stored (JSON), unparsed: a reader that kept what it made of a record
        can tell by the text whether the record changed."""
        return self._read(record_key(repository, sha))

    def parse_record(self, repository: str, sha: str, text: str) -> CommitRecord:
        """A record from its stored text (``record_text``)."""
        return self._parse(record_key(repository, sha), text)

    def __contains__(self, key: tuple[str, str]) -> bool:
        return record_key(*key) in self._cache

    def records(self, repository: str | None = None) -> Iterator[CommitRecord]:
        """Every stored record (of one repository if named), in key order."""
        prefix = _RECORD_PREFIX if repository is None else record_key(repository, "")
        for key in self._record_keys():
            if key.startswith(prefix):
                text = self._read(key)
                if text is not None:  # deleted by another process while we iterated
                    yield self._parse(key, text)

    def shas(self, repository: str) -> Iterator[str]:
        """The shas of ``repository``'s records, in key order, without reading the records."""
        prefix = record_key(repository, "")
        for key in self._keys(prefix):
            yield key[len(prefix) :]

    def find(self, sha_prefix: str, repository: str | None = None) -> list[CommitRecord]:
        """Records whose sha starts with ``sha_prefix`` (at least 4 hex digits)."""
        prefix = sha_prefix.strip().lower()
        if len(prefix) < 4:
            raise StoreError(f"sha prefix {sha_prefix!r} is too short: give at least 4 hex digits")
        # Only the records whose key matches are read: one damaged elsewhere does not hide this one.
        prefix_key = _RECORD_PREFIX if repository is None else record_key(repository, "")
        found = []
        for key in self._keys(prefix_key):
            if key.rsplit("/", 1)[-1].startswith(prefix):
                text = self._read(key)
                if text is not None:
                    found.append(self._parse(key, text))
        return found

    def repositories(self) -> list[str]:
        names = {key[len(_RECORD_PREFIX) :].rsplit("/", 1)[0] for key in self._record_keys()}
        return sorted(names)

    def newest_commit_time(self, repository: str) -> datetime | None:
        times = [record.commit.committed_at for record in self.records(repository)]
        return max(times, default=None)

    # -- writing -------------------------------------------------------------------------

    def put(self, record: CommitRecord) -> None:
        """Stores a record as given, replacing what was there (use ``merge`` to keep analyses)."""
        record = clean_record(record)
        self._write(record_key(*record.key), record.model_dump_json())

    def merge(
        self,
        incoming: CommitRecord,
        *,
        force: bool = False,
        replace: Callable[[Analysis | None], bool] | None = None,
    ) -> bool:
        """Stores ``incoming`` merged with what is stored; True when anything changed.

        The read and the write happen in one transaction, so two processes merging the same
        commit cannot lose either's analysis. ``replace`` forces the incoming analysis when it
        holds for the stored one, judged inside that transaction.
        """
        incoming = clean_record(incoming)
        key = record_key(*incoming.key)
        try:
            with self._cache.transact():
                text = self._read(key)
                existing = None if text is None else self._parse(key, text)
                forced = force or (replace is not None and replace(existing.analysis if existing else None))
                merged = merge_records(existing, incoming, force=forced)
                if merged == existing:
                    return False
                self._write(key, merged.model_dump_json())
                return True
        except sqlite3.Error as error:
            raise self._error(f"cannot write {key} to the store", error) from error

    def merge_all(self, records: Iterable[CommitRecord], *, force: bool = False) -> int:
        return sum(self.merge(record, force=force) for record in records)

    def add_commit(self, commit: Commit) -> bool:
        """Stores a newly collected commit; True when it was new. Never touches an analysis."""
        return self.merge(CommitRecord(commit=commit))

    def set_analysis(self, repository: str, sha: str, analysis: Analysis) -> None:
        """Replaces the analysis of a stored commit (the analyzers decide what replaces what)."""
        key = record_key(repository, sha)
        with self._cache.transact():
            text = self._read(key)
            if text is None:
                raise StoreError(f"cannot analyse {repository}@{sha}: the commit is not in the store")
            record = self._parse(key, text)
            self._write(key, record.model_copy(update={"analysis": analysis}).model_dump_json())

    def delete(self, repository: str, sha: str) -> bool:
        """Removes one record; True when it was there. Only for a record another one replaces
        (a legacy placeholder once its real commit is stored), never to drop an analysis."""
        return self._delete(record_key(repository, sha))

    def _delete(self, key: str) -> bool:
        """Removes one value and moves the revision on; True when it was there."""
        try:
            with self._cache.transact():
                deleted = bool(self._cache.delete(key, retry=True))
                if deleted:
                    self._count_write()
                return deleted
        except sqlite3.Error as error:
            raise self._error(f"cannot delete {key} from the store", error) from error

    def revision(self) -> str:
        """An opaque token that changes whenever any record, narrative or release is written or deleted.

        It names this store (a random id made when the store was created) and counts its
        record, narrative and release writes, so a store deleted and rebuilt never repeats an old token.
        """
        try:
            self._cache.add(_IDENTITY_KEY, uuid.uuid4().hex, retry=True)
            return f"{self._cache.get(_IDENTITY_KEY, retry=True)}:{self._cache.get(_REVISION_KEY, 0, retry=True)}"
        except UnreadableRow as error:
            raise self._damaged("cannot read the revision of the store", self._database, error.why) from error
        except sqlite3.Error as error:
            raise self._error("cannot read the revision of the store", error) from error

    # -- narratives: each week's few sentences per platform, written once -----------------

    def narrative(self, week: str, platform: str) -> WeekNarrative | None:
        """The narrative of ``week`` ("2026-W03") on ``platform`` ("rocm"), or None."""
        key = narrative_key(week, platform)
        text = self._read(key)
        return None if text is None else self._parse_narrative(key, text)

    def narratives(self) -> Iterator[WeekNarrative]:
        """Every stored narrative, by week (oldest first), then platform id."""
        for key in self._keys(_NARRATIVE_PREFIX):
            text = self._read(key)
            if text is not None:
                yield self._parse_narrative(key, text)

    def put_narrative(self, narrative: WeekNarrative) -> None:
        """Stores ``narrative``, replacing the week's narrative on its platform (a rewrite asked for)."""
        self._write(narrative_key(*narrative.key), narrative.model_dump_json())

    def merge_narrative(self, incoming: WeekNarrative) -> bool:
        """Stores ``incoming`` unless the stored narrative of its week and platform is as new or newer
        (restoring an older durable form never undoes a rewrite); True when it was stored."""
        key = narrative_key(*incoming.key)
        try:
            with self._cache.transact():
                text = self._read(key)
                if text is not None:
                    stored = self._parse_narrative(key, text)
                    if stored == incoming or stored.provenance.created_at >= incoming.provenance.created_at:
                        return False
                self._write(key, incoming.model_dump_json())
                return True
        except sqlite3.Error as error:
            raise self._error(f"cannot write {key} to the store", error) from error

    # -- releases: each release tag and the stored commits it released first --------------

    def release(self, repository: str, tag: str) -> Release | None:
        key = release_key(repository, tag)
        text = self._read(key)
        return None if text is None else self._parse_release(key, text)

    def releases(self, repository: str | None = None) -> Iterator[Release]:
        """Every stored release (of one repository if named), by repository, then in the order they
        were tagged (``tagged_at``, a tie by version)."""
        prefix = _RELEASE_PREFIX if repository is None else release_key(repository, "")
        found = []
        for key in self._keys(prefix):
            text = self._read(key)
            if text is not None:
                found.append(self._parse_release(key, text))
        yield from ordered(found)

    def put_release(self, release: Release) -> bool:
        """Stores ``release``, replacing the stored one of its tag; True when anything changed (an
        identical release is not rewritten, so the revision stays)."""
        key = release_key(*release.key)
        text = release.model_dump_json()
        try:
            with self._cache.transact():
                if self._read(key) == text:
                    return False
                self._write(key, text)
                return True
        except sqlite3.Error as error:
            raise self._error(f"cannot write {key} to the store", error) from error

    def merge_release(self, incoming: Release) -> bool:
        """Stores ``incoming`` unless its tag is stored already (the store is the working copy: a
        release in it was placed against at least the commits the durable form knew); True when stored."""
        key = release_key(*incoming.key)
        try:
            with self._cache.transact():
                if self._read(key) is not None:
                    return False
                self._write(key, incoming.model_dump_json())
                return True
        except sqlite3.Error as error:
            raise self._error(f"cannot write {key} to the store", error) from error

    def delete_release(self, repository: str, tag: str) -> bool:
        """Removes one release (its tag is no longer a release tag); True when it was there."""
        return self._delete(release_key(repository, tag))

    # -- metadata: small JSON values the pipeline keeps between runs ---------------------

    def get_meta(self, name: str) -> object | None:
        key = _META_PREFIX + name
        text = self._read(key)
        if text is None:
            return None
        try:
            return json.loads(text)
        except ValueError as error:
            raise self._damaged(f"cannot read {key}", self._database, f"its value is not JSON: {error}") from error

    def set_meta(self, name: str, value: object) -> None:
        self._write(_META_PREFIX + name, json.dumps(value, ensure_ascii=False, sort_keys=True))

    # -- leases: claims on commits between concurrent runs --------------------------------

    def acquire_lease(self, name: str, lease: Lease, *, lapsed: Callable[[Lease], bool]) -> bool:
        """Takes ``name`` for ``lease.holder`` unless another holder's lease is still running.

        Read and write happen in one transaction: of two processes asking at once, one wins.
        Leases are not records: they change neither the revision nor the durable form.
        """
        key = _LEASE_PREFIX + name
        try:
            with self._cache.transact():
                text = self._read(key)
                if text is not None:
                    held = self._parsed(key, text, Lease)
                    if held.holder != lease.holder and not lapsed(held):
                        return False
                self._cache.set(key, lease.model_dump_json(), retry=True)
                return True
        except sqlite3.Error as error:
            raise self._error(f"cannot write {key} to the store", error) from error

    def release_lease(self, name: str, holder: str) -> None:
        """Gives ``name`` up if ``holder`` still holds it (a lapsed lease may have been taken over)."""
        key = _LEASE_PREFIX + name
        try:
            with self._cache.transact():
                text = self._read(key)
                if text is not None and self._parsed(key, text, Lease).holder == holder:
                    self._cache.delete(key, retry=True)
        except sqlite3.Error as error:
            raise self._error(f"cannot write {key} to the store", error) from error

    # -- the diskcache edge ----------------------------------------------------------------

    def _record_keys(self) -> Iterator[str]:
        return self._keys(_RECORD_PREFIX)

    def _keys(self, prefix: str) -> Iterator[str]:
        """The keys starting with ``prefix``, in key order."""
        try:
            for key in self._cache.iterkeys():
                if isinstance(key, str) and key.startswith(prefix):
                    yield key
        except UnreadableRow as error:
            raise self._damaged("cannot list the store", self._database, error.why) from error
        except sqlite3.Error as error:
            raise self._error("cannot list the store", error) from error

    def _read(self, key: str) -> str | None:
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
                raise self._damaged(f"cannot read {key}", place, error.why) from error
            except sqlite3.Error as error:
                raise self._error(f"cannot read {key} from the store", error) from error
            if value is None:
                self._check_not_expired(key)
            elif not isinstance(value, str):
                raise self._damaged(f"cannot read {key}", self._database, "its value is not JSON text")
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
            raise self._error(f"cannot read {key} from the store", error) from error
        if rows:
            raise self._damaged(f"cannot read {key}", self._database, "its row is set to expire")

    def _write(self, key: str, text: str) -> None:
        try:
            if key.startswith((_RECORD_PREFIX, _NARRATIVE_PREFIX, _RELEASE_PREFIX)):
                with self._cache.transact():
                    self._cache.set(key, text, retry=True)
                    self._count_write()
                return
            self._cache.set(key, text, retry=True)
        except sqlite3.Error as error:
            raise self._error(f"cannot write {key} to the store", error) from error

    def _count_write(self) -> None:
        """Moves the revision on (inside the caller's transaction)."""
        try:
            self._cache.incr(_REVISION_KEY, retry=True)
        except TypeError as error:  # diskcache adds 1 to whatever the row holds
            raise self._damaged(
                f"cannot count a write in {_REVISION_KEY}", self._database, "its value is not a number"
            ) from error

    def _error(self, what: str, error: sqlite3.Error | OSError) -> StoreError:
        """One message for every failure of the store's files, with the way back when they are damaged."""
        text = str(error)
        damaged = type(error) is sqlite3.DatabaseError or any(
            sign in text for sign in ("malformed", "not a database", "file is encrypted")
        )
        if not damaged:
            return StoreError(f"{what} at {self.directory}: {text}")
        return self._damaged(what, self._database, text)

    def _damaged(self, what: str, place: Path, why: str) -> StoreError:
        """The one-line error for a damaged store: what failed, the file, why, and the way back."""
        broken = self.directory.with_name(self.directory.name + ".damaged")
        message = (
            f"{what}: {place} is damaged ({why}). Rebuild the store from the durable form (the data "
            f"branch's folder, data/ by default) with no LLM calls: "
            f"mv {self.directory} {broken} && commit-digest restore --cache {self.directory} --durable-dir data"
        )
        # Keys and file names come from the rows: a newline in one must not start a second line.
        return StoreError("".join(c if c.isprintable() else ascii(c)[1:-1] for c in message))

    def _parsed(self, key: str, text: str, model: type[_Model]) -> _Model:
        try:
            return model.model_validate_json(text)
        except ValidationError as error:
            why = f"its value does not match the schema: {first_problem(error)}"
            raise self._damaged(f"cannot read {key}", self._database, why) from error

    def _parse_narrative(self, key: str, text: str) -> WeekNarrative:
        return self._parsed(key, text, WeekNarrative)

    def _parse_release(self, key: str, text: str) -> Release:
        return self._parsed(key, text, Release)

    def _parse(self, key: str, text: str) -> CommitRecord:
        return self._parsed(key, text, CommitRecord)
