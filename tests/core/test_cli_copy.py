"""The CLI's lines as a person writes them (issue 47): each count before what it counts, in the
number it asks for ("1 commit", "0 failed", "1 token"), in the output of `demo` in both
languages, of `analyze --offline` on one commit, and on the progress line, where
"172/172 failed 0 tokens 0" read as 172 failed."""

from __future__ import annotations

import contextlib
import io
import logging
import re
from collections.abc import Iterator

import pytest
from rich.console import Console

from commit_digest import stopping
from commit_digest.analysis.analyze_task import ANALYSE_WORDS
from commit_digest.analysis.pipeline import PassSummary, run_pool
from commit_digest.cli import main
from commit_digest.models import AnalysisStatus
from commit_digest.store.durable_kinds import BRIEFS, RECORDS
from tests.site.reader_copy import MANY_WITH_SINGULAR, ONE_WITH_PLURAL

# A figure after the word it counts ("failed 0 tokens 0"): the next figure reads as its count.
WORD_BEFORE_COUNT = re.compile(r"\b(?:ok|failed|refused|pending|error|tokens) \d")
PROGRESS = re.compile(r"^analysing ━+ (\d+)/\1 (commits?) · (\d+) failed · (\d+) tokens? · \d+:\d\d:\d\d$", re.M)


def slips(output: str) -> list[str]:
    finders = (ONE_WITH_PLURAL, MANY_WITH_SINGULAR, WORD_BEFORE_COUNT)
    return [line for line in output.splitlines() if any(finder.search(line) for finder in finders)]


def run(*arguments: str) -> str:
    """What a command prints, its log lines and progress line among it, as a terminal shows them.
    Under pytest the root logger has handlers already, so the CLI's own is not set up: one like
    it is, for the command's run."""
    out, err = io.StringIO(), io.StringIO()
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            assert main(list(arguments)) == 0
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    return out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def said(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The output of `demo` in each language, then of `analyze --offline` on one commit of its store."""
    root = tmp_path_factory.mktemp("cli-copy")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)  # no mkdocs.yml here: the demo site shipped with the package
        zh = run("demo", "--site-dir", "zh-site", "--cache", "zh-store")
        en = run("demo", "--language", "en", "--site-dir", "en-site", "--cache", "en-store")
        one = run("analyze", "--offline", "--reanalyze", "--limit", "1", "--cache", "en-store")
    yield {"zh": zh, "en": en, "one": one}


@pytest.mark.slow
@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_demo_says_its_counts_as_a_person_writes_them(said: dict[str, str], language: str) -> None:
    output = said[language]
    assert "site built into " in output and "search index: " in output  # the build's lines are read too
    assert slips(output) == []
    progress = PROGRESS.search(output)
    assert progress is not None, output
    assert progress[2] == "commits" and progress[3] == "0" and progress[4] == "0"


@pytest.mark.slow
def test_one_commit_analysed_offline_is_one_commit(said: dict[str, str]) -> None:
    output = said["one"]
    assert slips(output) == []
    progress = PROGRESS.search(output)
    assert progress is not None and progress.group().startswith("analysing ")
    assert progress[1] == "1" and progress[2] == "commit" and progress[4] == "0"
    assert "analysed 1 of 1 commit in " in output and output.splitlines()[-2].endswith(": 1 ok")


def test_the_progress_line_puts_each_count_before_what_it_counts() -> None:
    screen = io.StringIO()
    tokens = iter([1, 1, 2])
    run_pool(
        ["a", "b", "c"],
        lambda item: item,
        concurrency=1,
        console=Console(file=screen, width=120, force_terminal=False),
        words=ANALYSE_WORDS,
        on_result=lambda item, result: None,
        on_error=lambda item, error: None,
        figures=lambda: (1, next(tokens)),
    )
    (line,) = screen.getvalue().splitlines()
    assert re.fullmatch(r"analysing ━+ 3/3 commits · 1 failed · 2 tokens · 0:00:0\d", line), line


def test_a_run_summary_counts_in_the_number_its_counts_ask_for() -> None:
    summary = PassSummary(ANALYSE_WORDS, selected=1)
    summary.tally("abc", AnalysisStatus.OK, None, None)
    summary.add_error("abd", ValueError("a bug"))
    assert summary.lines()[0] == "analysed 1 of 1 commit in 0.0 s: 1 ok, 1 error"
    summary = PassSummary(ANALYSE_WORDS, selected=2)
    summary.tally("abc", AnalysisStatus.FAILED, None, "timeout")
    summary.tally("abd", AnalysisStatus.FAILED, None, "timeout")
    assert summary.lines()[0] == "analysed 2 of 2 commits in 0.0 s: 2 failed"


def test_a_stop_and_the_durable_form_count_in_the_number_their_counts_ask_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stopping, "_state", stopping._State(command="commit-digest brief"))
    stopping.kept("brief", "briefs")
    assert stopping.stop_line().endswith(": 1 brief stored, 0 requests in flight abandoned")
    assert (RECORDS.counted(1), RECORDS.counted(2), BRIEFS.counted(1)) == ("1 record", "2 records", "1 day brief")


def test_the_line_finders_find_the_slips_the_cli_had() -> None:
    before = (
        "analysing ━━━━ 172/172 failed 0 tokens 0 0:00:00\n"
        "analysed 1 of 1 commits in 0.4 s: ok 1\n"
        "offline analyses for 1 commits without an analysis\n"
        "INFO commit-digest: search index: 1 partitions, 40 files written\n"
        "commit-digest brief: stopped by SIGTERM: 1 briefs stored, 0 requests in flight abandoned"
    )
    assert len(slips(before)) == 5
    assert PROGRESS.search(before) is None
