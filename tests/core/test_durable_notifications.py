"""`save_notifications`, what a notify run calls after each step of a post, leaves a durable form a
restore accepts and that tells no more than the ledger: files an earlier save cut short stay
accepted as they are, and a year file whose every entry was withdrawn goes."""

from __future__ import annotations

import errno
import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from commit_digest.errors import StoreError
from commit_digest.models import CommitRecord
from commit_digest.store import durable_files
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import restore_durable, save_durable, save_notifications
from commit_digest.store.durable_files import DurableShrinkRefused
from commit_digest.store.notification_ledger import Delivery, NotificationLedger
from tests.core.test_durable import records_over_two_months
from tests.factories import make_commit

FEBRUARY = "vllm-project/vllm/2026-02.jsonl"
LEDGER = "notifications/2026.jsonl"
NEXT_YEAR = "notifications/2027.jsonl"
SENT = datetime(2026, 1, 5, 9, tzinfo=UTC)


def _snapshot(durable: Path) -> dict[str, bytes]:
    return {path.relative_to(durable).as_posix(): path.read_bytes() for path in durable.rglob("*") if path.is_file()}


def _manifest(durable: Path) -> dict[str, Any]:
    return dict(json.loads((durable / "manifest.json").read_text()))


def _saved(tmp_path: Path) -> Path:
    """Twenty records over two months and one delivery, saved whole: a night's durable form."""
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        store.merge_all(records_over_two_months())
        NotificationLedger(store).merge([Delivery(channel="slack", day=date(2026, 1, 5), sent_at=SENT)])
        save_durable(store, durable)
    return durable


def _failing_on(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Every write of a file called ``name`` fails as on a full disk; the manifest's still go through."""
    real_write = durable_files.write_durably

    def full(path: Path, data: bytes) -> None:
        if path.name == name:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(path, data)

    monkeypatch.setattr("commit_digest.store.durable.write_durably", full)


def _cut_short(store: AnalysisStore, durable: Path, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """A full save that stops before February's new bytes land: the manifest lists them, the file
    still holds the old ones (pending). Returns February's old digest."""
    store.merge(CommitRecord(commit=make_commit(99, when=datetime(2026, 2, 25, tzinfo=UTC))))
    _failing_on(monkeypatch, "2026-02.jsonl")
    with pytest.raises(StoreError, match="No space left on device"):
        save_durable(store, durable)
    monkeypatch.undo()
    pending = _manifest(durable)["pending"]
    assert FEBRUARY in pending
    return pending[FEBRUARY]


def test_a_notify_run_after_a_save_cut_short_keeps_the_old_files_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    durable = _saved(tmp_path)
    with AnalysisStore(tmp_path / "store") as store:
        old = _cut_short(store, durable, monkeypatch)
        attempt = NotificationLedger(store).attempt("slack", date(2026, 1, 6), datetime(2026, 1, 7, 9, tzinfo=UTC))
        assert save_notifications(store, durable) == 1
        with AnalysisStore(tmp_path / "lost") as lost:  # the store is lost: the next night restores
            assert restore_durable(lost, durable).records == 20  # the old February
            assert NotificationLedger(lost).entry("slack", attempt.day) == attempt
        assert _manifest(durable)["pending"] == {FEBRUARY: old}  # February was not written: still accepted
        # The next full save writes February and leaves nothing pending.
        save_durable(store, durable)
    assert "pending" not in _manifest(durable)
    with AnalysisStore(tmp_path / "again") as again:
        assert restore_durable(again, durable).records == 21


def test_a_notify_run_cut_short_itself_keeps_the_earlier_pending_files_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    durable = _saved(tmp_path)
    with AnalysisStore(tmp_path / "store") as store:
        old = _cut_short(store, durable, monkeypatch)
        NotificationLedger(store).attempt("slack", date(2026, 1, 6), datetime(2026, 1, 7, 9, tzinfo=UTC))
        _failing_on(monkeypatch, "2026.jsonl")
        with pytest.raises(OSError, match="No space left on device"):
            save_notifications(store, durable)
        monkeypatch.undo()
    with AnalysisStore(tmp_path / "lost") as lost:
        assert restore_durable(lost, durable).records == 20
        assert [item.day for item in NotificationLedger(lost).deliveries()] == [date(2026, 1, 5)]
    pending = _manifest(durable)["pending"]
    assert pending[FEBRUARY] == old and LEDGER in pending  # the manifest written before the ledger


def test_a_year_whose_every_attempt_was_withdrawn_leaves_the_durable_form(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    with AnalysisStore(tmp_path / "store") as store:
        ledger = NotificationLedger(store)
        # The first post of a year: recorded before it leaves, then refused by the service.
        attempt = ledger.attempt("slack", date(2027, 1, 1), datetime(2027, 1, 2, 9, tzinfo=UTC))
        save_notifications(store, durable)
        assert (durable / NEXT_YEAR).is_file()
        ledger.withdraw(attempt)
        save_notifications(store, durable)
    with AnalysisStore(tmp_path / "lost") as lost:  # the store is lost: the day must be posted again
        restore_durable(lost, durable)
        assert NotificationLedger(lost).entry("slack", date(2027, 1, 1)) is None
        assert [item.day for item in NotificationLedger(lost).deliveries()] == [date(2026, 1, 5)]
    assert not (durable / NEXT_YEAR).exists()
    manifest = _manifest(durable)
    assert NEXT_YEAR not in manifest["files"] and NEXT_YEAR not in manifest["counts"]
    assert manifest["notifications"] == 1 and "pending" not in manifest


def test_a_year_file_holding_deliveries_the_store_lacks_is_not_removed(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    before = _snapshot(durable)
    with AnalysisStore(tmp_path / "fresh") as fresh:  # the cache was lost and not restored
        sent = datetime(2027, 1, 1, 9, tzinfo=UTC)
        NotificationLedger(fresh).merge([Delivery(channel="slack", day=date(2027, 1, 1), sent_at=sent)])
        with pytest.raises(DurableShrinkRefused, match=r"notifications/2026.jsonl \(1 of its records"):
            save_notifications(fresh, durable)
    assert _snapshot(durable) == before
