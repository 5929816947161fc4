"""The CLI's rough edges: a closed pipe, control characters in what is stored, and errors
that name where a bad setting came from."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from commit_digest.cli import build_parser, main
from commit_digest.commands.common import OPTION_FLAGS
from commit_digest.models import CommitRecord, FileChange
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.exchange import record_line
from tests.core.test_store import analysis
from tests.factories import make_commit

COMMIT_DIGEST = Path(sys.executable).parent / "commit-digest"

# -- a reader that stops early ------------------------------------------------------------


def test_export_into_a_pipe_closed_after_one_line_is_quiet(tmp_path: Path) -> None:
    with AnalysisStore(tmp_path / "store") as store:
        # About 300 kB of JSON Lines: far more than a pipe buffers, so the writer is still writing.
        for number in range(300):
            store.put(CommitRecord(commit=make_commit(number, body="a line of the body\n" * 50)))
    command = [str(COMMIT_DIGEST), "export", "--cache", str(tmp_path / "store")]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()  # the reader goes away, as `head -1` does
        stderr = process.stderr.read()
        status = process.wait(timeout=60)
    assert first.startswith(b'{"analysis":null,"commit":')
    assert stderr == b""
    assert status in (0, 141)


# -- control characters: removed where records enter the store ---------------------------

DIRTY = "a\x00b\x1b[31mc\r\nd\re\x85f\x7fg\x9fh\x0ci\tj\n"
CLEAN = "ab[31mc\nd\nefghi\tj\n"


def dirty_record(number: int) -> CommitRecord:
    change = FileChange(path="vllm/x\x00.py", patch="@@ -1 +1 @@\r\n-old\x1b\r\n+new\x85\r\n", patch_state="included")
    commit = make_commit(number, title=f"[Bugfix] {DIRTY} (#31000)", body=DIRTY, files=(change,))
    return CommitRecord(
        commit=commit.model_copy(update={"author_name": "Ada\x00 Lovelace\x85"}),
        analysis=analysis("offline"),
    )


def assert_clean(record: CommitRecord) -> None:
    commit = record.commit
    assert commit.title == f"[Bugfix] {CLEAN} (#31000)"
    assert commit.body == CLEAN
    assert commit.author_name == "Ada Lovelace"
    assert commit.files[0].path == "vllm/x.py"
    assert commit.files[0].patch == "@@ -1 +1 @@\n-old\n+new\n"
    assert commit.pr_number == 31000


def test_merge_stores_a_record_without_control_characters(tmp_path: Path) -> None:
    record = dirty_record(1)
    with AnalysisStore(tmp_path / "store") as store:
        assert store.merge(record)
        stored = store.get(*record.key)
        assert stored is not None
        assert_clean(stored)
        assert stored.analysis == record.analysis
        # Merging the same dirty record again changes nothing: it cleans to what is stored.
        assert not store.merge(record)


def test_put_stores_a_record_without_control_characters(tmp_path: Path) -> None:
    record = dirty_record(2)
    with AnalysisStore(tmp_path / "store") as store:
        store.put(record)
        stored = store.get(*record.key)
    assert stored is not None
    assert_clean(stored)


def test_import_stores_records_without_control_characters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "dirty.jsonl"
    source.write_text(record_line(dirty_record(3)) + "\n", encoding="utf-8")
    assert main(["import", "--cache", str(tmp_path / "store"), str(source)]) == 0
    assert "1 new or changed" in capsys.readouterr().out
    with AnalysisStore(tmp_path / "store") as store:
        (stored,) = list(store.records())
    assert_clean(stored)


def test_a_clean_record_is_stored_byte_for_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = CommitRecord(
        commit=make_commit(4, body="正文 | with\ttabs and\nlines — ünïcode \u2028 kept"), analysis=analysis("offline")
    )
    with AnalysisStore(tmp_path / "store") as store:
        store.put(record)
        assert store.get(*record.key) == record
    assert main(["export", "--cache", str(tmp_path / "store")]) == 0
    assert capsys.readouterr().out == record_line(record) + "\n"


# -- errors name where a bad setting came from --------------------------------------------

VALID_CONFIG = "site_name: x\nplugins:\n  - commit-digest:\n      timezone: Asia/Shanghai\n"


def test_a_bad_tz_flag_is_named_by_its_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("mkdocs.yml").write_text(VALID_CONFIG, encoding="utf-8")
    assert main(["fetch", "--cache", str(tmp_path / "store"), "--tz", "Asia/Bejing"]) == 2
    error = capsys.readouterr().err
    assert error == (
        "commit-digest fetch: error: --tz: unknown time zone 'Asia/Bejing': give an IANA name such as 'Asia/Shanghai'\n"
    )


def test_a_bad_zone_in_mkdocs_yml_is_named_by_file_and_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("mkdocs.yml").write_text(VALID_CONFIG.replace("Asia/Shanghai", "Asia/Bejing"), encoding="utf-8")
    assert main(["export", "--cache", str(tmp_path / "store")]) == 2
    error = capsys.readouterr().err
    assert "error: mkdocs.yml: plugins.commit-digest.timezone: unknown time zone 'Asia/Bejing'" in error
    # A flag replaces the file's value: then only the flag is blamed.
    assert main(["fetch", "--cache", str(tmp_path / "store"), "--tz", "Europe/Pariss"]) == 2
    error = capsys.readouterr().err
    assert "error: --tz: unknown time zone 'Europe/Pariss'" in error and "mkdocs.yml" not in error


def test_a_bad_concurrency_flag_is_named_by_its_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "site" / "mkdocs.yml"
    config.parent.mkdir()
    config.write_text(VALID_CONFIG + "      llm:\n        model: gpt-x\n        concurrency: 4\n", encoding="utf-8")
    assert main(["analyze", "-f", str(config), "--cache", str(tmp_path / "store"), "--concurrency", "0"]) == 2
    error = capsys.readouterr().err
    assert "error: --concurrency: Input should be greater than or equal to 1" in error
    assert str(config) not in error


def test_problems_from_the_file_and_the_command_line_are_each_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(VALID_CONFIG + "      llm:\n        concurrency: 100\n", encoding="utf-8")
    assert main(["fetch", "-f", str(config), "--cache", str(tmp_path / "store"), "--tz", "Nowhere/Else"]) == 2
    error = capsys.readouterr().err
    assert "--tz: unknown time zone 'Nowhere/Else'" in error
    assert f"{config}: plugins.commit-digest.llm.concurrency: Input should be less than or equal to 64" in error


def test_every_option_flag_exists_on_some_command() -> None:
    """OPTION_FLAGS names flags for errors: each must be a flag a command really has."""
    subcommands = next(action for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction))
    flags = {
        flag for parser in subcommands.choices.values() for action in parser._actions for flag in action.option_strings
    }
    assert set(OPTION_FLAGS.values()) <= flags


def test_a_command_imports_only_its_own_module() -> None:
    """``commit-digest build`` (nightly, every build) does not import the LLM client's library."""
    code = (
        "import sys, commit_digest.cli as c; c.build_parser(['build', '--help-not-parsed']); "
        "print('openai' in sys.modules, 'commit_digest.commands.analyze' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]
