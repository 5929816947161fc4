"""Long commands stopped by signals at markers, as CI cancels, timeouts, systemd and Docker do.

Each command runs as a real process in a session of its own, against the scripted servers, and
is stopped where a marker says it is: the scripted OpenAI server holds the replies after the n-th
(so n answers are stored and the next requests are in flight), the fake GitHub server holds the
n-th commit's detail request, and the process's "received" line says it took the first signal.
Nothing sleeps. After SIGTERM or SIGINT (to the process or to its group): exit 143 or 130, exactly
one stop line, no traceback, no new request after the signal, the answers in flight stored, and
the next run pays for none of them again; after SIGKILL the next run pays again at most what was
in flight. Either way the export after the next run equals a clean run's.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from commit_digest import stopping
from commit_digest.cli import main
from commit_digest.models import CommitRecord
from commit_digest.settings import read_mkdocs_yml
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable_kinds import RECORDS, kind_of
from tests.analysis.bilingual_replies import language_responder, stored_analysis
from tests.analysis.conftest import make_analyzer, make_commit, make_settings
from tests.analysis.narrative_replies import is_written, narratives_or
from tests.collect.conftest import add_day
from tests.fakes.github_server import FakeGithubServer, Reply
from tests.fakes.openai_server import FakeOpenAIServer, analysis_responder
from tests.git import run_git

PROJECT = Path(__file__).resolve().parents[2]
API_KEY = "sk-stops-test-SECRET-0123456789"
GITHUB_TOKEN = "ghp_stops_test_token"
TERM, INT, KILL = signal.SIGTERM, signal.SIGINT, signal.SIGKILL
STOPS = [
    pytest.param(TERM, False, id="SIGTERM"),
    pytest.param(TERM, True, id="SIGTERM-group"),
    pytest.param(INT, False, id="SIGINT"),
    pytest.param(INT, True, id="SIGINT-group"),
    pytest.param(KILL, False, id="SIGKILL"),
    pytest.param(KILL, True, id="SIGKILL-group"),
]
CONFIG = """site_name: stops
plugins:
  - commit-digest:
      stop_grace_seconds: {grace}
      llm:
        retry_backoff_seconds: 0
        timeout_seconds: 60
