"""What a server says reaches the operator's terminal as text, never as control (issue 45): the
real `commit-digest analyze` in a process of its own, its stderr read as a terminal gets it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from commit_digest.commands.terminal import LINE_LIMIT, for_terminal
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from tests.analysis.conftest import API_KEY, make_commit
from tests.fakes.openai_server import FakeOpenAIServer, error

# OSC 52 (rewrite the clipboard), a window title, a screen clear, colour, a bell, a bidi override.
HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\x07 gnp\u202eexe.png"
HUGE = 2_000_000


def test_a_hostile_error_text_is_printed_escaped_and_cut(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = make_commit(3)
    with AnalysisStore(tmp_path / "cache") as store:
        store.merge(CommitRecord(commit=commit))
    server.script(commit.sha, error(503, HOSTILE + "A" * HUGE), error(503, HOSTILE + "A" * HUGE))
    # One retry, no backoff: the retry's log line and the failure's report line both carry the text.
    options = {"llm": {"max_retries": 1, "retry_backoff_seconds": 0}}
    config = {"site_name": "t", "plugins": [{"commit-digest": options}]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    environment = {**os.environ, "OPENAI_API_KEY": API_KEY, "OPENAI_BASE_URL": server.base_url}
    run = "import sys; from commit_digest.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", run, "analyze", "--cache", str(tmp_path / "cache"), "--timeout", "20"],
        env={key: value for key, value in environment.items() if key != "PYTHONPATH"} | {"COLUMNS": "200"},
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        check=False,
    )
    err = done.stderr.decode("utf-8")
    assert done.returncode == 1, err[-3000:]
    assert "\x1b" not in err and "\x07" not in err and "\u202e" not in err
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07" in err and "\\u202e" in err  # shown, so the operator sees it
    assert max(len(line) for line in err.splitlines()) < LINE_LIMIT + 300
    assert len(err) < 50_000  # not the 2 MB the server sent, once or twice


def test_for_terminal_escapes_controls_and_cuts_long_lines() -> None:
    assert for_terminal("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert for_terminal("one\ntwo") == "one\\ntwo"
    assert for_terminal("one\ntwo\r", keep_lines=True) == "one\ntwo\\r"
    cut = for_terminal("x" * (LINE_LIMIT + 5))
    assert cut.endswith("… (5 more characters)") and len(cut) < LINE_LIMIT + 30
