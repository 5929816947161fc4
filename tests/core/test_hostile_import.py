"""Odd and hostile records at the doors they enter by: `import`, the models, the durable writer
and `show` (issue 28, items 3, 4 and 10)."""

from __future__ import annotations

import io
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

from commit_digest.cli import main
from commit_digest.errors import StoreError
from commit_digest.fields import EARLIEST_DATE, LATEST_DATE
from commit_digest.models import Commit, CommitRecord, FileChange
from commit_digest.settings import DigestSettings
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import save_durable
from commit_digest.store.durable_layout import month_file, narrative_file, release_file
from commit_digest.store.exchange import record_line
from commit_digest.store.narratives import WeekNarrative
from tests.core.test_store import analysis
from tests.factories import REPOSITORY, make_commit, make_release, numbered_sha


def line_of(record: CommitRecord, **commit_fields: Any) -> str:
    """The export line of ``record`` with ``commit_fields`` replaced as raw JSON values."""
    data = json.loads(record_line(record))
    data["commit"].update(commit_fields)
    return json.dumps(data)


def files_under(directory: Path) -> list[str]:
    return sorted(path.relative_to(directory).as_posix() for path in directory.rglob("*") if path.is_file())


# -- dates (item 3) -----------------------------------------------------------------------


@pytest.mark.parametrize("moment", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"])
def test_a_date_the_site_cannot_show_is_refused_at_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], moment: str
) -> None:
    good = CommitRecord(commit=make_commit(1))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(record_line(good) + "\n" + line_of(CommitRecord(commit=make_commit(2)), committed_at=moment) + "\n")
    assert main(["import", "--cache", str(tmp_path / "c"), str(bad)]) == 2
    error = capsys.readouterr().err
    assert f"{bad}:2: commit.committed_at: " in error and "Traceback" not in error
    with AnalysisStore(tmp_path / "c") as store:
        assert len(store) == 0


def test_an_authored_date_is_checked_as_the_committed_one_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(line_of(CommitRecord(commit=make_commit(1)), authored_at="1969-12-31T23:59:59Z") + "\n")
    assert main(["import", "--cache", str(tmp_path / "c"), str(bad)]) == 2
    assert f"{bad}:1: commit.authored_at: " in capsys.readouterr().err


def test_the_range_of_dates_survives_any_zone_and_a_week_either_way() -> None:
    for zone in (ZoneInfo("Pacific/Kiritimati"), ZoneInfo("Etc/GMT+12"), ZoneInfo("Asia/Shanghai"), UTC):
        for moment, week in ((LATEST_DATE, timedelta(weeks=1)), (EARLIEST_DATE, -timedelta(weeks=1))):
            local = moment.astimezone(zone) + week
            local.date().isocalendar()
            local.astimezone(UTC)
    assert EARLIEST_DATE.tzinfo is UTC and LATEST_DATE.tzinfo is UTC


def test_a_commit_at_either_end_of_the_range_is_shown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nplugins:\n  - commit-digest:\n      timezone: Pacific/Kiritimati\n")
    early = make_commit(1, when=EARLIEST_DATE + timedelta(hours=1))
    late = make_commit(2, when=LATEST_DATE)
    export = tmp_path / "ends.jsonl"
    export.write_text(record_line(CommitRecord(commit=early)) + "\n" + record_line(CommitRecord(commit=late)) + "\n")
    cache = ["-f", str(config), "--cache", str(tmp_path / "c")]
    assert main(["import", *cache, str(export)]) == 0
    assert main(["show", *cache, late.sha]) == 0
    assert "9998-01-01T14:00:00+14:00" in capsys.readouterr().out


def test_a_date_out_of_range_is_refused_by_the_model_itself() -> None:
    commit = make_commit(1)
    with pytest.raises(ValidationError, match="committed_at"):
        Commit.model_validate({**commit.model_dump(), "committed_at": LATEST_DATE + timedelta(seconds=1)})


