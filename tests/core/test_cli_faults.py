"""Faults of the environment the CLI runs in, each one line (or none) and never a traceback: a TZ
that names no time zone, a standard output that cannot encode a name, a stop during start-up."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from tests.core.test_store import analysis
from tests.factories import make_commit

Completed = subprocess.CompletedProcess[bytes]
COMMIT_DIGEST = Path(sys.executable).parent / "commit-digest"
PROJECT = Path(__file__).resolve().parents[2]
NAME = "张伟 Zhāng Wěi"
TITLE = "[Core] 修复调度器 — fix the scheduler"


def run(*arguments: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> Completed:
    environment = {**os.environ, **(env or {})}
    return subprocess.run(
        [str(COMMIT_DIGEST), *arguments], capture_output=True, env=environment, cwd=cwd, timeout=300, check=False
    )


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    commit = make_commit(1, title=TITLE).model_copy(update={"author_name": NAME})
    with AnalysisStore(folder) as store:
        store.put(CommitRecord(commit=commit, analysis=analysis("offline")))
    return folder


# -- TZ -----------------------------------------------------------------------------------------


def test_a_tz_that_names_no_zone_file_is_ignored_with_one_warning_and_the_site_builds(
    cache: Path, tmp_path: Path
) -> None:
    # Babel (under MkDocs) reads TZ when imported and fails on a file that is not a zone.
    site = tmp_path / "site"
    arguments = ("build", "-f", str(PROJECT / "mkdocs.yml"), "--cache", str(cache), "--site-dir", str(site))
    result = run(*arguments, env={"TZ": "/dev/null"})
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert [line for line in stderr.splitlines() if "TZ=" in line] == [
        "WARNING TZ=/dev/null cannot be read as a time zone; ignored (commit-digest uses no local time: "
        "the timezone setting places commits on days)"
    ]
    assert (site / "index.html").exists()


@pytest.mark.parametrize(
    ("zone", "ignored"),
    [
        ("/dev/null", True),
        ("/etc", True),  # a folder
        ("a" * 300, True),  # too long a name for a path
        ("Asia/Shanghai", False),
        ("Not/A_Zone", False),  # no such zone: Babel falls back on its own
    ],
    ids=["dev-null", "a-folder", "a-long-name", "Asia-Shanghai", "no-such-zone"],
)
def test_after_start_up_babel_can_read_the_local_zone_whatever_tz_was(zone: str, ignored: bool, tmp_path: Path) -> None:
    code = (
        "import os, sys\n"
        "from commit_digest.cli import main\n"
        f"status = main(['export', '--cache', {str(tmp_path / 'cache')!r}, '-o', {str(tmp_path / 'out')!r}])\n"
        "import babel.dates\n"
        "print(status, os.environ.get('TZ'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "TZ": zone}, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].split() == (["0", "None"] if ignored else ["0", zone])
    assert ("TZ=" in result.stderr) is ignored


# -- an output that cannot encode a name -----------------------------------------------------------


TERMINALS = [
    pytest.param({"PYTHONIOENCODING": "ascii"}, id="PYTHONIOENCODING=ascii"),
    pytest.param({"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}, id="LANG=C"),
    pytest.param({"PYTHONIOENCODING": "latin-1"}, id="PYTHONIOENCODING=latin-1"),
]


@pytest.mark.parametrize("terminal", TERMINALS)
def test_export_writes_utf8_whatever_the_terminal(terminal: dict[str, str], cache: Path, tmp_path: Path) -> None:
    result = run("export", "--cache", str(cache), env=terminal)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stderr == b""
    assert run("export", "--cache", str(cache), "-o", str(tmp_path / "file.jsonl")).returncode == 0
    assert result.stdout == (tmp_path / "file.jsonl").read_bytes()
    record = json.loads(result.stdout.decode("utf-8"))
    assert record["commit"]["author_name"] == NAME


@pytest.mark.parametrize("terminal", TERMINALS)
@pytest.mark.parametrize("form", [(), ("--json",)], ids=["text", "json"])
def test_show_escapes_what_the_terminal_cannot_encode(
    terminal: dict[str, str], form: tuple[str, ...], cache: Path
) -> None:
    result = run("show", "--cache", str(cache), "0000", *form, env=terminal)
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr
    assert stderr == ""
    assert b"\\u5f20\\u4f1f" in result.stdout  # 张伟, escaped
    if "latin-1" in str(terminal):
        # latin-1 may carry its own letters as they are; the name's ā and ě, 张伟 and the title's
        # dash are none of them: read as latin-1 with the escapes undone, name and title come back whole.
        assert b"Zh\\u0101ng W\\u011bi" in result.stdout
        shown = result.stdout.decode("unicode_escape")  # latin-1 bytes, \uXXXX escapes undone
        assert NAME in shown and TITLE in shown
    else:
        assert result.stdout.isascii()


# -- a stop during start-up ------------------------------------------------------------------------

# Sends the signal to itself while the command's modules are imported: a marker, not a delay.
STOP_DURING_IMPORTS = """
import os, signal, sys

class StopOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == "commit_digest.commands.records":
            os.kill(os.getpid(), signal.{name})
        return None

sys.meta_path.insert(0, StopOnImport())
from commit_digest.cli import main
sys.exit(main())
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=lambda signum: signum.name)
def test_a_stop_during_start_up_is_one_line_and_its_exit_status(signum: signal.Signals, tmp_path: Path) -> None:
    code = STOP_DURING_IMPORTS.format(name=signum.name)
    result = subprocess.run(
        [sys.executable, "-c", code, "export", "--cache", str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 128 + signum
    assert result.stderr.splitlines() == [
        f"commit-digest export: stopped by {signum.name}: nothing new stored, 0 requests in flight abandoned"
    ]
    assert result.stdout == ""
