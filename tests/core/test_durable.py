from datetime import UTC, datetime
from pathlib import Path

import pytest

from commit_digest.errors import InputError
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import restore_durable, save_durable
from tests.core.test_store import analysis
from tests.factories import make_commit


def records_over_two_months() -> list[CommitRecord]:
    return [
        CommitRecord(
            commit=make_commit(number, when=datetime(2026, 1 + number % 2, 10 + number % 5, 8, number, tzinfo=UTC)),
            analysis=analysis("llm:m") if number % 2 else analysis("offline"),
        )
        for number in range(20)
    ]


def test_save_splits_by_month_and_rewrites_only_changed_files(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        store.merge_all(records_over_two_months())
        first = save_durable(store, durable)
        assert (first.files_written, first.records) == (2, 20)
        files = sorted(path.relative_to(durable).as_posix() for path in durable.rglob("*.jsonl"))
        assert files == ["vllm-project/vllm/2026-01.jsonl", "vllm-project/vllm/2026-02.jsonl"]
        january = durable / "vllm-project/vllm/2026-01.jsonl"
        before = january.stat().st_mtime_ns
        # A new commit in February rewrites February only.
        store.merge(CommitRecord(commit=make_commit(99, when=datetime(2026, 2, 20, tzinfo=UTC))))
        second = save_durable(store, durable)
        assert (second.files_written, second.files_unchanged) == (1, 1)
        assert january.stat().st_mtime_ns == before


def test_restoring_the_durable_form_alone_gives_the_same_store(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        store.merge_all(records_over_two_months())
        save_durable(store, durable)
        originals = sorted(store.records(), key=lambda record: record.commit.sha)
    with AnalysisStore(tmp_path / "fresh") as fresh:
        result = restore_durable(fresh, durable)
        assert (result.records, result.changed, result.skipped) == (20, 20, False)
        assert sorted(fresh.records(), key=lambda record: record.commit.sha) == originals
        # The second restore sees the same digest and does nothing.
        assert restore_durable(fresh, durable).skipped


def test_restoring_into_a_newer_store_keeps_its_better_analyses(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    commit = make_commit(1)
    with AnalysisStore(tmp_path / "store") as store:
        store.merge(CommitRecord(commit=commit, analysis=analysis("offline")))
        save_durable(store, durable)
        store.merge(CommitRecord(commit=commit, analysis=analysis("llm:m", minutes=3)))
        store.set_meta("durable-restored-digest", "something else")
        restore_durable(store, durable)
        kept = store.get(commit.repository, commit.sha)
        assert kept is not None and kept.analysis is not None
        assert kept.analysis.provenance.analyzer == "llm:m"


def test_a_corrupt_month_file_changes_nothing(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        store.merge_all(records_over_two_months())
        save_durable(store, durable)
    (durable / "vllm-project/vllm/2026-02.jsonl").write_text("{not json\n")
    with AnalysisStore(tmp_path / "fresh") as fresh:
        with pytest.raises(InputError, match=r"2026-02.jsonl: changed \(1 line where the manifest lists 10 records"):
            restore_durable(fresh, durable)
        assert len(fresh) == 0


def _saved(tmp_path: Path) -> Path:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        store.merge_all(records_over_two_months())
        save_durable(store, durable)
    return durable


def test_a_month_file_an_editor_saved_with_a_byte_order_mark_restores(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    month = durable / "vllm-project/vllm/2026-02.jsonl"
    month.write_text("\ufeff" + month.read_text(encoding="utf-8"), encoding="utf-8")
    with AnalysisStore(tmp_path / "fresh") as fresh:
        assert restore_durable(fresh, durable).records == 20


@pytest.mark.parametrize("damage", ["endless", "binary"])
def test_a_month_file_with_no_end_or_no_text_is_an_error_naming_it_and_stores_nothing(
    tmp_path: Path, damage: str
) -> None:
    durable = _saved(tmp_path)
    month = durable / "vllm-project/vllm/2026-02.jsonl"
    month.unlink()
    if damage == "endless":
        month.symlink_to("/dev/zero")  # a checkout of a hostile data branch
    else:
        month.write_bytes(b'{"commit": "\xff\xfe\x00"}\n')
    with AnalysisStore(tmp_path / "fresh") as fresh:
        with pytest.raises(InputError, match=r"2026-02.jsonl"):
            restore_durable(fresh, durable)
        assert len(fresh) == 0
