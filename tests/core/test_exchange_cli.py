"""export / import / show / classify through the real command-line entry point."""

import json
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.models import CommitRecord, FileChange
from commit_digest.store.analysis_store import AnalysisStore
from tests.core.test_store import analysis
from tests.factories import make_commit


def fill(directory: Path, count: int) -> list[CommitRecord]:
    records = [
        CommitRecord(
            commit=make_commit(number, body="正文 | with <html> and\nlines"),
            analysis=analysis("offline") if number % 3 else None,
        )
        for number in range(count)
    ]
    with AnalysisStore(directory) as store:
        for record in records:
            store.put(record)
    return records


def test_export_then_import_loses_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    originals = fill(tmp_path / "a", 25)
    assert main(["export", "--cache", str(tmp_path / "a"), "-o", str(tmp_path / "a.jsonl")]) == 0
    assert main(["import", "--cache", str(tmp_path / "b"), str(tmp_path / "a.jsonl")]) == 0
    assert "imported 25 records" in capsys.readouterr().out
    assert main(["export", "--cache", str(tmp_path / "b"), "-o", str(tmp_path / "b.jsonl")]) == 0
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    with AnalysisStore(tmp_path / "b") as store:
        assert sorted(store.records(), key=lambda r: r.commit.sha) == sorted(originals, key=lambda r: r.commit.sha)
    # Importing the same file again changes nothing.
    assert main(["import", "--cache", str(tmp_path / "b"), str(tmp_path / "a.jsonl")]) == 0
    assert "0 new or changed, 25 unchanged" in capsys.readouterr().out


def test_export_to_stdout_is_one_sorted_json_line_per_commit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(tmp_path / "a", 5)
    assert main(["export", "--cache", str(tmp_path / "a")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5
    times = [json.loads(line)["commit"]["committed_at"] for line in lines]
    assert times == sorted(times)


def test_a_bad_line_names_file_and_line_and_stores_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fill(tmp_path / "a", 3)
    main(["export", "--cache", str(tmp_path / "a"), "-o", str(tmp_path / "good.jsonl")])
    lines = (tmp_path / "good.jsonl").read_text().splitlines()
    broken = json.loads(lines[1])
    broken["commit"]["sha"] = "xyz"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], json.dumps(broken), lines[2]]) + "\n")
    capsys.readouterr()
    assert main(["import", "--cache", str(tmp_path / "c"), str(bad)]) == 2
    error = capsys.readouterr().err
    assert f"{bad}:2: commit.sha:" in error
    assert "Traceback" not in error
    with AnalysisStore(tmp_path / "c") as store:
        assert len(store) == 0


def test_import_lists_every_problem_of_every_file_and_stores_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(tmp_path / "a", 4)
    main(["export", "--cache", str(tmp_path / "a"), "-o", str(tmp_path / "good.jsonl")])
    lines = (tmp_path / "good.jsonl").read_text().splitlines()
    two_problems = json.loads(lines[1])
    two_problems["commit"]["sha"] = "xyz"
    two_problems["commit"]["title"] = 7
    first = tmp_path / "first.jsonl"
    first.write_text("\n".join([lines[0], json.dumps(two_problems), "", "this is not JSON", lines[2]]) + "\n")
    unknown_field = json.loads(lines[3])
    unknown_field["colour"] = "blue"
    second = tmp_path / "second.jsonl"
    second.write_text(lines[3] + "\n" + json.dumps(unknown_field) + "\n")
    capsys.readouterr()
    assert main(["import", "--cache", str(tmp_path / "c"), str(first), str(second)]) == 2
    error = capsys.readouterr().err
    assert error.splitlines() == [
        "commit-digest import: error: 4 problems in the input; nothing was imported:",
        f"{first}:2: commit.sha: String should match pattern '^[0-9a-f]{{40}}$'",
        f"{first}:2: commit.title: Input should be a valid string",
        f"{first}:4: (line): Invalid JSON: expected ident at line 1 column 2",
        f"{second}:2: colour: Extra inputs are not permitted",
    ]
    with AnalysisStore(tmp_path / "c") as store:
        assert len(store) == 0


