"""A store someone else wrote into (a poisoned Actions cache gives write access to cache/): its rows
are only ever read as JSON text, never unpickled, and a row that is not what the store writes is
one line naming the file and ``commit-digest restore`` (exit 2), never a traceback, never a
record silently gone, never a file read outside the store."""

from __future__ import annotations

import os
import pickle
import sqlite3
from contextlib import closing
from pathlib import Path

import diskcache
import pytest
import yaml
from diskcache.core import MODE_BINARY, MODE_PICKLE

from commit_digest.cli import main
from commit_digest.errors import StoreError
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore, record_key
from tests.core.test_store import analysis
from tests.factories import REPOSITORY, make_commit
from tests.site.conftest import PROJECT, project_config

SECRET = "root:x:0:0:SECRET-OUTSIDE-THE-STORE"


class _Marker:
    """Unpickling this creates ``path``: the file appearing means the store ran a stranger's code."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.path), "w"))


def _stored(cache: Path, *numbers: int, body: str = "") -> list[CommitRecord]:
    records = [CommitRecord(commit=make_commit(number, body=body), analysis=analysis("llm:m")) for number in numbers]
    with AnalysisStore(cache) as store:
        store.merge_all(records)
    return records


def _key(record: CommitRecord) -> str:
    return record_key(REPOSITORY, record.commit.sha)


def _sql(cache: Path, statement: str, *parameters: object) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(cache / "cache.db")) as connection, connection:
        return connection.execute(statement, parameters).fetchall()


def _value_file(cache: Path, record: CommitRecord) -> Path:
    ((filename,),) = _sql(cache, "SELECT filename FROM Cache WHERE key = ?", _key(record))
    assert isinstance(filename, str)
    return cache / filename


def _one_line_naming_restore(capsys: pytest.CaptureFixture[str], *names: str) -> str:
    captured = capsys.readouterr()
    error = captured.err
    assert error.count("\n") == 1 and "Traceback" not in error, error
    assert "commit-digest restore --cache" in error, error
    for name in names:
        assert name in error, error
    assert SECRET not in error + captured.out
    return error


@pytest.mark.parametrize("in_a_file", [False, True], ids=["inline", "value-file"])
def test_a_pickled_value_is_never_unpickled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], in_a_file: bool
) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "ran"
    target, _ = _stored(cache, 1, 2)
    payload = pickle.dumps(_Marker(marker))
    if in_a_file:
        (cache / "ab").mkdir()
        (cache / "ab" / "payload.val").write_bytes(payload)
        _sql(
            cache,
            "UPDATE Cache SET mode = ?, filename = 'ab/payload.val', value = NULL WHERE key = ?",
            MODE_PICKLE,
            _key(target),
        )
    else:
        _sql(cache, "UPDATE Cache SET mode = ?, value = ? WHERE key = ?", MODE_PICKLE, payload, _key(target))

    assert main(["show", "--cache", str(cache), target.commit.sha]) == 2
    _one_line_naming_restore(capsys, _key(target), "pickle")
    assert main(["export", "--cache", str(cache)]) == 2
    _one_line_naming_restore(capsys, "pickle")
    with AnalysisStore(cache) as store, pytest.raises(StoreError, match="restore"):
        store.get(REPOSITORY, target.commit.sha)
    assert not marker.exists()


def test_a_pickled_key_is_never_unpickled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "ran"
    (record,) = _stored(cache, 1)
    text = record.model_dump_json()
    _sql(
        cache,
        "INSERT INTO Cache (key, raw, store_time, mode, value) VALUES (?, 0, 0, 1, ?)",
        pickle.dumps(_Marker(marker)),
        text,
    )

    assert main(["export", "--cache", str(cache)]) == 2
    _one_line_naming_restore(capsys, str(cache / "cache.db"), "pickle")
    assert main(["show", "--cache", str(cache), record.commit.sha]) == 2
    _one_line_naming_restore(capsys, "pickle")
    with AnalysisStore(cache) as store, pytest.raises(StoreError, match="restore"):
        len(store)
    assert not marker.exists()


def test_a_value_stored_as_bytes_is_damaged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    (record,) = _stored(cache, 1)
    _sql(cache, "UPDATE Cache SET mode = ?, value = ? WHERE key = ?", MODE_BINARY, b"\x80\x04junk", _key(record))
    assert main(["export", "--cache", str(cache)]) == 2
    _one_line_naming_restore(capsys, _key(record))


def test_a_garbage_value_file_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    # Past diskcache's 32 KB, a value lives in a file of its own.
    large, _ = _stored(cache, 1, 2, body="x" * 40_000)
    value_file = _value_file(cache, large)
    value_file.write_bytes(b"\xff\xfe\x00garbage" * 100)

    assert main(["export", "--cache", str(cache)]) == 2
    _one_line_naming_restore(capsys, str(value_file), "not UTF-8")
    assert main(["show", "--cache", str(cache), large.commit.sha]) == 2
    _one_line_naming_restore(capsys, str(value_file))


def test_a_missing_value_file_is_never_a_silent_loss(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    records = _stored(cache, *range(1, 6), body="x" * 40_000)
    value_file = _value_file(cache, records[2])
    value_file.unlink()

    assert main(["export", "--cache", str(cache), "-o", str(tmp_path / "out.jsonl")]) == 2
    error = _one_line_naming_restore(capsys, str(value_file), "missing")
    assert "exported" not in error and not (tmp_path / "out.jsonl").exists()
    with AnalysisStore(cache) as store:
        assert store.get(REPOSITORY, records[0].commit.sha) == records[0]
        with pytest.raises(StoreError, match="restore"):
            store.get(REPOSITORY, records[2].commit.sha)


def test_a_row_that_is_not_json_is_one_line_naming_restore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    record, other = _stored(cache, 1, 2)
    _sql(cache, "UPDATE Cache SET value = ? WHERE key = ?", '{"commit": {"sha": 1}', _key(record))
    _sql(cache, "UPDATE Cache SET value = ? WHERE key = ?", '{"commit": {"sha": "x"}}', _key(other))

    assert main(["export", "--cache", str(cache)]) == 2
    _one_line_naming_restore(capsys, _key(record), str(cache / "cache.db"), "not JSON")
    assert main(["show", "--cache", str(cache), other.commit.sha]) == 2
    _one_line_naming_restore(capsys, _key(other), "does not match the schema: commit.repository: Field required")


@pytest.mark.parametrize("how", ["absolute", "relative", "symlink"])
def test_a_value_file_outside_the_store_is_never_read_nor_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    cache, outside = tmp_path / "cache", tmp_path / "passwd"
    outside.write_text(SECRET, encoding="utf-8")
    record, _ = _stored(cache, 1, 2, body="x" * 40_000)
    if how == "absolute":
        filename = str(outside)
    elif how == "relative":
        filename = "../passwd"
    else:
        _value_file(cache, record).unlink()
        _value_file(cache, record).symlink_to(outside)
        filename = str(_value_file(cache, record).relative_to(cache))
    _sql(cache, "UPDATE Cache SET filename = ? WHERE key = ?", filename, _key(record))

    assert main(["export", "--cache", str(cache)]) == 2
    _one_line_naming_restore(capsys, "outside the store")
    assert main(["show", "--cache", str(cache), record.commit.sha]) == 2
    _one_line_naming_restore(capsys, "outside the store")
    # Replacing the record removes its old value file: never one outside the store.
    with AnalysisStore(cache) as store:
        store.put(record)
        assert store.get(REPOSITORY, record.commit.sha) == record
    assert outside.read_text(encoding="utf-8") == SECRET


def test_other_stored_values_that_do_not_parse_are_damaged_too(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with AnalysisStore(cache) as store:
        store.set_meta("fetch", {"at": "now"})
    _sql(cache, "UPDATE Cache SET value = '{not json' WHERE key = 'meta/fetch'")
    _sql(cache, "INSERT INTO Cache (key, raw, store_time, mode, value) VALUES ('lease/x', 1, 0, 1, '[]')")
    with AnalysisStore(cache) as store:
        with pytest.raises(StoreError, match=r"meta/fetch: .* restore"):
            store.get_meta("fetch")
        with pytest.raises(StoreError, match=r"lease/x: .* restore"):
            store.release_lease("x", "me")


def test_a_store_written_by_diskcache_default_disk_still_reads(tmp_path: Path) -> None:
    """Stores on disk were written with diskcache's own Disk: small values inline, large ones in
    value files, the revision an integer; the store's Disk reads them all."""
    cache = tmp_path / "cache"
    small, large = (
        CommitRecord(commit=make_commit(1), analysis=analysis("llm:m")),
        CommitRecord(commit=make_commit(2, body="多" * 40_000), analysis=analysis("llm:m")),
    )
    with diskcache.Cache(str(cache), eviction_policy="none", cull_limit=0) as old:
        for record in (small, large):
            old.set(_key(record), record.model_dump_json())
        old.set("revision/store-id", "abc")
        old.incr("revision/counter")
    assert _sql(cache, "SELECT COUNT(*) FROM Cache WHERE filename IS NOT NULL") == [(1,)]
    with AnalysisStore(cache) as store:
        assert list(store.records()) == [small, large]
        assert store.revision() == "abc:1"
        store.put(large.model_copy(update={"analysis": analysis("llm:n")}))
        assert store.revision() == "abc:2"
    # The value file the replaced record left is gone, as diskcache's own Disk would have it.
    assert _sql(cache, "SELECT COUNT(*) FROM Cache WHERE filename IS NOT NULL") == [(1,)]
    assert len(list(cache.glob("*/*/*.val"))) == 1


