"""Whole `analyze` runs when things go wrong around them: a bad reply in the middle of a
concurrent run, two processes on one store, kill -9 mid-run. Every answer the server completed
is stored at once, and no commit is paid for twice; the request counts are asserted exactly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.models import AnalysisStatus, CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from tests.analysis.conftest import make_commit, write_config
from tests.fakes.openai_server import GATEWAY_PAGE, FakeOpenAIServer, analysis_content, completion

CONFIG = """site_name: runs
plugins:
  - commit-digest:
      llm:
        retry_backoff_seconds: 0
        timeout_seconds: 20
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return write_config(tmp_path, CONFIG)


def _store(cache_dir: Path, count: int) -> list[str]:
    """``count`` commits without analyses; their shas newest first (the order a run takes them)."""
    commits = [make_commit(number) for number in range(1, count + 1)]
    with AnalysisStore(cache_dir) as store:
        for commit in commits:
            store.merge(CommitRecord(commit=commit))
    return [commit.sha for commit in reversed(commits)]


def _statuses(cache_dir: Path) -> dict[str, AnalysisStatus | None]:
    with AnalysisStore(cache_dir) as store:
        return {
            record.commit.sha: None if record.analysis is None else record.analysis.provenance.status
            for record in store.records()
        }


def _analyze(cache_dir: Path, config: Path, *extra: str) -> int:
    return main(["analyze", "-f", str(config), "--cache", str(cache_dir), *extra])


def _spawn(cache_dir: Path, config: Path, *extra: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "commit_digest.cli", "analyze", "-f", str(config), "--cache", str(cache_dir)]
    return subprocess.Popen([*command, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_gateway_page_in_the_middle_of_a_concurrent_run_costs_one_retry_and_loses_nothing(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    shas = _store(cache_dir, 20)
    server.script(shas[2], GATEWAY_PAGE)  # the third commit's first reply is a proxy's HTML page
    assert _analyze(cache_dir, config, "--concurrency", "4") == 0
    assert len(server.chat_requests) == 21
    assert len(server.chat_requests_for(shas[2])) == 2
    assert set(_statuses(cache_dir).values()) == {AnalysisStatus.OK}

    server.reset()
    assert _analyze(cache_dir, config) == 0
    assert server.chat_requests == []  # nothing is paid for twice


def test_a_commit_that_only_gets_bad_replies_fails_alone_and_is_the_only_one_retried(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shas = _store(cache_dir, 20)
    server.script(shas[2], *[GATEWAY_PAGE] * 5)  # every attempt: max_retries 4 → 5 attempts
    assert _analyze(cache_dir, config, "--concurrency", "4") == 1
    assert len(server.chat_requests) == 19 + 5
    with AnalysisStore(cache_dir) as store:
        (failed,) = store.find(shas[2])
    # The offline analysis is shown beside the failed attempt, which the next run retries.
    assert failed is not None and failed.failure is not None and failed.failure.status is AnalysisStatus.FAILED
    assert failed.analysis is not None and failed.analysis.provenance.analyzer == "offline"
    assert set(_statuses(cache_dir).values()) == {AnalysisStatus.OK}
    output = capsys.readouterr().err
    assert "19 ok" in output and "1 failed" in output and "not JSON" in output

    server.reset()
    assert _analyze(cache_dir, config) == 0
    assert [request.message("user").count(shas[2]) > 0 for request in server.chat_requests] == [True]


def test_two_processes_on_one_store_pay_once_per_commit_and_together_analyse_all(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    shas = _store(cache_dir, 20)
    # No reply until eight requests are in flight at once: four of each process, so the two
    # runs certainly overlap.
    server.hold_until(8)
    first = _spawn(cache_dir, config, "--concurrency", "4")
    second = _spawn(cache_dir, config, "--concurrency", "4")
    outputs = [process.communicate(timeout=120) for process in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outputs
    assert len(server.chat_requests) == 20  # at most N + concurrency is allowed; claims make it N
    assert sorted({sha for sha in shas if server.chat_requests_for(sha)}) == sorted(shas)
    assert set(_statuses(cache_dir).values()) == {AnalysisStatus.OK}
    errors = "".join(stderr for _, stderr in outputs)
    assert "skipped: another run is analysing it" in errors
    analysed = [int(line.split()[1]) for line in errors.splitlines() if line.startswith("analysed ")]
    assert sum(analysed) == 20


@pytest.fixture
def hanging_server(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """Its own server (set up after ``cache_dir`` pointed at the module's): replies it holds back
    end with it."""
    with FakeOpenAIServer(lambda request: completion(analysis_content(), delay=600)) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        yield fake


def test_kill_9_mid_run_loses_only_the_requests_in_flight(
    hanging_server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    shas = _store(cache_dir, 10)
    for sha in shas[:4]:  # the four newest are answered at once, the rest hang
        hanging_server.script(sha, completion(analysis_content()))
    process = _spawn(cache_dir, config, "--concurrency", "2")
    # A worker takes its next commit only after storing the last: with six requests in, the
    # four answered ones are stored and two hang in flight.
    assert hanging_server.wait_for_chat_requests(6, timeout=60)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=30)
    statuses = _statuses(cache_dir)
    assert [statuses[sha] for sha in shas[:4]] == [AnalysisStatus.OK] * 4
    assert [statuses[sha] for sha in shas[4:]] == [None] * 6

    # The killed run's claims lapse at once on this machine (its process is gone).
    hanging_server.reset()
    hanging_server.responder = lambda request: completion(analysis_content())
    assert _analyze(cache_dir, config, "--concurrency", "2") == 0
    assert len(hanging_server.chat_requests) == 6  # 10 commits cost 12 requests: the 2 in flight again
    assert not any(hanging_server.chat_requests_for(sha) for sha in shas[:4])
    assert set(_statuses(cache_dir).values()) == {AnalysisStatus.OK}
