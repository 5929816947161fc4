"""Measures fetching one busy day from the local fake GitHub server (not a test; run by hand).

    .venv/bin/python -m benchmarks.fetch_day [--commits 50] [--files 8] [--runs 5]

Through the real PyGithub, the GitHub source and a real store: the requests and wall time
of a cold fetch of one day (with and without pull requests) and of a warm re-run. The
server answers from memory on 127.0.0.1, so the times are the client-side cost; against
api.github.com add the network round trip (~100-300 ms) per request.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from commit_digest.collect.fetch import fetch_commits
from commit_digest.collect.github import GithubSource
from commit_digest.collect.window import days_window
from commit_digest.settings import GithubSettings
from commit_digest.store.analysis_store import AnalysisStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.fakes.github_server import FakeCommit, FakeFile, FakeGithubServer, FakePull

DAY = datetime(2026, 1, 7, tzinfo=UTC)
REPOSITORY = "vllm-project/vllm"


def _script(server: FakeGithubServer, commits: int, files: int) -> None:
    repository = server.add_repository(REPOSITORY)
    patch = "@@ -1,3 +1,4 @@\n context\n-old line\n+new line\n+another line\n context"
    for number in range(commits):
        repository.add_commit(
            FakeCommit(
                sha=f"{number + 1:040x}",
                message=f"[Kernel] Change {number} (#{30000 + number})\n\nWhy.",
                committed_at=DAY + timedelta(minutes=25 * number),
                author_login=f"dev{number}",
                files=[
                    FakeFile(f"vllm/pkg_{number}/file_{index}.py", additions=2, deletions=1, patch=patch)
                    for index in range(files)
                ],
            )
        )
        repository.add_pull(FakePull(30000 + number, body="A description " * 50, labels=["ready"]))


def _fetch(server: FakeGithubServer, cache: Path, *, with_pull_requests: bool) -> tuple[int, float, int]:
    source = GithubSource(
        REPOSITORY,
        settings=GithubSettings(),
        token=None,
        api_url=server.url,
        sleep=time.sleep,
        clock=lambda: datetime.now(UTC),
    )
    window = days_window(DAY.date(), DAY.date(), UTC)
    server.clear_requests()
    with AnalysisStore(cache) as store:
        started = time.perf_counter()
        report = fetch_commits(source, store, window, branch=None, with_pull_requests=with_pull_requests)
        elapsed = time.perf_counter() - started
    source.close()
    return server.count(), elapsed, report.new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    results: dict[str, list[tuple[int, float, int]]] = {"cold, with PRs": [], "cold, --no-pr": [], "warm": []}
    with FakeGithubServer() as server:
        _script(server, options.commits, options.files)
        for _ in range(options.runs):
            with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
                results["cold, with PRs"].append(_fetch(server, Path(first), with_pull_requests=True))
                results["cold, --no-pr"].append(_fetch(server, Path(second), with_pull_requests=False))
                results["warm"].append(_fetch(server, Path(first), with_pull_requests=True))
    print(f"one day of {options.commits} commits x {options.files} files, {options.runs} runs each")
    for name, runs in results.items():
        requests = {count for count, _, _ in runs}
        times = [elapsed for _, elapsed, _ in runs]
        print(
            f"  {name:15} requests {sorted(requests)}  new {runs[0][2]:3}  "
            f"median {statistics.median(times) * 1000:7.1f} ms  min {min(times) * 1000:7.1f} ms"
        )


if __name__ == "__main__":
    main()
