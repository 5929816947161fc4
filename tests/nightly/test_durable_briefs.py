"""The days' briefs in the durable form: saved by month of their day beside the records, merged back
into a lost store without undoing a newer brief, salvaged line by line from a damaged file, held by
the save's guard, and absent from an older durable form that must still restore."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.errors import InputError
from commit_digest.models import CommitRecord, Provenance, TokenUsage
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.briefs import BriefSentence, DayBrief
from commit_digest.store.durable import restore_durable, save_durable
from commit_digest.store.durable_files import DurableFormDamaged, DurableShrinkRefused
from tests.factories import make_commit

JANUARY = "briefs/2026-01.jsonl"
FEBRUARY = "briefs/2026-02.jsonl"
SHA = "0123456789ab"


def brief(day: date, platform: str | None = None, *, minutes: int = 0, en: str = "Fixes.") -> DayBrief:
    return DayBrief(
        day=day,
        platform=platform,
        texts={
            "zh": (BriefSentence(text="修复。", commits=(SHA,)),),
            "en": (BriefSentence(text=en, commits=(SHA,)),),
        },
        commits=(SHA,),
        inputs="0" * 32,
        provenance=Provenance(
            analyzer="llm:m", created_at=datetime(2026, 3, 1, 3, minutes, tzinfo=UTC), usage=TokenUsage()
        ),
    )


BRIEFS = (
    brief(date(2026, 1, 31), "rocm"),
    brief(date(2026, 1, 5), "rocm"),
    brief(date(2026, 1, 5)),  # the whole day's: no platform, "all" in its key
    brief(date(2026, 2, 1), "cuda"),
)


def _records(store: AnalysisStore) -> None:
    store.merge_all(CommitRecord(commit=make_commit(number)) for number in range(1, 4))


def _saved(tmp_path: Path) -> Path:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        _records(store)
        for item in BRIEFS:
            store.put_brief(item)
        save_durable(store, durable)
    return durable


def _manifest(durable: Path) -> dict[str, object]:
    return dict(json.loads((durable / "manifest.json").read_text(encoding="utf-8")))


def _line(item: DayBrief) -> str:
    return json.dumps(item.model_dump(mode="json"), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def test_briefs_are_saved_by_month_of_their_day_and_restored_into_a_lost_store(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        _records(store)
        for item in BRIEFS:
            store.put_brief(item)
        saved = save_durable(store, durable)
        originals = list(store.briefs())
    assert saved.saved["briefs"] == 4 and saved.records == 3
    assert sorted(path.name for path in (durable / "briefs").iterdir()) == ["2026-01.jsonl", "2026-02.jsonl"]
    # One line each, in key order (day, then platform with the whole day's as "all"), as narratives are written.
    january = sorted((item for item in BRIEFS if item.day.month == 1), key=lambda item: item.key)
    assert [item.key for item in january] == [("2026-01-05", "all"), ("2026-01-05", "rocm"), ("2026-01-31", "rocm")]
    assert (durable / JANUARY).read_text(encoding="utf-8") == "".join(_line(item) + "\n" for item in january)
    assert "修复。" in (durable / JANUARY).read_text(encoding="utf-8")  # readable in a diff: not \u-escaped
    manifest = _manifest(durable)
    assert manifest["briefs"] == 4
    assert manifest["counts"] == {JANUARY: 3, FEBRUARY: 1, "vllm-project/vllm/2026-01.jsonl": 3}

    with AnalysisStore(tmp_path / "fresh") as fresh:
        result = restore_durable(fresh, durable)
        assert (result.kind("briefs").read, result.kind("briefs").merged, result.records) == (4, 4, 3)
        assert list(fresh.briefs()) == originals
        assert fresh.brief("2026-01-05", "all") == BRIEFS[2]
        assert restore_durable(fresh, durable).skipped  # the store already matches
        again = save_durable(fresh, durable)  # the same store saved again: not one file rewritten
        assert again.files_written == 0 and again.saved["briefs"] == 4

    # A store whose briefs are gone (the same commits, the digest noted) is not taken as matching.
    with AnalysisStore(tmp_path / "commits-only") as partial:
        _records(partial)
        partial.set_meta("durable-restored-digest", manifest["digest"])
        result = restore_durable(partial, durable)
        assert not result.skipped and list(partial.briefs()) == originals


def test_an_older_brief_in_the_durable_form_never_replaces_the_stores_newer_one(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    newer = brief(date(2026, 1, 5), "rocm", minutes=30, en="Rewritten.")
    with AnalysisStore(tmp_path / "store") as store:
        store.put_brief(newer)  # written after the save: the day's analyses changed
        store.set_meta("durable-restored-digest", "something else")
        assert restore_durable(store, durable).kind("briefs").merged == 0
        assert store.brief("2026-01-05", "rocm") == newer
    # The other way round: the durable form's brief is newer than the store's, and replaces it.
    with AnalysisStore(tmp_path / "older") as older:
        written_before = Provenance(analyzer="llm:m", created_at=datetime(2026, 2, 2, tzinfo=UTC))
        older.put_brief(BRIEFS[3].model_copy(update={"provenance": written_before}))
        assert restore_durable(older, durable).kind("briefs").merged == 4  # three it lacked, one newer
        assert older.brief("2026-02-01", "cuda") == BRIEFS[3]


def test_a_damaged_brief_line_is_named_and_the_rest_restore(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    path = durable / JANUARY
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1].replace('"commits":["0123456789ab"],"day"', '"commits":["ffffffffffff"],"day"', 1)
    assert lines[1] != path.read_text(encoding="utf-8").splitlines(keepends=True)[1]
    path.write_text("".join(lines), encoding="utf-8")

    with AnalysisStore(tmp_path / "fresh") as fresh:
        with pytest.raises(DurableFormDamaged, match=rf"{JANUARY}: changed \(3 lines where the manifest lists 3"):
            restore_durable(fresh, durable)
        assert len(fresh) == 0 and list(fresh.briefs()) == []

        result = restore_durable(fresh, durable, partial=True)
        assert len(result.left_out) == 1 and result.left_out[0].startswith(f"{JANUARY}: changed")
        assert result.left_out[0].endswith(": its 2 valid lines restored, 1 left out")
        assert len(fresh) == 3
        assert [item.key for item in fresh.briefs()] == [
            ("2026-01-05", "all"),
            ("2026-01-31", "rocm"),
            ("2026-02-01", "cuda"),
        ]

    # A manifest that vouches for the bad line (whoever pushes the data branch can write both): the
    # error names the file and the line, and nothing is stored.
    manifest_path = durable / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["files"][JANUARY] = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    with AnalysisStore(tmp_path / "vouched") as vouched:
        with pytest.raises(InputError, match=rf"{JANUARY}:2: .*not among the brief's commits"):
            restore_durable(vouched, durable)
        assert len(vouched) == 0 and list(vouched.briefs()) == []


def test_the_save_refuses_to_drop_a_brief_the_store_lacks(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    before = {path: path.read_bytes() for path in durable.rglob("*") if path.is_file()}
    with AnalysisStore(tmp_path / "fresh") as fresh:  # the cache was lost and only the commits came back
        _records(fresh)
        fresh.put_brief(BRIEFS[0])
        with pytest.raises(DurableShrinkRefused) as refused:
            save_durable(fresh, durable)
        message = str(refused.value)
        assert f"{JANUARY} (2 of its records are not in the store)" in message
        assert f"{FEBRUARY} (1 of its records are not in the store)" in message
        assert {path: path.read_bytes() for path in durable.rglob("*") if path.is_file()} == before

        assert save_durable(fresh, durable, prune=True).saved["briefs"] == 1
        assert not (durable / FEBRUARY).exists()


def test_the_guard_reads_the_whole_days_brief_and_refuses_a_line_that_is_no_brief(tmp_path: Path) -> None:
    durable = _saved(tmp_path)
    with AnalysisStore(tmp_path / "store") as store:
        # January's file, whose first line is the whole day's (platform null), is rewritten: nothing lost.
        store.put_brief(brief(date(2026, 1, 20), "xpu"))
        assert save_durable(store, durable).files_written == 1
        assert _manifest(durable)["briefs"] == 5

        (durable / FEBRUARY).write_text('{"platform":"cuda"}\n', encoding="utf-8")
        with pytest.raises(DurableShrinkRefused, match=rf"{FEBRUARY} \(line 1 is not a briefs line\)"):
            save_durable(store, durable)


def test_an_older_durable_form_without_briefs_restores_and_gains_them_on_the_next_save(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        _records(store)
        save_durable(store, durable)
    # As a save before briefs were kept wrote it: no briefs folder, no briefs count.
    assert not (durable / "briefs").exists()
    assert set(_manifest(durable)) == {"format", "records", "files", "counts", "digest"}

    with AnalysisStore(tmp_path / "fresh") as fresh:
        fresh.put_brief(BRIEFS[0])  # written by this night before the save
        result = restore_durable(fresh, durable)
        assert result.records == 3 and result.kind("briefs").read == 0
        assert list(fresh.briefs()) == [BRIEFS[0]]
        assert restore_durable(fresh, durable).skipped
        save_durable(fresh, durable)
    assert _manifest(durable)["briefs"] == 1 and (durable / JANUARY).is_file()


def test_restore_says_how_many_briefs_it_merged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    durable = _saved(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["restore", "--cache", str(tmp_path / "cache"), "--durable-dir", str(durable)]) == 0
    assert "restored 3 records and 4 day briefs (4 new or newer) from" in capsys.readouterr().out