def test_a_store_written_before_the_check_names_the_record_and_never_overflows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Import refuses these dates now, but an older version stored them: such a record reads as
    # damaged (one line naming it and the check), never as an OverflowError later.
    cache = tmp_path / "cache"
    record = CommitRecord(commit=make_commit(1))
    with AnalysisStore(cache) as store:
        store.put(record)
    overflowing = line_of(record, committed_at="9999-12-31T23:59:59-14:00")
    with sqlite3.connect(cache / "cache.db") as connection:
        connection.execute("UPDATE Cache SET value = ? WHERE key LIKE ?", (overflowing, f"%{record.commit.sha}"))
    for command in (["show", "--cache", str(cache), record.commit.sha], ["export", "--cache", str(cache)]):
        assert main(command) == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and "Traceback" not in error and "OverflowError" not in error
        assert record.commit.sha in error and "commit.committed_at" in error and "outside the dates" in error


# -- repository names (item 4) ------------------------------------------------------------


@pytest.mark.parametrize("name", ["../..", "a/b/c", "/abs", "owner/..", "owner/.", "-owner/x", "own.er/x", "a/b\n"])
def test_a_repository_name_that_is_no_github_name_is_refused_at_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    root = tmp_path / "x"
    bad = root / "a" / "b" / "bad.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text(line_of(CommitRecord(commit=make_commit(1)), repository=name) + "\n")
    assert main(["import", "--cache", str(root / "a" / "b" / "cache"), str(bad)]) == 2
    assert f"{bad}:1: commit.repository: " in capsys.readouterr().err
    with AnalysisStore(root / "a" / "b" / "cache") as store:
        assert len(store) == 0
        save_durable(store, root / "a" / "b" / "data")
    outside = [path for path in files_under(root) if not path.startswith(("a/b/cache/", "a/b/data/"))]
    assert outside == ["a/b/bad.jsonl"]


@pytest.mark.parametrize(
    "name", ["vllm-project/vllm", "a/b", "o/.github", "Owner-1/name_with.dots-and-dashes", "x/..."]
)
def test_github_names_are_accepted(name: str) -> None:
    assert Commit.model_validate({**make_commit(1).model_dump(), "repository": name}).repository == name
    assert DigestSettings(repository=name).repository_names == (name,)


def test_a_bad_repo_option_is_an_error_naming_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--cache", str(tmp_path / "c"), "--repo", "../.."]) == 2
    error = capsys.readouterr().err
    assert "--repo" in error and "Traceback" not in error


def test_settings_and_releases_check_repository_names() -> None:
    with pytest.raises(ValidationError):
        DigestSettings(repository="../..")
    with pytest.raises(ValidationError):
        DigestSettings(repositories=[{"name": "a/b/c"}])
    with pytest.raises(ValidationError):
        make_release("v1.0", datetime(2026, 1, 1, tzinfo=UTC), 1, tagged=1, repository="../..")


def test_the_durable_writer_refuses_a_path_that_leaves_its_folder(tmp_path: Path) -> None:
    directory = tmp_path / "a" / "b" / "data"
    # Built without validation: as a record from before names were checked would be.
    escaping = CommitRecord(commit=make_commit(1)).model_copy(
        update={"commit": make_commit(1).model_copy(update={"repository": "../.."})}
    )
    with pytest.raises(StoreError, match="outside"):
        month_file(directory, escaping)
    release = make_release("v1.0", datetime(2026, 1, 1, tzinfo=UTC), 1, tagged=1)
    with pytest.raises(StoreError, match="outside"):
        release_file(directory, release.model_copy(update={"repository": "x/../../../../y"}))
    narrative = WeekNarrative.model_construct(week="/tmp-W01", platform="cuda")
    with pytest.raises(StoreError, match="outside"):
        narrative_file(directory, narrative)
    # The ordinary ones stay where they belong.
    assert month_file(directory, CommitRecord(commit=make_commit(1))) == directory / REPOSITORY / "2026-01.jsonl"
    assert not (tmp_path / "a" / "2026-01.jsonl").exists()


