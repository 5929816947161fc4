"""``commit-digest fetch`` end to end: the CLI, the real PyGithub, the fake server, a real store."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from rich.console import Console

from commit_digest.cli import main
from commit_digest.collect.fetch import fetch_commits
from commit_digest.collect.window import days_window
from commit_digest.commands.fetch import ProgressDisplay
from commit_digest.store.analysis_store import AnalysisStore
from tests.fakes.github_server import FakeGithubServer, FakeRepository, Reply

from .conftest import DAY, REPOSITORY, TOKEN, SourceFactory, add_day, scripted_commit


@pytest.fixture
def github_env(server: FakeGithubServer, monkeypatch: pytest.MonkeyPatch) -> FakeGithubServer:
    monkeypatch.setenv("GITHUB_API_URL", server.url)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    return server


def fetch(cache: Path, *extra: str) -> int:
    return main(["fetch", "--repo", REPOSITORY, "--cache", str(cache), "--no-pr", *extra])


def test_fetch_a_day_then_again(
    github_env: FakeGithubServer,
    repository: FakeRepository,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    add_day(repository, DAY, 3)
    cache = tmp_path / "cache"

    assert fetch(cache, "--since", "2026-01-07", "--until", "2026-01-07") == 0
    out, err = capsys.readouterr()
    assert (
        "acme/widgets 2026-01-07 00:00:00 .. 2026-01-08 00:00:00 UTC: "
        "3 listed, 3 new, 0 already stored, 0 failed" in out
    )
    assert err == ""  # no progress bar when stderr is not a terminal

    assert fetch(cache, "--days", "1", "--since", "2026-01-07") == 0
    assert "3 listed, 0 new, 3 already stored, 0 failed" in capsys.readouterr().out
    with AnalysisStore(cache) as store:
        assert len(store) == 3
    # Three details, one listing per run, and each run's release update: one tag listing (no tags).
    assert github_env.count() == 3 + 1 + 1 + 2
    assert github_env.count(f"/repos/{REPOSITORY}/tags") == 2


def test_without_dates_the_run_continues_from_the_newest_stored_commit(
    github_env: FakeGithubServer,
    repository: FakeRepository,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    add_day(repository, DAY, 2)
    cache = tmp_path / "cache"
    assert fetch(cache, "--since", "2026-01-07", "--until", "2026-01-07") == 0
    add_day(repository, DAY + timedelta(days=1), 2, first_number=50)
    github_env.clear_requests()

    assert fetch(cache) == 0

    assert "4 listed, 2 new, 2 already stored" in capsys.readouterr().out
    assert github_env.requests[0].query["since"] == "2026-01-07T00:00:00Z"
    assert "until" not in github_env.requests[0].query


def test_the_github_url_option_wins_over_the_environment(
    server: FakeGithubServer, repository: FakeRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9/nothing-listens-here")
    add_day(repository, DAY, 1)
    args = ("--since", "2026-01-07", "--until", "2026-01-07", "--github-url", server.url)
    assert fetch(tmp_path / "cache", *args) == 0
    assert not any(request.authorized for request in server.requests)  # no GITHUB_TOKEN: anonymous


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("--repo", "acme/nope"), "error: repository acme/nope at http://127.0.0.1:"),
        (("--since", "2026-01-32"), "error: --since '2026-01-32' is not a date: give it as YYYY-MM-DD"),
        (("--tz", "Mars/Olympus"), "unknown time zone 'Mars/Olympus'"),
        (("--source", "git"), "error: --source git needs --git-dir PATH"),
    ],
    ids=["wrong repository", "bad date", "bad zone", "git without clone"],
)
def test_bad_input_is_one_clear_line(
    github_env: FakeGithubServer,
    repository: FakeRepository,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    arguments: tuple[str, ...],
    message: str,
) -> None:
    assert fetch(tmp_path / "cache", *arguments) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_bad_token_is_one_clear_line_and_never_printed(
    github_env: FakeGithubServer,
    repository: FakeRepository,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_wrong_secret")
    assert fetch(tmp_path / "cache", "--days", "1") == 2
    out, err = capsys.readouterr()
    assert "GitHub rejected the token for acme/widgets" in err and "GITHUB_TOKEN" in err
    assert "ghp_wrong_secret" not in out + err


def test_a_rate_limit_stops_with_exit_1_a_retry_time_and_the_fetched_commits_kept(
    github_env: FakeGithubServer,
    repository: FakeRepository,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    commits = add_day(repository, DAY, 4)
    reset = datetime.now(UTC) + timedelta(hours=1)
    github_env.queue_fault(f"/repos/{REPOSITORY}/commits/{commits[2].sha}", Reply.primary_rate_limit(reset))
    config = tmp_path / "mkdocs.yml"
    config.write_text("plugins:\n  - commit-digest:\n      github:\n        max_rate_limit_wait_seconds: 0\n")

    assert fetch(tmp_path / "cache", "-f", str(config), "--since", "2026-01-07", "--until", "2026-01-07") == 1

    out, err = capsys.readouterr()
    assert "4 listed, 2 new, 0 already stored, 0 failed, 2 not fetched" in out
    assert f"retry after {reset + timedelta(seconds=1):%Y-%m-%d %H:%M:%S} UTC" in err
    with AnalysisStore(tmp_path / "cache") as store:
        assert {record.commit.sha for record in store.records()} == {commits[0].sha, commits[1].sha}


def test_shanghai_days_through_the_command(
    github_env: FakeGithubServer,
    repository: FakeRepository,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 2026-01-07 16:00:00 UTC is 2026-01-08 00:00:00 in Shanghai.
    early = repository.add_commit(scripted_commit(1, datetime(2026, 1, 7, 15, 59, 59, tzinfo=UTC)))
    late = repository.add_commit(scripted_commit(2, datetime(2026, 1, 7, 16, 0, 0, tzinfo=UTC)))
    one_day = ("--since", "2026-01-08", "--until", "2026-01-08")
    assert fetch(tmp_path / "shanghai", "--tz", "Asia/Shanghai", *one_day) == 0
    assert fetch(tmp_path / "utc", *one_day) == 0
    with AnalysisStore(tmp_path / "shanghai") as shanghai, AnalysisStore(tmp_path / "utc") as utc:
        assert {record.commit.sha for record in shanghai.records()} == {late.sha}
        assert {record.commit.sha for record in utc.records()} == set()
    assert early.sha != late.sha


class InterruptAfter:
    """Plays Ctrl-C after ``count`` commits were stored."""

    def __init__(self, count: int) -> None:
        self.count = count

    def on_listed(self, count: int) -> None:
        del count

    def on_detail_start(self, total: int) -> None:
        del total

    def on_detailed(self, sha: str, outcome: str) -> None:
        self.count -= 1
        if self.count == 0:
            raise KeyboardInterrupt


def test_an_interrupted_run_keeps_every_stored_commit_and_the_next_run_completes(
    server: FakeGithubServer, repository: FakeRepository, make_source: SourceFactory, tmp_path: Path
) -> None:
    commits = add_day(repository, DAY, 10)
    window = days_window(DAY.date(), DAY.date(), UTC)
    with AnalysisStore(tmp_path / "cache") as store, pytest.raises(KeyboardInterrupt):
        fetch_commits(
            make_source(), store, window, branch=None, with_pull_requests=False, observer=InterruptAfter(4)
        )
    with AnalysisStore(tmp_path / "cache") as store:
        assert {record.commit.sha for record in store.records()} == {commit.sha for commit in commits[:4]}
        report = fetch_commits(make_source(), store, window, branch=None, with_pull_requests=False)
        assert (report.new, report.already_stored) == (6, 4)


def test_the_progress_bar_counts_listed_and_detailed_commits_on_a_terminal() -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100, color_system=None)
    with ProgressDisplay(console) as progress:
        for count in range(1, 6):
            progress.on_listed(count)
        progress.on_detail_start(3)
        for sha in ("a", "b"):
            progress.on_detailed(sha, "stored")
    final = screen.getvalue().rsplit("listed", 1)[-1]
    assert "5/5" in final and "detailed" in final and "2/3" in final