"""


class Running:
    """A command in a session of its own (its own process group); stderr read line by line."""

    started: list[Running] = []  # noqa: RUF012 - every run of the test, killed at its end if still running

    def __init__(self, arguments: list[str], *, env: dict[str, str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "commit_digest.cli", *arguments],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.stdout = ""
        self._seen = threading.Condition()
        self._readers = [
            threading.Thread(target=self._read_errors, daemon=True),
            threading.Thread(target=self._read_output, daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        Running.started.append(self)

    def _read_errors(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._seen:
                self.lines.append(line)
                self._seen.notify_all()

    def _read_output(self) -> None:
        assert self.process.stdout is not None
        self.stdout = self.process.stdout.read()

    def wait_for_line(self, text: str, timeout: float = 60) -> bool:
        with self._seen:
            return self._seen.wait_for(lambda: any(text in line for line in self.lines), timeout=timeout)

    def send(self, signum: signal.Signals, *, group: bool) -> None:
        if group:
            os.killpg(self.process.pid, signum)
        else:
            os.kill(self.process.pid, signum)

    def finish(self, timeout: float = 60) -> int:
        status = self.process.wait(timeout=timeout)
        for reader in self._readers:
            reader.join(timeout=10)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return status

    @property
    def stderr(self) -> str:
        with self._seen:
            return "".join(self.lines)

    def stop_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if ": stopped " in line]


@pytest.fixture(autouse=True)
def _no_run_outlives_its_test() -> Iterator[None]:
    yield
    while Running.started:
        run = Running.started.pop()
        if run.process.poll() is None:
            os.killpg(run.process.pid, signal.SIGKILL)
        run.finish()


def environment(**extra: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith(("OPENAI_", "GITHUB_"))}
    return {**env, **extra}


def assert_stopped(run: Running, status: int, signum: signal.Signals) -> None:
    """One stop line naming the signal, its exit status, no traceback."""
    assert status == 128 + signum, run.stderr
    assert "Traceback" not in run.stderr
    stops = run.stop_lines()
    assert len(stops) == 1 and f"stopped by {signum.name}" in stops[0], run.stderr


def comparable_export(cache: Path, tmp_path: Path) -> list[dict[str, Any]]:
    """``commit-digest export`` of ``cache``, each record without the times its analysis and its
    translations were made."""
    out = tmp_path / f"export-{cache.name}.jsonl"
    assert main(["export", "--cache", str(cache), "-o", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line]
    for record in records:
        analysis = record.get("analysis") or {}
        for made in (analysis, *(analysis.get("translations") or {}).values()):
            if made:
                made["provenance"].pop("created_at", None)
    return records


# -- analyze ------------------------------------------------------------------------------------

COMMITS = 8


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(analysis_responder()) as server:
        yield server


@pytest.fixture
def server(llm: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAIServer:
    llm.reset()
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", llm.base_url)
    return llm


def config_file(folder: Path, grace: float = 10) -> Path:
    path = folder / "mkdocs.yml"
    path.write_text(CONFIG.format(grace=grace), encoding="utf-8")
    return path


def stored_commits(cache: Path) -> list[str]:
    """Commits without analyses, their shas newest first (the order a run takes them)."""
    commits = [make_commit(number) for number in range(1, COMMITS + 1)]
    with AnalysisStore(cache) as store:
        for commit in commits:
            store.merge(CommitRecord(commit=commit))
    return [commit.sha for commit in reversed(commits)]


def analyze(cache: Path, config: Path) -> int:
    return main(["analyze", "-f", str(config), "--cache", str(cache), "--concurrency", "2"])


def start_analyze(cache: Path, config: Path, server: FakeOpenAIServer) -> Running:
    arguments = ["analyze", "-f", str(config), "--cache", str(cache), "--concurrency", "2"]
    env = environment(OPENAI_API_KEY=API_KEY, OPENAI_BASE_URL=server.base_url)
    return Running(arguments, env=env, cwd=cache.parent)


@pytest.fixture
def clean_export(server: FakeOpenAIServer, tmp_path: Path) -> list[dict[str, Any]]:
    cache = tmp_path / "clean"
    stored_commits(cache)
    assert analyze(cache, config_file(tmp_path)) == 0
    server.reset()
    return comparable_export(cache, tmp_path)


def paid_for(server: FakeOpenAIServer, shas: list[str]) -> list[str]:
    return [sha for sha in shas if server.chat_requests_for(sha)]


@pytest.mark.parametrize(("signum", "group"), STOPS)
def test_analyze_stopped_after_the_third_stored_answer(
    signum: signal.Signals,
    group: bool,
    server: FakeOpenAIServer,
    clean_export: list[dict[str, Any]],
    tmp_path: Path,
) -> None:
    cache, config = tmp_path / "cache", config_file(tmp_path)
    shas = stored_commits(cache)
    server.hold_after(3)  # three answers stored, then two requests in flight, held
    run = start_analyze(cache, config, server)
    assert server.wait_for_held(2, timeout=60), run.stderr
    in_flight = paid_for(server, shas)[3:]
    run.send(signum, group=group)
    if signum is not KILL:
        assert run.wait_for_line(f"{signum.name} received"), run.stderr
    server.release()
    status = run.finish()
    first_run = paid_for(server, shas)
    if signum is KILL:
        assert status == -KILL
    else:
        assert_stopped(run, status, signum)
        assert "5 analyses stored, 0 requests in flight abandoned" in run.stop_lines()[0]
        assert len(server.chat_requests) == 5  # nothing new was started after the signal

    server.reset()
    assert analyze(cache, config) == 0
    paid_again = [sha for sha in paid_for(server, shas) if sha in first_run]
    if signum is KILL:
        assert len(paid_again) <= len(in_flight) == 2
    else:
        assert paid_again == []
    assert comparable_export(cache, tmp_path) == clean_export


@pytest.mark.parametrize(
    ("first", "second"), [(TERM, TERM), (INT, TERM), (TERM, INT)], ids=["TERM-TERM", "INT-TERM", "TERM-INT"]
)
def test_a_second_signal_ends_the_run_at_once_without_a_traceback(
    first: signal.Signals, second: signal.Signals, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    cache, config = tmp_path / "cache", config_file(tmp_path)
    shas = stored_commits(cache)
    server.hold_after(3)
    run = start_analyze(cache, config, server)
    assert server.wait_for_held(2, timeout=60), run.stderr
    run.send(first, group=True)
    assert run.wait_for_line(f"{first.name} received"), run.stderr
    run.send(second, group=True)
    status = run.finish()  # the held replies are never released: only the second signal ends it
    server.release()
    assert status == 128 + second
    assert "Traceback" not in run.stderr
    assert [line for line in run.stop_lines()] == [
        f"commit-digest analyze: stopped at once by a second signal ({second.name}); requests in flight are abandoned"
    ]
    first_run = paid_for(server, shas)
    server.reset()
    assert analyze(cache, config) == 0
    assert len([sha for sha in paid_for(server, shas) if sha in first_run]) == 2  # those in flight


def test_requests_still_in_flight_when_the_grace_is_over_are_abandoned_and_said(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    cache, config = tmp_path / "cache", config_file(tmp_path, grace=0.5)
    shas = stored_commits(cache)
    server.hold_after(3)
    run = start_analyze(cache, config, server)
    assert server.wait_for_held(2, timeout=60), run.stderr
    run.send(TERM, group=False)
    status = run.finish()  # never released: the grace ends the run
    server.release()
    assert_stopped(run, status, TERM)
    assert "3 analyses stored, 2 requests in flight abandoned" in run.stop_lines()[0]
    first_run = paid_for(server, shas)
    server.reset()
    assert analyze(cache, config) == 0
    assert len([sha for sha in paid_for(server, shas) if sha in first_run]) == 2


# -- fetch --------------------------------------------------------------------------------------

REPOSITORY = "acme/widgets"
DAY = datetime(2026, 1, 7, tzinfo=UTC)


class HoldingGithub(FakeGithubServer):
    """Holds the ``hold_at``-th commit detail request until ``release()``: a marker in the fetch."""

    def __init__(self) -> None:
        super().__init__(token=GITHUB_TOKEN)
        self.hold_at: int | None = None
        self.details = 0
        self._gate = threading.Condition()
        self._holding = False

    def handle(self, method: str, raw_path: str, authorization: str | None) -> Reply:
        path = raw_path.split("?")[0]
        if f"/repos/{REPOSITORY}/commits/" in path:
            with self._gate:
                self.details += 1
                if self.details == self.hold_at:
                    self._holding = True
                    self._gate.notify_all()
                    self._gate.wait_for(lambda: not self._holding, timeout=60)
        return super().handle(method, raw_path, authorization)

    def hold_detail(self, number: int) -> None:
        """Holds the ``number``-th commit detail request from now on."""
        with self._gate:
            self.hold_at, self.details = number, 0

    def wait_for_hold(self, timeout: float = 60) -> bool:
        with self._gate:
            return self._gate.wait_for(lambda: self._holding, timeout=timeout)

    def release(self) -> None:
        with self._gate:
            self.hold_at, self._holding = None, False
            self._gate.notify_all()

    def detail_requests(self) -> list[str]:
        with self._lock:
            return [request.path for request in self.requests if "/commits/" in request.path]


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[HoldingGithub]:
    with HoldingGithub() as running:
        add_day(running.add_repository(REPOSITORY), DAY, 10)
        monkeypatch.setenv("GITHUB_API_URL", running.url)
        monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
        yield running


FETCH = ["fetch", "--repo", REPOSITORY, "--no-pr", "--since", "2026-01-07", "--until", "2026-01-07"]


@pytest.mark.parametrize(("signum", "group"), [STOPS[0], STOPS[3], STOPS[5]])
def test_fetch_stopped_while_a_commit_is_read(
    signum: signal.Signals, group: bool, github: HoldingGithub, tmp_path: Path
) -> None:
    clean = tmp_path / "clean"
    assert main([*FETCH, "--cache", str(clean)]) == 0
    github.clear_requests()
    cache = tmp_path / "cache"
    github.hold_detail(4)  # three commits stored, the fourth being read
    env = environment(GITHUB_API_URL=github.url, GITHUB_TOKEN=GITHUB_TOKEN)
    run = Running([*FETCH, "--cache", str(cache)], env=env, cwd=tmp_path)
    assert github.wait_for_hold(), run.stderr
    run.send(signum, group=group)
    if signum is not KILL:
        assert run.wait_for_line(f"{signum.name} received"), run.stderr
    github.release()
    status = run.finish()
    first_run = set(github.detail_requests())
    if signum is KILL:
        assert status == -KILL
    else:
        assert_stopped(run, status, signum)
        assert "4 commits stored" in run.stop_lines()[0]
        assert len(first_run) == 4  # the commit in flight was stored, no fifth was asked for

    github.clear_requests()
    assert main([*FETCH, "--cache", str(cache)]) == 0
    read_again = first_run & set(github.detail_requests())
    assert len(read_again) <= (1 if signum is KILL else 0)
    assert comparable_export(cache, tmp_path) == comparable_export(clean, tmp_path)


def test_a_request_that_outlasts_the_grace_in_the_main_thread_is_abandoned_when_the_grace_ends(
    github: HoldingGithub, tmp_path: Path
) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text("plugins:\n  - commit-digest:\n      stop_grace_seconds: 0.5\n", encoding="utf-8")
    cache = tmp_path / "cache"
    github.hold_detail(4)  # three commits stored; the fourth's request never answered while the run lives
    env = environment(GITHUB_API_URL=github.url, GITHUB_TOKEN=GITHUB_TOKEN)
    run = Running([*FETCH, "-f", str(config), "--cache", str(cache)], env=env, cwd=tmp_path)
    assert github.wait_for_hold(), run.stderr
    run.send(TERM, group=False)
    status = run.finish()
    github.release()
    assert_stopped(run, status, TERM)
    assert run.stop_lines()[0] == (
        "commit-digest fetch: stopped by SIGTERM: 3 commits stored, "
        "the grace of 0.5 s is over: what was in flight is abandoned"
    )
    with AnalysisStore(cache) as store:
        assert len(store) == 3


# -- fetch from a clone: the signal to the group ends git too ----------------------------------------

GIT_WRAPPER = """#!/bin/sh
# git, except that the first `git show` of $STOPS_HOLD_SHA says so on the FIFO `arrived` and
# waits for a line on the FIFO `release`: a marker inside the fetch, in a child of the process.
for argument in "$@"; do
  if [ "$argument" = "$STOPS_HOLD_SHA" ] && [ "$1" != cat-file ] && [ ! -e "$STOPS_DIR/passed" ]; then
    : > "$STOPS_DIR/passed"
    echo held > "$STOPS_DIR/arrived"
    read line < "$STOPS_DIR/release"
  fi