def test_saving_never_follows_a_link_out_of_the_durable_folder(tmp_path: Path) -> None:
    durable, elsewhere = tmp_path / "data", tmp_path / "elsewhere"
    durable.mkdir()
    elsewhere.mkdir()
    (durable / "vllm-project").symlink_to(elsewhere, target_is_directory=True)
    with AnalysisStore(tmp_path / "store") as store:
        store.put(CommitRecord(commit=make_commit(1)))
        with pytest.raises(StoreError, match="outside"):
            save_durable(store, durable)
    assert files_under(elsewhere) == []


# -- the import's lines (item 10) ---------------------------------------------------------


def test_a_file_starting_with_a_byte_order_mark_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "bom.jsonl"
    lines = [record_line(CommitRecord(commit=make_commit(number))) for number in range(3)]
    export.write_text("\ufeff" + "\n".join(lines) + "\n", encoding="utf-8")
    assert main(["import", "--cache", str(tmp_path / "c"), str(export)]) == 0
    assert "imported 3 records" in capsys.readouterr().out


def test_stdin_starting_with_a_byte_order_mark_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\ufeff" + record_line(CommitRecord(commit=make_commit(1))) + "\n"))
    assert main(["import", "--cache", str(tmp_path / "c"), "-"]) == 0
    assert "imported 1 record into" in capsys.readouterr().out


def test_an_endless_line_ends_the_import_with_a_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--cache", str(tmp_path / "c"), "/dev/zero"]) == 2
    error = capsys.readouterr().err
    assert "/dev/zero:1: line: longer than" in error and "Traceback" not in error
    with AnalysisStore(tmp_path / "c") as store:
        assert len(store) == 0


def test_a_sha_given_twice_counts_once_and_is_merged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commit = make_commit(1)
    first = tmp_path / "first.jsonl"
    first.write_text(
        record_line(CommitRecord(commit=commit, analysis=analysis("llm:m")))
        + "\n"
        + record_line(CommitRecord(commit=make_commit(2)))
        + "\n"
    )
    second = tmp_path / "second.jsonl"
    second.write_text(record_line(CommitRecord(commit=commit, analysis=analysis("offline", minutes=5))) + "\n")
    assert main(["import", "--cache", str(tmp_path / "c"), str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert "imported 2 records" in out and "2 new or changed, 0 unchanged" in out
    assert "1 record repeated a commit" in out
    with AnalysisStore(tmp_path / "c") as store:
        assert len(store) == 2
        kept = store.get(REPOSITORY, commit.sha)
        # Merged as the store merges: the paid analysis is kept over the later, cheaper one.
        assert kept is not None and kept.analysis is not None and kept.analysis.provenance.analyzer == "llm:m"


# -- show (item 10) -----------------------------------------------------------------------


def test_show_escapes_newlines_and_bidi_controls_in_one_line_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = (FileChange(path="docs/a\nmodified  forged.py", additions=1),)
    commit = make_commit(7, title="safe \u202etxt.exe\u2066 title", files=files)
    commit = commit.model_copy(update={"author_name": "Eve\r\n  sha        " + numbered_sha(9)})
    with AnalysisStore(tmp_path / "a") as store:
        store.put(CommitRecord(commit=commit, analysis=analysis("offline")))
    assert main(["show", "--cache", str(tmp_path / "a"), commit.sha]) == 0
    out = capsys.readouterr().out
    for control in ("\u202e", "\u2066", "\r"):
        assert control not in out
    lines = out.splitlines()
    assert lines[0] == "safe \\u202etxt.exe\\u2066 title"
    assert "    modified  docs/a\\nmodified  forged.py (+1/-0)" in lines
    assert [line for line in lines if line.startswith("  sha")] == [f"  sha        {commit.sha}"]