def test_import_lists_twenty_problems_and_counts_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(f"not json {number}\n" for number in range(33)))
    assert main(["import", "--cache", str(tmp_path / "c"), str(bad)]) == 2
    error = capsys.readouterr().err.splitlines()
    assert error[0] == "commit-digest import: error: 33 problems in the input; nothing was imported:"
    assert error[1].startswith(f"{bad}:1: (line): Invalid JSON")
    assert error[20].startswith(f"{bad}:20: (line): Invalid JSON")
    assert error[21:] == ["and 13 more"]


def test_import_of_a_missing_file_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--cache", str(tmp_path / "c"), str(tmp_path / "nope.jsonl")]) == 2
    assert capsys.readouterr().err.strip().endswith("No such file or directory")


def test_show_prints_a_commit_with_its_analysis(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = fill(tmp_path / "a", 4)
    sha = records[1].commit.sha
    assert main(["show", "--cache", str(tmp_path / "a"), sha]) == 0
    out = capsys.readouterr().out
    assert sha in out and "analysis: ok by offline" in out
    assert main(["show", "--cache", str(tmp_path / "a"), "0000"]) == 2
    assert "ambiguous" in capsys.readouterr().err
    assert main(["show", "--cache", str(tmp_path / "a"), "ffff"]) == 2
    assert "no stored commit" in capsys.readouterr().err


def test_show_never_prints_terminal_escapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with AnalysisStore(tmp_path / "a") as store:
        store.put(CommitRecord(commit=make_commit(7, title="evil \x1b]0;owned\x07 title")))
    assert main(["show", "--cache", str(tmp_path / "a"), f"{7:040x}"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "evil" in out and "analysis: none yet" in out


def test_classify_reads_json_lines_and_prints_labels(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    lines = [
        {
            "title": "[ROCm][AITER] fix wrong argument (#31880)",
            "files": ["vllm/v1/attention/backends/mla/rocm_aiter_mla.py"],
        },
        {"title": "[Doc] Update release docs (#31799)", "files": ["docs/contributing/release.md"]},
        {"title": "Bump deps", "message": "", "files": ["requirements/cuda.txt"]},
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(json.dumps(line) for line in lines) + "\n"))
    assert main(["classify"]) == 0
    results = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert "rocm" in results[0]["platforms"] and "attention" in results[0]["subsystems"]
    assert results[0]["reasons"]["rocm"]
    assert results[1]["platforms"] == [] and results[1]["subsystems"] == ["docs"]
    assert "cuda" not in results[2]["platforms"]


def test_classify_rejects_a_bad_line_with_its_number(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO('{"title": "ok"}\n{"files": []}\n'))
    assert main(["classify"]) == 2
    assert "<stdin>:2: title: Field required" in capsys.readouterr().err


def test_a_bad_setting_in_mkdocs_yml_names_the_file_and_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nplugins:\n  - commit-digest:\n      timezone: Mars/Olympus\n")
    assert main(["export", "-f", str(config), "--cache", str(tmp_path / "s")]) == 2
    error = capsys.readouterr().err
    assert str(config) in error and "timezone" in error and "Mars/Olympus" in error


def test_file_changes_keep_their_patch_state(tmp_path: Path) -> None:
    change = FileChange(path="a.bin", status="added", additions=0, deletions=0, patch_state="unavailable")
    record = CommitRecord(commit=make_commit(9, files=(change,)))
    with AnalysisStore(tmp_path / "a") as store:
        store.put(record)
    main(["export", "--cache", str(tmp_path / "a"), "-o", str(tmp_path / "x.jsonl")])
    assert '"patch_state":"unavailable"' in (tmp_path / "x.jsonl").read_text()


def test_site_only_options_in_mkdocs_yml_do_not_trouble_the_cli(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: x\nplugins:\n  - commit-digest:\n      page_size: 20\n      days_on_home: 3\n"
        "      timezone: Asia/Shanghai\n"
    )
    assert main(["export", "-f", str(config), "--cache", str(tmp_path / "s")]) == 0