done
exec {git} "$@"
"""


@pytest.fixture
def clone(tmp_path: Path) -> tuple[Path, list[str]]:
    """A clone of acme/widgets (by its origin) with six commits on 2026-01-07; their shas, oldest first."""
    path = tmp_path / "clone"
    path.mkdir()
    run_git(path, "init", "-q", "-b", "main")
    run_git(path, "remote", "add", "origin", f"https://github.com/{REPOSITORY}.git")
    shas = []
    for number in range(6):
        (path / f"file_{number}.py").write_text(f"value = {number}\n", encoding="utf-8")
        run_git(path, "add", "-A")
        when = f"2026-01-07T0{number}:00:00+00:00"
        env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        env |= {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com"}
        env |= {"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}
        run_git(path, "commit", "-q", "-m", f"[Core] Change {number}", env=env)
        shas.append(run_git(path, "rev-parse", "HEAD"))
    return path, shas


def fetch_clone(path: Path, cache: Path) -> list[str]:
    return ["fetch", "--source", "git", "--git-dir", str(path), "--cache", str(cache), *FETCH[1:]]


@pytest.mark.parametrize(("signum", "group"), [STOPS[1], STOPS[2]])
def test_fetch_from_a_clone_stopped_while_git_reads_a_commit(
    signum: signal.Signals, group: bool, clone: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, shas = clone
    clean = tmp_path / "clean"
    assert main(fetch_clone(path, clean)) == 0
    bin_dir, fifos = tmp_path / "bin", tmp_path / "fifos"
    bin_dir.mkdir()
    fifos.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(GIT_WRAPPER.format(git=shutil.which("git")), encoding="utf-8")
    wrapper.chmod(0o755)
    for name in ("arrived", "release"):
        os.mkfifo(fifos / name)
    # Read and write ends held open here, so neither side's open blocks and no end sees EOF.
    arrived = os.open(fifos / "arrived", os.O_RDWR)
    release = os.open(fifos / "release", os.O_RDWR)
    try:
        env = environment(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", STOPS_HOLD_SHA=shas[3])
        run = Running(fetch_clone(path, tmp_path / "cache"), env=env | {"STOPS_DIR": str(fifos)}, cwd=tmp_path)
        readable, _, _ = select.select([arrived], [], [], 60)
        assert readable, run.stderr  # git is reading the fourth commit; three are stored
        run.send(signum, group=group)
        assert run.wait_for_line(f"{signum.name} received"), run.stderr
        os.write(release, b"go\n")  # a git that is still there (the signal was not to the group) goes on
        status = run.finish()
    finally:
        os.close(arrived)
        os.close(release)
    assert_stopped(run, status, signum)
    # The group's signal ended git under the fourth commit: not stored, and not a failure.
    assert f"{3 if group else 4} commits stored" in run.stop_lines()[0]
    assert "failed" not in run.stderr
    assert main(fetch_clone(path, tmp_path / "cache")) == 0
    assert comparable_export(tmp_path / "cache", tmp_path) == comparable_export(clean, tmp_path)


# -- nightly ------------------------------------------------------------------------------------

NOW = datetime.now(UTC).replace(microsecond=0)
NIGHT_COMMITS = 10


@pytest.fixture
def night(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, HoldingGithub, FakeOpenAIServer]]:
    """A site folder (the demo's docs and mkdocs.yml) pointed at a fake GitHub and OpenAI."""
    root = tmp_path / "night"
    shutil.copytree(PROJECT / "docs", root / "docs")
    with HoldingGithub() as github, FakeOpenAIServer(narratives_or(analysis_responder())) as llm:
        repository = github.add_repository(REPOSITORY)
        add_day(repository, (NOW - timedelta(hours=20)).replace(minute=0, second=0), NIGHT_COMMITS)
        config = read_mkdocs_yml(PROJECT / "mkdocs.yml")
        config["site_url"] = "https://digest.example.org/"
        for entry in config["plugins"]:
            if isinstance(entry, dict) and "commit-digest" in entry:
                entry["commit-digest"].update(
                    cache_dir="cache",
                    repository=REPOSITORY,
                    llm={"base_url": llm.base_url, "max_retries": 0, "concurrency": 2, "timeout_seconds": 60},
                    github={"api_url": github.url, "default_days": 2, "fetch_pull_requests": False},
                )
        (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
        monkeypatch.chdir(root)
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
        yield root, github, llm


NIGHTLY = ["nightly", "-f", "mkdocs.yml", "--durable-dir", "data", "--site-dir", "site"]


def analyses_paid(llm: FakeOpenAIServer) -> list[str]:
    return [request.message("user") for request in llm.chat_requests if not is_written(request.json)]


def analysed(llm: FakeOpenAIServer, shas: list[str]) -> list[str]:
    """The commits (of ``shas``) whose analysis was asked for, in the order of their first request."""
    asked = [
        sha
        for request in llm.chat_requests
        if not is_written(request.json)
        for sha in shas
        if sha in request.message("user")
    ]
    return list(dict.fromkeys(asked))


def durable_records(root: Path) -> int:
    """The records' lines alone: the night also saves the briefs, narratives ... it wrote."""
    data = root / "data"
    return sum(
        len(path.read_text(encoding="utf-8").splitlines())
        for path in data.rglob("*.jsonl")
        if kind_of(path.relative_to(data).as_posix()) is RECORDS
    )


@pytest.mark.parametrize(("signum", "group"), [STOPS[1], STOPS[2], STOPS[4]])
def test_nightly_stopped_in_its_analyses_saves_them_and_ends_before_the_build(
    signum: signal.Signals,
    group: bool,
    night: tuple[Path, HoldingGithub, FakeOpenAIServer],
    tmp_path: Path,
) -> None:
    root, github, llm = night
    shas = [commit.sha for commit in github.repositories[REPOSITORY].commits_on("main") or ()]
    llm.hold_after(3)  # three answers stored, two requests in flight
    run = Running(NIGHTLY, env=environment(OPENAI_API_KEY=API_KEY, GITHUB_TOKEN=GITHUB_TOKEN), cwd=root)
    assert llm.wait_for_held(2), run.stderr
    in_flight = analysed(llm, shas)[3:]
    run.send(signum, group=group)
    if signum is not KILL:
        assert run.wait_for_line(f"{signum.name} received"), run.stderr
    llm.release()
    status = run.finish(timeout=120)
    first_run = analysed(llm, shas)
    assert len(first_run) == 5 and not (root / "site").exists()
    if signum is KILL:
        assert status == -KILL
    else:
        assert_stopped(run, status, signum)
        assert "5 analyses stored" in run.stop_lines()[0]
        assert "save: " in run.stderr  # saved, not built
        assert durable_records(root) == NIGHT_COMMITS  # every fetched commit, five with their analysis

    llm.reset()
    assert main(NIGHTLY) == 0
    paid_again = [sha for sha in analysed(llm, shas) if sha in first_run]
    if signum is KILL:
        assert len(paid_again) <= len(in_flight) == 2
    else:
        assert paid_again == []
        assert len(analysed(llm, shas)) == NIGHT_COMMITS - 5
    assert (root / "site" / "index.html").exists()
    stopped_then_resumed = comparable_export(root / "cache", tmp_path)

    # A clean night over the same commits, from nothing.
    shutil.rmtree(root / "cache")
    shutil.rmtree(root / "data")
    assert main(NIGHTLY) == 0
    assert comparable_export(root / "cache", tmp_path) == stopped_then_resumed


def test_nightly_stopped_in_its_fetch_saves_what_it_fetched_and_analyses_nothing(
    night: tuple[Path, HoldingGithub, FakeOpenAIServer], tmp_path: Path
) -> None:
    root, github, llm = night
    github.hold_detail(4)  # three commits stored, the fourth being read
    run = Running(NIGHTLY, env=environment(OPENAI_API_KEY=API_KEY, GITHUB_TOKEN=GITHUB_TOKEN), cwd=root)
    assert github.wait_for_hold(), run.stderr
    run.send(TERM, group=True)
    assert run.wait_for_line("SIGTERM received"), run.stderr
    github.release()
    assert_stopped(run, run.finish(timeout=120), TERM)
    assert "4 commits stored" in run.stop_lines()[0]
    assert llm.chat_requests == []  # the night ended before its analyses
    assert durable_records(root) == 4 and not (root / "site").exists()

    assert main(NIGHTLY) == 0
    assert len(analyses_paid(llm)) == NIGHT_COMMITS
    stopped_then_resumed = comparable_export(root / "cache", tmp_path)
    shutil.rmtree(root / "cache")
    shutil.rmtree(root / "data")
    assert main(NIGHTLY) == 0
    assert comparable_export(root / "cache", tmp_path) == stopped_then_resumed


@pytest.mark.parametrize(("signum", "group"), [STOPS[1], STOPS[2]])
def test_nightly_stopped_in_its_build_ends_with_one_line_and_keeps_every_answer(
    signum: signal.Signals, group: bool, night: tuple[Path, HoldingGithub, FakeOpenAIServer]
) -> None:
    root, _, llm = night
    run = Running(NIGHTLY, env=environment(OPENAI_API_KEY=API_KEY, GITHUB_TOKEN=GITHUB_TOKEN), cwd=root)
    assert run.wait_for_line("Building documentation"), run.stderr  # MkDocs' own line: the build runs
    run.send(signum, group=group)
    assert_stopped(run, run.finish(timeout=120), signum)
    assert f"{NIGHT_COMMITS} analyses stored" in run.stop_lines()[0]
    assert durable_records(root) == NIGHT_COMMITS

    paid = len(analyses_paid(llm))
    assert main(NIGHTLY) == 0
    assert len(analyses_paid(llm)) == paid == NIGHT_COMMITS  # nothing paid again
    assert (root / "site" / "index.html").exists()


# -- translate ----------------------------------------------------------------------------------

TRANSLATE_CONFIG = """site_name: stops
plugins:
  - commit-digest:
      languages: [zh, en]
      llm:
        retry_backoff_seconds: 0
        timeout_seconds: 60
"""


@pytest.mark.parametrize(("signum", "group"), [STOPS[1], STOPS[2], STOPS[4]])
def test_translate_stopped_after_the_third_stored_translation(
    signum: signal.Signals, group: bool, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    server.responder = language_responder  # type: ignore[assignment]
    config = tmp_path / "mkdocs.yml"
    config.write_text(TRANSLATE_CONFIG, encoding="utf-8")

    def analysed_store(cache: Path) -> None:
        with AnalysisStore(cache) as store:
            for number in range(1, COMMITS + 1):
                store.merge(CommitRecord(commit=make_commit(number), analysis=stored_analysis(minutes=number)))

    translate = ["translate", "-f", str(config), "--concurrency", "2", "--cache"]
    clean = tmp_path / "clean"
    analysed_store(clean)
    assert main([*translate, str(clean)]) == 0
    server.reset()
    cache = tmp_path / "cache"
    analysed_store(cache)
    server.hold_after(3)  # three translations stored, two in flight
    env = environment(OPENAI_API_KEY=API_KEY, OPENAI_BASE_URL=server.base_url)
    run = Running([*translate, str(cache)], env=env, cwd=tmp_path)
    assert server.wait_for_held(2), run.stderr
    run.send(signum, group=group)
    if signum is not KILL:
        assert run.wait_for_line(f"{signum.name} received"), run.stderr
    server.release()
    status = run.finish()
    shas = [make_commit(number).sha for number in range(1, COMMITS + 1)]
    first_run = paid_for(server, shas)
    if signum is KILL:
        assert status == -KILL
    else:
        assert_stopped(run, status, signum)
        assert "5 translations stored, 0 requests in flight abandoned" in run.stop_lines()[0]
        assert len(first_run) == 5

    server.reset()
    assert main([*translate, str(cache)]) == 0
    paid_again = [sha for sha in paid_for(server, shas) if sha in first_run]
    assert len(paid_again) <= (2 if signum is KILL else 0)
    assert comparable_export(cache, tmp_path) == comparable_export(clean, tmp_path)


# -- the Batch API ------------------------------------------------------------------------------


@contextmanager
def _handling_stops(command: str) -> Iterator[None]:
    """``command``'s stop handling in this process, with a fresh state: a stop raised in the block
    (``_stop``) is seen by what runs after it."""
    with stopping.handling(command):
        stopping.set_grace(600)  # this process is the test's: no watchdog may end it
        stopping.cooperate()
        yield


def _stop() -> None:
    signal.raise_signal(TERM)
    assert stopping.stop_requested()


def _batch_pass(kind: str, server: FakeOpenAIServer, store: AnalysisStore) -> tuple[Any, Any, list[Any], str]:
    """The Batch API task of ``kind`` over four stored commits: the task, client, items and the
    store meta key of its open batches."""
    from commit_digest.analysis.analyze_task import LlmAnalyzeTask
    from commit_digest.analysis.llm_client import LlmClient
    from commit_digest.analysis.selection import Selection, current_for
    from commit_digest.analysis.translate_pass import TranslateTask, translation_jobs
    from commit_digest.analysis.translation import Translator
    from commit_digest.settings import DigestSettings

    if kind == "analyses":
        analyzer, client = make_analyzer(make_settings(server.base_url), [])
        stored_commits(Path(store.directory))
        task: Any = LlmAnalyzeTask(analyzer, current_for(analyzer.name))
        return task, client, list(store.records()), task.batch.meta_key
    server.responder = language_responder  # type: ignore[assignment]
    settings = DigestSettings(languages=["zh", "en"], llm=make_settings(server.base_url).llm)
    client = LlmClient(settings.llm, api_key="sk-test-0123456789abcdefSECRET")
    for number in range(4):
        store.merge(CommitRecord(commit=make_commit(300 + number), analysis=stored_analysis(minutes=number)))
    jobs = translation_jobs(store.records(), ["zh", "en"], Selection(zone=settings.zone))
    task = TranslateTask(Translator(client, settings))
    return task, client, jobs, task.batch.meta_key


@pytest.mark.parametrize("kind", ["analyses", "translations"])
def test_after_a_stop_no_batch_is_submitted_and_none_collected(
    kind: str, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    """Before, for translations: `translate --batch` submitted and collected after a stop, as
    `analyze --batch` did not (issue 46: the passes had drifted)."""
    command = "commit-digest analyze" if kind == "analyses" else "commit-digest translate"
    with AnalysisStore(tmp_path / "cache") as store, _handling_stops(command):
        from commit_digest.analysis import batches

        task, client, items, meta_key = _batch_pass(kind, server, store)
        assert batches.submit(store, task, client, items[:2]).submitted  # one batch open before the stop
        sent = len(server.requests)
        _stop()
        assert batches.submit(store, task, client, items[2:]).submitted == {}
        assert batches.collect(store, task, client).by_status == {}
        assert len(server.requests) == sent
        assert len(batches.open_batches(store, meta_key)) == 1  # collected by the next run
    client.close()


# -- build: cut at once, its worker processes too -------------------------------------------------


@pytest.mark.parametrize(("signum", "group"), [STOPS[1], STOPS[2]])
def test_a_build_stopped_while_its_workers_render_ends_at_once_without_a_traceback(
    signum: signal.Signals, group: bool, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    shutil.copytree(PROJECT / "docs", tmp_path / "docs")
    config = read_mkdocs_yml(PROJECT / "mkdocs.yml")
    config["site_url"] = "https://digest.example.org/"
    for entry in config["plugins"]:
        if isinstance(entry, dict) and "commit-digest" in entry:
            entry["commit-digest"].update(workers=2)  # a pool of forked workers, whatever the machine
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    assert main(["demo", "--no-build", "-f", str(tmp_path / "mkdocs.yml"), "--cache", str(tmp_path / "cache")]) == 0
    arguments = [
        "build",
        "-f",
        str(tmp_path / "mkdocs.yml"),
        "--cache",
        str(tmp_path / "cache"),
        "--site-dir",
        str(site),
    ]
    run = Running(arguments, env=environment(), cwd=tmp_path)
    assert run.wait_for_line(" pages from "), run.stderr  # the plugin's line just before its workers render
    run.send(signum, group=group)
    assert_stopped(run, run.finish(timeout=120), signum)
    assert run.stop_lines() == [
        f"commit-digest build: stopped by {signum.name}: nothing new stored, 0 requests in flight abandoned"
    ]
    assert not site.exists()  # nothing half-built was published
