"""Stored records read when a page asks for them, not held for the whole build.

A site index keeps what listings show of each commit (its title, time, labels, importance); a
commit's whole record (message, files, analysis) is read from the store only by the pages that
show it, and only the last few hundred parsed are kept. A build's memory then grows with the
summaries (about a kilobyte per commit), not with the records, and each forked worker reads the
records of the pages it renders through its own connection to the store.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from commit_digest.errors import StoreError
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore

if TYPE_CHECKING:
    from commit_digest.site.model.wording import Worded, Wording

# Enough for a day page and its commits' pages, or a search partition's stretch of days.
CAPACITY = 512


@dataclass
class _Read:
    """A record read back, and its analysis once worded."""

    record: CommitRecord
    worded: Worded | None = None


class RecordSource:
    def __init__(self, directory: Path, *, capacity: int = CAPACITY) -> None:
        self.directory = directory
        self.capacity = capacity
        self._store: AnalysisStore | None = None
        self._pid = 0
        self._kept: OrderedDict[tuple[str, str], _Read] = OrderedDict()

    def record(self, repository: str, sha: str) -> CommitRecord:
        return self._entry(repository, sha).record

    def worded(self, repository: str, sha: str, wording: Wording) -> Worded:
        """The record's analysis in the site's language, worded once while the record is kept."""
        entry = self._entry(repository, sha)
        if entry.worded is None:
            entry.worded = wording.word(entry.record)
        return entry.worded

    def _entry(self, repository: str, sha: str) -> _Read:
        key = (repository, sha)
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
            return found
        record = self._open().get(repository, sha)
        if record is None:
            raise StoreError(f"{repository}@{sha} left the store at {self.directory} while the site was built")
        found = self._kept[key] = _Read(record)
        if len(self._kept) > self.capacity:
            self._kept.popitem(last=False)
        return found

    def _open(self) -> AnalysisStore:
        """The store, opened once per process (a forked worker opens its own)."""
        if self._store is None or self._pid != os.getpid():
            self._store = AnalysisStore(self.directory)
            self._pid = os.getpid()
        return self._store

    def close(self) -> None:
        if self._store is not None and self._pid == os.getpid():
            self._store.close()
        self._store = None
        self._kept.clear()
