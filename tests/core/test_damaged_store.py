"""A damaged store: one clear error naming the file and the way back, and the way back works
with the real commands (restore from the durable form, zero LLM calls)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.errors import StoreError
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import save_durable
from tests.core.test_store import analysis
from tests.disks import fill_disk, mounted
from tests.factories import make_commit


def _damage(database: Path) -> None:
    """Overwrites the start of every page after the first two: "database disk image is malformed"."""
    data = bytearray(database.read_bytes())
    for offset in range(2 * 4096, len(data), 4096):
        data[offset : offset + 200] = b"\xff" * 200
    database.write_bytes(bytes(data))


def test_a_damaged_store_names_the_file_and_the_restore_command_which_then_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cache, durable = tmp_path / "cache", tmp_path / "data"
    records = [CommitRecord(commit=make_commit(number), analysis=analysis("llm:m")) for number in range(300)]
    with AnalysisStore(cache) as store:
        store.merge_all(records)
        save_durable(store, durable)
    _damage(cache / "cache.db")

    assert main(["export", "--cache", str(cache)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error
    assert f"{cache / 'cache.db'} is damaged (database disk image is malformed)" in error
    assert f"mv {cache} {cache}.damaged && commit-digest restore --cache {cache} --durable-dir data" in error

    # The advice, as given: move the damaged store aside and restore.
    shutil.move(cache, tmp_path / "cache.damaged")
    assert main(["restore", "--cache", str(cache), "--durable-dir", "data"]) == 0
    assert "restored 300 records" in capsys.readouterr().out
    with AnalysisStore(cache) as store:
        assert sorted(store.records(), key=lambda record: record.commit.sha) == records
    assert main(["restore", "--cache", str(cache)]) == 0
    assert "already holds" in capsys.readouterr().out


def test_restore_without_a_durable_form_says_where_it_looked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["restore", "--cache", str(tmp_path / "cache"), "--durable-dir", str(tmp_path / "none")]) == 2
    error = capsys.readouterr().err
    assert f"no durable form at {tmp_path / 'none'}" in error and "data-branch.sh checkout" in error


def test_a_lost_value_file_never_reaches_the_durable_form_and_restore_brings_it_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read as absent, a record whose value file is gone would be dropped from its month file by
    the next save; it stops the save instead, and the advice it gives restores the record."""
    monkeypatch.chdir(tmp_path)
    cache, durable = tmp_path / "cache", tmp_path / "data"
    # Past diskcache's 32 KB, a value lives in a file of its own.
    records = [
        CommitRecord(commit=make_commit(number, body="x" * 40_000), analysis=analysis("llm:m")) for number in range(5)
    ]
    with AnalysisStore(cache) as store:
        store.merge_all(records)
        save_durable(store, durable)
    saved = {path: path.read_bytes() for path in durable.rglob("*") if path.is_file()}
    next(cache.glob("*/*/*.val")).unlink()

    with AnalysisStore(cache) as store, pytest.raises(StoreError, match="missing from the store's folder"):
        save_durable(store, durable)
    assert {path: path.read_bytes() for path in durable.rglob("*") if path.is_file()} == saved

    assert main(["export", "--cache", str(cache)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error
    advice = error.split("with no LLM calls: ")[1].strip()
    assert advice == f"mv {cache} {cache}.damaged && commit-digest restore --cache {cache} --durable-dir data"
    shutil.move(cache, tmp_path / "cache.damaged")
    assert main(["restore", "--cache", str(cache), "--durable-dir", "data"]) == 0
    assert "restored 5 records" in capsys.readouterr().out
    with AnalysisStore(cache) as store:
        assert sorted(store.records(), key=lambda record: record.commit.sha) == records


def test_a_store_on_a_full_disk_is_one_line_saying_to_make_room(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with mounted(tmp_path / "disk", "size=256k") as disk:
        fill_disk(disk)
        status = main(["export", "--cache", str(disk / "cache")])
    said = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(said) == 1, said
    assert "disk is full" in said[0] and "free space on its disk" in said[0] and str(disk / "cache") in said[0]
