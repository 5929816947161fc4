"""The analysis store: commits and their analyses, the weeks' narratives, the days' briefs and the
releases, as typed values.

One record per commit, keyed by repository and sha; beside the commits, each week's narrative per
platform (``narratives``), each day's brief per platform (``briefs``) and each release tag of a
repository with the commits it released first (``releases``), under keys of their own. Values are
JSON text, never pickles, kept in the rows of ``rows`` (the only user of diskcache): this module
names the keys, cleans what enters, merges what meets (``merge``) and parses what is read. Analyses
are paid for, so the rows are never evicted: a size limit only stops culling, it never drops a
record. SQLite underneath lets several processes read and write at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Self

from commit_digest.errors import StoreError
from commit_digest.meaning.releases import Release, ordered
from commit_digest.models import Analysis, Commit, CommitRecord
from commit_digest.store.briefs import DayBrief
from commit_digest.store.hygiene import clean_record
from commit_digest.store.leases import Lease
from commit_digest.store.merge import merge_records
from commit_digest.store.narratives import WeekNarrative
from commit_digest.store.rows import DEFAULT_SIZE_LIMIT, StoreRows

logger = logging.getLogger("mkdocs.plugins.commit_digest.store.analysis_store")

_RECORD_PREFIX = "commit/"
_NARRATIVE_PREFIX = "narrative/"
_RELEASE_PREFIX = "release/"
_BRIEF_PREFIX = "brief/"


def record_key(repository: str, sha: str) -> str:
    return f"{_RECORD_PREFIX}{repository}/{sha}"


def narrative_key(week: str, platform: str) -> str:
    return f"{_NARRATIVE_PREFIX}{week}/{platform}"


def brief_key(day: str, platform: str) -> str:
    return f"{_BRIEF_PREFIX}{day}/{platform}"


def release_key(repository: str, tag: str) -> str:
    return f"{_RELEASE_PREFIX}{repository}/{tag}"


class AnalysisStore:
    """A directory of commits and their analyses. Opening it touches only local files."""

    def __init__(self, directory: Path | str, *, size_limit: int = DEFAULT_SIZE_LIMIT) -> None:
        self._rows = StoreRows(directory, size_limit=size_limit)
        self.directory = self._rows.directory

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._rows.close()

    def __len__(self) -> int:
        return sum(1 for _ in self._rows.keys(_RECORD_PREFIX))

    # -- reading -------------------------------------------------------------------------

    def get(self, repository: str, sha: str) -> CommitRecord | None:
        key = record_key(repository, sha)
        text = self._rows.read(key)
        return None if text is None else self._parse(key, text)

    def record_text(self, repository: str, sha: str) -> str | None:
        """The record as stored (JSON), unparsed: a reader that kept what it made of a record
        can tell by the text whether the record changed."""
        return self._rows.read(record_key(repository, sha))

    def parse_record(self, repository: str, sha: str, text: str) -> CommitRecord:
        """A record from its stored text (``record_text``)."""
        return self._parse(record_key(repository, sha), text)

    def __contains__(self, key: tuple[str, str]) -> bool:
        return record_key(*key) in self._rows

    def records(self, repository: str | None = None) -> Iterator[CommitRecord]:
        """Every stored record (of one repository if named), in key order."""
        prefix = _RECORD_PREFIX if repository is None else record_key(repository, "")
        for key in self._rows.keys(_RECORD_PREFIX):
            if key.startswith(prefix):
                text = self._rows.read(key)
                if text is not None:  # deleted by another process while we iterated
                    yield self._parse(key, text)

    def shas(self, repository: str) -> Iterator[str]:
        """The shas of ``repository``'s records, in key order, without reading the records."""
        prefix = record_key(repository, "")
        for key in self._rows.keys(prefix):
            yield key[len(prefix) :]

    def find(self, sha_prefix: str, repository: str | None = None) -> list[CommitRecord]:
        """Records whose sha starts with ``sha_prefix`` (at least 4 hex digits)."""
        prefix = sha_prefix.strip().lower()
        if len(prefix) < 4:
            raise StoreError(f"sha prefix {sha_prefix!r} is too short: give at least 4 hex digits")
        # Only the records whose key matches are read: one damaged elsewhere does not hide this one.
        prefix_key = _RECORD_PREFIX if repository is None else record_key(repository, "")
        found = []
        for key in self._rows.keys(prefix_key):
            if key.rsplit("/", 1)[-1].startswith(prefix):
                text = self._rows.read(key)
                if text is not None:
                    found.append(self._parse(key, text))
        return found

    def repositories(self) -> list[str]:
        names = {key[len(_RECORD_PREFIX) :].rsplit("/", 1)[0] for key in self._rows.keys(_RECORD_PREFIX)}
        return sorted(names)

    def newest_commit_time(self, repository: str) -> datetime | None:
        times = [record.commit.committed_at for record in self.records(repository)]
        return max(times, default=None)

    # -- writing -------------------------------------------------------------------------

    def put(self, record: CommitRecord) -> None:
        """Stores a record as given, replacing what was there (use ``merge`` to keep analyses)."""
        record = clean_record(record)
        self._rows.write(record_key(*record.key), record.model_dump_json())

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
        with self._rows.transaction(f"cannot write {key} to the store"):
            text = self._rows.read(key)
            existing = None if text is None else self._parse(key, text)
            forced = force or (replace is not None and replace(existing.analysis if existing else None))
            merged = merge_records(existing, incoming, force=forced)
            if merged == existing:
                return False
            self._rows.write(key, merged.model_dump_json())
            return True

    def merge_all(self, records: Iterable[CommitRecord], *, force: bool = False) -> int:
        return sum(self.merge(record, force=force) for record in records)

    def add_commit(self, commit: Commit) -> bool:
        """Stores a newly collected commit; True when it was new. Never touches an analysis."""
        return self.merge(CommitRecord(commit=commit))

    def set_analysis(self, repository: str, sha: str, analysis: Analysis) -> None:
        """Replaces the analysis of a stored commit (the analyzers decide what replaces what)."""
        key = record_key(repository, sha)
        with self._rows.transaction():
            text = self._rows.read(key)
            if text is None:
                raise StoreError(f"cannot analyse {repository}@{sha}: the commit is not in the store")
            record = self._parse(key, text)
            self._rows.write(key, record.model_copy(update={"analysis": analysis}).model_dump_json())

    def delete(self, repository: str, sha: str) -> bool:
        """Removes one record; True when it was there. Only for a record another one replaces
        (a legacy placeholder once its real commit is stored), never to drop an analysis."""
        return self._rows.delete(record_key(repository, sha))

    def revision(self) -> str:
        """An opaque token that changes whenever any record, narrative or release is written or deleted
        (see ``StoreRows.revision``)."""
        return self._rows.revision()

    # -- narratives: each week's few sentences per platform, written once -----------------

    def narrative(self, week: str, platform: str) -> WeekNarrative | None:
        """The narrative of ``week`` ("2026-W03") on ``platform`` ("rocm"), or None."""
        key = narrative_key(week, platform)
        text = self._rows.read(key)
        return None if text is None else self._parse_narrative(key, text)

    def narratives(self) -> Iterator[WeekNarrative]:
        """Every stored narrative, by week (oldest first), then platform id."""
        for key in self._rows.keys(_NARRATIVE_PREFIX):
            text = self._rows.read(key)
            if text is not None:
                yield self._parse_narrative(key, text)

    def put_narrative(self, narrative: WeekNarrative) -> None:
        """Stores ``narrative``, replacing the week's narrative on its platform (a rewrite asked for)."""
        self._rows.write(narrative_key(*narrative.key), narrative.model_dump_json())

    def merge_narrative(self, incoming: WeekNarrative) -> bool:
        """Stores ``incoming`` unless the stored narrative of its week and platform is as new or newer
        (restoring an older durable form never undoes a rewrite); True when it was stored."""
        key = narrative_key(*incoming.key)
        with self._rows.transaction(f"cannot write {key} to the store"):
            text = self._rows.read(key)
            if text is not None:
                stored = self._parse_narrative(key, text)
                if stored == incoming or stored.provenance.created_at >= incoming.provenance.created_at:
                    return False
            self._rows.write(key, incoming.model_dump_json())
            return True

    # -- briefs: each day's few sentences per platform, asked again when the day's analyses change --

    def brief(self, day: str, platform: str) -> DayBrief | None:
        """The brief of ``day`` ("2026-03-04") on ``platform`` ("rocm", or "all": the whole day's), or None."""
        key = brief_key(day, platform)
        text = self._rows.read(key)
        return None if text is None else self._rows.parsed(key, text, DayBrief)

    def briefs(self) -> Iterator[DayBrief]:
        """Every stored brief, by day (oldest first), then platform id."""
        for key in self._rows.keys(_BRIEF_PREFIX):
            text = self._rows.read(key)
            if text is not None:
                yield self._rows.parsed(key, text, DayBrief)

    def put_brief(self, brief: DayBrief) -> None:
        """Stores ``brief``, replacing the day's brief on its platform (its analyses changed, or a rewrite)."""
        self._rows.write(brief_key(*brief.key), brief.model_dump_json())

    def merge_brief(self, incoming: DayBrief) -> bool:
        """Stores ``incoming`` unless the stored brief of its day and platform is as new or newer
        (restoring an older durable form never undoes a newer brief); True when it was stored."""
        key = brief_key(*incoming.key)
        with self._rows.transaction(f"cannot write {key} to the store"):
            text = self._rows.read(key)
            if text is not None:
                stored = self._rows.parsed(key, text, DayBrief)
                if stored == incoming or stored.provenance.created_at >= incoming.provenance.created_at:
                    return False
            self._rows.write(key, incoming.model_dump_json())
            return True

    # -- releases: each release tag and the stored commits it released first --------------

    def release(self, repository: str, tag: str) -> Release | None:
        key = release_key(repository, tag)
        text = self._rows.read(key)
        return None if text is None else self._parse_release(key, text)

    def releases(self, repository: str | None = None) -> Iterator[Release]:
        """Every stored release (of one repository if named), by repository, then in the order they
        were tagged (``tagged_at``, a tie by version)."""
        prefix = _RELEASE_PREFIX if repository is None else release_key(repository, "")
        found = []
        for key in self._rows.keys(prefix):
            text = self._rows.read(key)
            if text is not None:
                found.append(self._parse_release(key, text))
        yield from ordered(found)

    def put_release(self, release: Release) -> bool:
        """Stores ``release``, replacing the stored one of its tag; True when anything changed (an
        identical release is not rewritten, so the revision stays)."""
        key = release_key(*release.key)
        text = release.model_dump_json()
        with self._rows.transaction(f"cannot write {key} to the store"):
            if self._rows.read(key) == text:
                return False
            self._rows.write(key, text)
            return True

    def merge_release(self, incoming: Release) -> bool:
        """Stores ``incoming`` unless its tag is stored already (the store is the working copy: a
        release in it was placed against at least the commits the durable form knew); True when stored."""
        key = release_key(*incoming.key)
        with self._rows.transaction(f"cannot write {key} to the store"):
            if self._rows.read(key) is not None:
                return False
            self._rows.write(key, incoming.model_dump_json())
            return True

    def delete_release(self, repository: str, tag: str) -> bool:
        """Removes one release (its tag is no longer a release tag); True when it was there."""
        return self._rows.delete(release_key(repository, tag))

    # -- metadata and leases: kept in rows of their own, never counted as writes -----------

    def get_meta(self, name: str) -> object | None:
        return self._rows.get_meta(name)

    def set_meta(self, name: str, value: object) -> None:
        self._rows.set_meta(name, value)

    def acquire_lease(self, name: str, lease: Lease, *, lapsed: Callable[[Lease], bool]) -> bool:
        """Takes ``name`` for ``lease.holder`` unless another holder's lease is still running (see
        ``StoreRows.acquire_lease``)."""
        return self._rows.acquire_lease(name, lease, lapsed=lapsed)

    def release_lease(self, name: str, holder: str) -> None:
        """Gives ``name`` up if ``holder`` still holds it (a lapsed lease may have been taken over)."""
        self._rows.release_lease(name, holder)

    # -- parsing ---------------------------------------------------------------------------

    def _parse_narrative(self, key: str, text: str) -> WeekNarrative:
        return self._rows.parsed(key, text, WeekNarrative)

    def _parse_release(self, key: str, text: str) -> Release:
        return self._rows.parsed(key, text, Release)

    def _parse(self, key: str, text: str) -> CommitRecord:
        return self._rows.parsed(key, text, CommitRecord)
