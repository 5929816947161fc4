"""A site index made from the store keeps summaries; pages read records back, a bounded few at a time."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from commit_digest.errors import StoreError
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.site.model.index import build_index
from commit_digest.site.model.record_source import RecordSource
from commit_digest.store.analysis_store import AnalysisStore
from tests.site.factories import REPOSITORY, sample_records


def test_an_index_from_the_store_holds_no_record_and_reads_each_when_asked(tmp_path: Path) -> None:
    records = sample_records()
    with AnalysisStore(tmp_path / "cache") as store:
        for record in records:
            store.put(record)
    source = RecordSource(tmp_path / "cache", capacity=2)
    with AnalysisStore(tmp_path / "cache") as store:
        index = build_index(
            store.records(), repository=REPOSITORY, zone=ZoneInfo("UTC"), taxonomy=load_taxonomy(), source=source
        )
    commits = [item for day in index.days for item in day.commits]
    assert len(commits) == len(records) and all(item.kept is None for item in commits)
    by_sha = {record.commit.sha: record for record in records}
    for item in commits:
        assert item.record == by_sha[item.sha]
        assert item.title == by_sha[item.sha].commit.title
        assert item.analysis is not None or by_sha[item.sha].analysis is None or not by_sha[item.sha].analysis.ok
    assert len(source._kept) == 2  # the last two read, no more
    with AnalysisStore(tmp_path / "cache") as store:
        store.delete(REPOSITORY, commits[0].sha)
    source.close()
    with pytest.raises(StoreError, match="left the store"):
        _ = commits[0].record
