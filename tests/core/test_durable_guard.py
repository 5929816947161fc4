"""The durable form never shrinks by accident: a save refuses to drop what the store lacks, a
restore checks every file against the manifest, and a save stopped half-way leaves files the
manifest accepts."""

from __future__ import annotations

import errno
import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from commit_digest.errors import StoreError
from commit_digest.models import CommitRecord
from commit_digest.store import durable_files
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import restore_durable, save_durable, save_notifications
from commit_digest.store.durable_files import DurableFormDamaged, DurableShrinkRefused
from commit_digest.store.notification_ledger import Delivery, NotificationLedger
from tests.core.test_durable import records_over_two_months
from tests.core.test_store import analysis
from tests.factories import make_commit

JANUARY = "vllm-project/vllm/2026-01.jsonl"
FEBRUARY = "vllm-project/vllm/2026-02.jsonl"
LEDGER = "notifications/2026.jsonl"


def _snapshot(durable: Path) -> dict[str, bytes]:
    return {path.relative_to(durable).as_posix(): path.read_bytes() for path in durable.rglob("*") if path.is_file()}


def _saved(tmp_path: Path) -> Path:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        store.merge_all(records_over_two_months())
        ledger = NotificationLedger(store)
        for day in range(1, 7):
            for channel in ("feishu", "slack"):
                sent = datetime(2026, 1, day, 9, tzinfo=UTC)
                ledger.merge([Delivery(channel=channel, day=date(2026, 1, day), sent_at=sent)])
        save_durable(store, durable)
    return durable


def _sorted(store: AnalysisStore) -> list[CommitRecord]:
    return sorted(store.records(), key=lambda record: record.commit.sha)