def test_a_revision_someone_else_wrote_is_damaged(tmp_path: Path) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "ran"
    (record,) = _stored(cache, 1)
    with AnalysisStore(cache) as store:
        store.revision()
    _sql(cache, "UPDATE Cache SET value = 'ten' WHERE key = 'revision/counter'")
    with AnalysisStore(cache) as store, pytest.raises(StoreError, match=r"revision/counter: .* restore"):
        store.put(record.model_copy(update={"analysis": analysis("llm:n")}))
    payload = pickle.dumps(_Marker(marker))
    _sql(cache, "UPDATE Cache SET mode = ?, value = ? WHERE key = 'revision/store-id'", MODE_PICKLE, payload)
    _sql(cache, "UPDATE Cache SET value = 1 WHERE key = 'revision/counter'")
    with AnalysisStore(cache) as store, pytest.raises(StoreError, match=r"revision of the store: .* pickle"):
        store.revision()
    assert not marker.exists()


@pytest.mark.slow
def test_a_build_over_a_pickled_row_stops_with_the_way_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "ran"
    record, _ = _stored(cache, 1, 2)
    _sql(
        cache,
        "UPDATE Cache SET mode = ?, value = ? WHERE key = ?",
        MODE_PICKLE,
        pickle.dumps(_Marker(marker)),
        _key(record),
    )
    (tmp_path / "docs").symlink_to(PROJECT / "docs")
    config_file = tmp_path / "mkdocs.yml"
    config = project_config(cache_dir=str(cache))
    # Without gen-files: a build stopped by the store leaves its temporary folder to the garbage
    # collector, whose warning would land in whichever test runs next.
    config["plugins"] = [entry for entry in config["plugins"] if not (isinstance(entry, dict) and "gen-files" in entry)]
    config_file.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")

    assert main(["build", "-f", str(config_file), "--site-dir", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err + caplog.text  # MkDocs logs what the plugin raised
    assert "Traceback" not in error and not marker.exists()
    assert f"cannot read {_key(record)}: {cache / 'cache.db'} is damaged" in error
    assert f"commit-digest restore --cache {cache}" in error
    assert not (tmp_path / "out").exists()


def test_a_row_set_to_expire_is_never_a_silent_loss(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """diskcache hides an expired row from every read; the store never sets an expiry."""
    cache = tmp_path / "cache"
    record, other = _stored(cache, 1, 2)
    _sql(cache, "UPDATE Cache SET expire_time = 1 WHERE key = ?", _key(record))

    assert main(["export", "--cache", str(cache)]) == 2
    _one_line_naming_restore(capsys, _key(record), "expire")
    with AnalysisStore(cache) as store:
        with pytest.raises(StoreError, match="restore"):
            store.merge(CommitRecord(commit=record.commit))
        assert store.get(REPOSITORY, other.commit.sha) == other
        assert store.get(REPOSITORY, "f" * 40) is None


def test_a_fifo_planted_as_a_value_file_is_refused_not_waited_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    record, _ = _stored(cache, 1, 2, body="x" * 40_000)
    value_file = _value_file(cache, record)
    value_file.unlink()
    os.mkfifo(value_file)
    assert main(["show", "--cache", str(cache), record.commit.sha]) == 2
    _one_line_naming_restore(capsys, str(value_file), "not a regular file")


def test_the_store_cannot_write_a_pickle_either(store: AnalysisStore) -> None:
    with pytest.raises(TypeError, match="only JSON text"):
        store._rows._cache.set("meta/x", {"a": 1})
    store._rows._cache.set("meta/x", "{}")
    assert store.get_meta("x") == {}
