import multiprocessing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from commit_digest.errors import StoreError
from commit_digest.models import (
    Analysis,
    AnalysisStatus,
    CommitRecord,
    Importance,
    Provenance,
)
from commit_digest.store.analysis_store import AnalysisStore
from tests.factories import REPOSITORY, make_commit

T0 = datetime(2026, 1, 9, tzinfo=UTC)


def analysis(analyzer: str, *, minutes: int = 0, status: AnalysisStatus = AnalysisStatus.OK) -> Analysis:
    ok = status is AnalysisStatus.OK
    return Analysis(
        importance=Importance.MEDIUM if ok else None,
        summary=(f"by {analyzer}",) if ok else (),
        provenance=Provenance(
            analyzer=analyzer,
            created_at=T0 + timedelta(minutes=minutes),
            status=status,
            error=None if ok else f"{analyzer} failed",
        ),
    )


def test_records_round_trip_as_json_text(store: AnalysisStore) -> None:
    record = CommitRecord(commit=make_commit(1, body="多行\n消息 <b>"), analysis=analysis("offline"))
    store.put(record)
    assert store.get(REPOSITORY, record.commit.sha) == record
    assert list(store.records()) == [record]
    assert store.find(record.commit.sha[:8]) == [record]
    assert store.repositories() == [REPOSITORY]
    # Values are JSON text in the cache, never pickles.
    raw = store._rows._cache.get(f"commit/{REPOSITORY}/{record.commit.sha}")
    assert isinstance(raw, str) and raw.startswith("{")


def test_a_paid_analysis_is_never_replaced_by_a_cheaper_one(store: AnalysisStore) -> None:
    commit = make_commit(2)
    store.merge(CommitRecord(commit=commit, analysis=analysis("llm:gpt-4o-mini")))
    assert not store.merge(CommitRecord(commit=commit, analysis=analysis("offline", minutes=5)))
    assert not store.merge(CommitRecord(commit=commit, analysis=analysis("legacy:old.md", minutes=5)))
    kept = store.get(REPOSITORY, commit.sha)
    assert kept is not None and kept.analysis is not None
    assert kept.analysis.provenance.analyzer == "llm:gpt-4o-mini"
    # ... unless forced.
    store.merge(CommitRecord(commit=commit, analysis=analysis("legacy:old.md")), force=True)
    forced = store.get(REPOSITORY, commit.sha)
    assert forced is not None and forced.analysis is not None
    assert forced.analysis.provenance.analyzer == "legacy:old.md"


def test_a_failed_attempt_keeps_the_analysis_and_is_remembered(store: AnalysisStore) -> None:
    commit = make_commit(3)
    store.merge(CommitRecord(commit=commit, analysis=analysis("offline")))
    store.merge(CommitRecord(commit=commit, analysis=analysis("llm:m", minutes=1, status=AnalysisStatus.FAILED)))
    record = store.get(REPOSITORY, commit.sha)
    assert record is not None and record.analysis is not None
    assert record.analysis.provenance.analyzer == "offline"
    assert record.failure is not None and record.failure.error == "llm:m failed"
    # A later success clears it.
    store.merge(CommitRecord(commit=commit, analysis=analysis("llm:m", minutes=2)))
    record = store.get(REPOSITORY, commit.sha)
    assert record is not None and record.failure is None
    assert record.analysis is not None and record.analysis.provenance.analyzer == "llm:m"


def test_adding_a_known_commit_changes_nothing(store: AnalysisStore) -> None:
    commit = make_commit(4)
    assert store.add_commit(commit)
    store.set_analysis(REPOSITORY, commit.sha, analysis("offline"))
    assert not store.add_commit(commit)
    record = store.get(REPOSITORY, commit.sha)
    assert record is not None and record.analysis is not None


def test_a_store_past_its_size_limit_loses_nothing(tmp_path: Path) -> None:
    big_body = "x" * 20_000
    with AnalysisStore(tmp_path / "small", size_limit=50_000) as small:
        for number in range(60):  # ~1.2 MB: 24 times the limit
            small.put(CommitRecord(commit=make_commit(number, body=big_body), analysis=analysis("offline")))
    with AnalysisStore(tmp_path / "small", size_limit=50_000) as reopened:
        assert len(reopened) == 60
        assert all(record.commit.body == big_body for record in reopened.records())


def _write_many(directory: str, start: int, count: int) -> None:
    with AnalysisStore(directory) as store:
        for number in range(start, start + count):
            store.merge(CommitRecord(commit=make_commit(number), analysis=analysis("offline")))
            # Both processes also fight over one shared commit.
            store.merge(
                CommitRecord(
                    commit=make_commit(10_000), analysis=analysis("llm:m" if start else "offline", minutes=number)
                )
            )


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    directory = str(tmp_path / "shared")
    AnalysisStore(directory).close()
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_write_many, args=(directory, start, 150)) for start in (0, 1000)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=120)
        assert writer.exitcode == 0
    with AnalysisStore(directory) as store:
        assert len(store) == 301
        shared = store.get(REPOSITORY, make_commit(10_000).sha)
        assert shared is not None and shared.analysis is not None
        # The LLM analysis wins whichever process wrote last.
        assert shared.analysis.provenance.analyzer == "llm:m"


def test_a_corrupt_value_is_an_error_naming_the_key(store: AnalysisStore) -> None:
    store._rows._cache.set(f"commit/{REPOSITORY}/{'b' * 40}", '{"commit": {}}')
    with pytest.raises(StoreError, match=f"commit/{REPOSITORY}/{'b' * 40}.*does not match the schema"):
        list(store.records())


def test_a_store_that_is_not_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a store")
    with pytest.raises(StoreError, match="cannot open the store"):
        AnalysisStore(blocker)


def test_meta_values_are_json(store: AnalysisStore) -> None:
    store.set_meta("batch", {"id": "batch_1", "shas": ["a"]})
    assert store.get_meta("batch") == {"id": "batch_1", "shas": ["a"]}
    assert store.get_meta("missing") is None
    assert len(store) == 0


def test_the_revision_changes_with_every_record_write_and_only_then(tmp_path: Path) -> None:
    with AnalysisStore(tmp_path / "r") as store:
        empty = store.revision()
        commit = make_commit(1)
        store.merge(CommitRecord(commit=commit))
        after_add = store.revision()
        assert after_add != empty
        assert not store.merge(CommitRecord(commit=commit))  # nothing changed: nothing written
        store.set_meta("note", {"x": 1})
        assert store.revision() == after_add
        store.set_analysis(commit.repository, commit.sha, analysis("offline"))
        after_analysis = store.revision()
        assert after_analysis != after_add
        store.delete(commit.repository, commit.sha)
        assert store.revision() != after_analysis
    # A store made anew never repeats an old token, even with the same number of writes.
    with AnalysisStore(tmp_path / "other") as other:
        assert other.revision() != empty