def test_the_manifest_counts_the_records_of_each_file(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    manifest = json.loads((durable / "manifest.json").read_text())
    assert manifest["counts"] == {JANUARY: 10, FEBRUARY: 10, LEDGER: 12}
    assert "pending" not in manifest
    assert not list(durable.rglob("*.partial"))


def test_a_save_from_a_store_missing_records_refuses_and_prune_allows_it(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    before = _snapshot(durable)
    with AnalysisStore(tmp_path / "fresh") as fresh:  # the cache was lost and not restored
        fresh.merge(CommitRecord(commit=make_commit(50, when=datetime(2026, 2, 20, tzinfo=UTC))))
        with pytest.raises(DurableShrinkRefused) as refused:
            save_durable(fresh, durable)
        message = str(refused.value)
        assert "\n" not in message and f"commit-digest restore --durable-dir {durable}" in message
        assert f"{FEBRUARY} (10 of its records are not in the store)" in message and JANUARY in message
        assert f"{LEDGER} (12 of its records" in message
        assert _snapshot(durable) == before

        pruned = save_durable(fresh, durable, prune=True)
        assert pruned.records == 1
        assert sorted(_snapshot(durable)) == ["manifest.json", FEBRUARY]


def test_a_save_from_a_store_holding_every_record_goes_on(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    with AnalysisStore(tmp_path / "store") as store:
        store.merge(CommitRecord(commit=make_commit(99, when=datetime(2026, 2, 25, tzinfo=UTC))))
        assert save_durable(store, durable).files_written == 1


def test_a_damaged_file_refuses_the_save_even_when_the_store_holds_all(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    month = durable / FEBRUARY
    month.write_bytes(month.read_bytes()[:-40])  # cut mid-line
    before = _snapshot(durable)
    with AnalysisStore(tmp_path / "store") as store:
        with pytest.raises(DurableShrinkRefused, match=r"2026-02.jsonl \(cut mid-line \(line 10 has no end\)\)"):
            save_durable(store, durable)
        assert _snapshot(durable) == before
        save_durable(store, durable, prune=True)
    with AnalysisStore(tmp_path / "again") as again:
        assert restore_durable(again, durable).records == 20


def test_a_manifest_that_cannot_be_read_refuses_the_save(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    (durable / "manifest.json").write_text('{"files": ')
    with AnalysisStore(tmp_path / "store") as store, pytest.raises(DurableFormDamaged, match=r"manifest\.json"):
        save_durable(store, durable)


def test_save_notifications_refuses_to_shrink_the_ledger(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    with AnalysisStore(tmp_path / "fresh") as fresh:
        NotificationLedger(fresh).merge(
            [Delivery(channel="slack", day=date(2026, 1, 9), sent_at=datetime(2026, 1, 9, 9, tzinfo=UTC))]
        )
        with pytest.raises(DurableShrinkRefused, match=r"notifications/2026.jsonl \(12 of its records"):
            save_notifications(fresh, durable)


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        ("cut", f"{FEBRUARY}: cut mid-line (10 lines where the manifest lists 10 records"),
        ("cut in a character", f"{FEBRUARY}: cut mid-line (10 lines where the manifest lists 10 records"),
        ("line removed", f"{FEBRUARY}: changed (9 lines where the manifest lists 10 records"),
        ("file deleted", f"{FEBRUARY}: missing (10 records)"),
        ("ledger halved", f"{LEDGER}: changed (6 lines where the manifest lists 12 records"),
        ("unknown file", "vllm-project/vllm/2025-12.jsonl: not in manifest.json"),
    ],
)
def test_restore_names_each_damaged_file_changes_nothing_and_partial_restores_the_rest(
    tmp_path: Path, damage: str, said: str
) -> None:
    durable = _saved(tmp_path)
    month, ledger = durable / FEBRUARY, durable / LEDGER
    if damage == "cut":
        month.write_bytes(month.read_bytes()[:-40])
    elif damage == "cut in a character":  # bytes cut inside a character: the file is no longer UTF-8
        month.write_bytes(month.read_bytes()[:-40] + "中".encode()[:2])
    elif damage == "line removed":
        month.write_text("".join(month.read_text().splitlines(keepends=True)[1:]))
    elif damage == "file deleted":
        month.unlink()
    elif damage == "ledger halved":
        ledger.write_text("".join(ledger.read_text().splitlines(keepends=True)[:6]))
    else:
        (durable / "vllm-project/vllm/2025-12.jsonl").write_text("")
    with AnalysisStore(tmp_path / "fresh") as fresh:
        with pytest.raises(DurableFormDamaged) as damaged:
            restore_durable(fresh, durable)
        assert said in str(damaged.value) and "\n" not in str(damaged.value)
        assert len(fresh) == 0 and not list(NotificationLedger(fresh).deliveries())

        result = restore_durable(fresh, durable, partial=True)
        assert len(result.left_out) == 1 and said in result.left_out[0]
        # A damaged file's valid lines are restored: only the cut or removed line is missing.
        assert len(fresh) == {"cut": 19, "cut in a character": 19, "line removed": 19, "file deleted": 10}.get(
            damage, 20
        )
        if damage in ("cut", "cut in a character", "line removed"):
            left = int(damage != "line removed")
            assert result.left_out[0].endswith(f": its 9 valid lines restored, {left} left out")
        if damage == "ledger halved":
            assert len(list(NotificationLedger(fresh).deliveries())) == 6
        # Not noted as matching: the next restore checks and merges again.
        assert not restore_durable(fresh, durable, partial=True).skipped


def test_no_manifest_beside_data_files_is_damage_not_an_empty_durable_form(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    (durable / "manifest.json").unlink()
    with AnalysisStore(tmp_path / "fresh") as fresh:
        with pytest.raises(DurableFormDamaged, match=r"manifest.json: missing, so none of its 3 files can be checked"):
            restore_durable(fresh, durable)
        assert len(fresh) == 0
        result = restore_durable(fresh, durable, partial=True)
        assert len(fresh) == 20 and result.left_out == (
            "manifest.json: missing, so none of its 3 files can be checked",
        )


def test_an_old_manifest_without_counts_still_restores(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    manifest = json.loads((durable / "manifest.json").read_text())
    del manifest["counts"]
    (durable / "manifest.json").write_text(json.dumps(manifest))
    with AnalysisStore(tmp_path / "fresh") as fresh:
        assert restore_durable(fresh, durable).records == 20
    (durable / FEBRUARY).unlink()
    with AnalysisStore(tmp_path / "other") as other, pytest.raises(DurableFormDamaged, match=f"{FEBRUARY}: missing\\."):
        restore_durable(other, durable)


def test_a_save_that_fails_half_way_leaves_files_the_manifest_accepts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    durable = _saved(tmp_path)
    before = _snapshot(durable)
    real_write = durable_files.write_durably
    written: list[Path] = []

    def full_after_one(path: Path, data: bytes) -> None:
        if written and path.name != "manifest.json":
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(path, data)
        if path.name != "manifest.json":
            written.append(path)

    with AnalysisStore(tmp_path / "store") as store:
        store.merge(CommitRecord(commit=make_commit(98, when=datetime(2026, 1, 25, tzinfo=UTC))))
        store.merge(CommitRecord(commit=make_commit(99, when=datetime(2026, 2, 25, tzinfo=UTC))))
        monkeypatch.setattr("commit_digest.store.durable.write_durably", full_after_one)
        with pytest.raises(StoreError, match=r"cannot write the durable form at .*: No space left on device"):
            save_durable(store, durable)
        monkeypatch.undo()
        assert [path.name for path in written] == ["2026-01.jsonl"]
        assert (durable / FEBRUARY).read_bytes() == before[FEBRUARY]
        with AnalysisStore(tmp_path / "fresh") as fresh:
            assert restore_durable(fresh, durable).records == 21  # the new January and the old February
        save_durable(store, durable)
    with AnalysisStore(tmp_path / "last") as last:
        assert restore_durable(last, durable).records == 22
    assert "pending" not in json.loads((durable / "manifest.json").read_text())


def test_a_durable_path_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    durable.write_text("not a folder")
    with AnalysisStore(tmp_path / "store") as store:
        with pytest.raises(StoreError, match=r"the durable folder .*data is not a folder"):
            save_durable(store, durable)
        with pytest.raises(StoreError, match=r"the durable folder .*data is not a folder"):
            restore_durable(store, durable)


def test_a_placeholder_moved_onto_its_real_commit_may_leave_the_durable_form(tmp_path: Path) -> None:
    from commit_digest.legacy.importer import PLACEHOLDER_MARKER

    durable = tmp_path / "data"
    placeholder = make_commit(1, when=datetime(2026, 3, 1, tzinfo=UTC)).model_copy(
        update={"sha": "abcdef12" * 4 + PLACEHOLDER_MARKER}
    )
    with AnalysisStore(tmp_path / "store") as store:
        store.merge(CommitRecord(commit=placeholder, analysis=analysis("legacy")))
        save_durable(store, durable)
        store.delete(placeholder.repository, placeholder.sha)
        store.merge(
            CommitRecord(commit=make_commit(2, when=datetime(2026, 4, 1, tzinfo=UTC)), analysis=analysis("legacy"))
        )
        save_durable(store, durable)
    assert sorted(_snapshot(durable)) == ["manifest.json", "vllm-project/vllm/2026-04.jsonl"]
