"""The GitHub source and a commit whose data the model refuses: skipped for good with a warning
naming it, never read again; a failure that may pass (HTTP 503) is still retried next run."""

from __future__ import annotations

import logging
from datetime import UTC, timedelta

import pytest

from commit_digest.collect.fetch import failed_commits_key, fetch_commits, skipped_commits_key
from commit_digest.collect.window import FetchWindow
from commit_digest.store.analysis_store import AnalysisStore
from tests.fakes.github_server import FakeFile, FakeGithubServer, FakeRepository, Reply

from .conftest import DAY, REPOSITORY, SourceFactory, add_day, scripted_commit

COMMITS_PATH = f"/repos/{REPOSITORY}/commits"


def test_a_refused_commit_is_skipped_once_and_a_transient_failure_is_retried(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    caplog: pytest.LogCaptureFixture,
) -> None:
    refused = repository.add_commit(
        scripted_commit(90, DAY + timedelta(hours=1), files=[FakeFile("d/" * 600 + "x.py", additions=1)])
    )
    flaky, *others = add_day(repository, DAY + timedelta(hours=2), 3, first_number=10)
    server.queue_fault(f"{COMMITS_PATH}/{flaky.sha}", Reply.server_error(503), times=3)
    window = FetchWindow(DAY.astimezone(UTC))

    report = fetch_commits(make_source(max_retries=2), store, window, branch=None, with_pull_requests=False)

    assert [skip.sha for skip in report.skipped] == [refused.sha]
    assert [failure.sha for failure in report.failed] == [flaky.sha]
    assert report.new == len(others) and not report.complete
    (warning,) = [record.getMessage() for record in caplog.records if refused.sha[:12] in record.getMessage()]
    assert "skipped" in warning and "path" in warning and "\n" not in warning
    assert set(store.get_meta(skipped_commits_key(REPOSITORY))) == {refused.sha}  # type: ignore[arg-type]
    server.clear_requests()
    caplog.clear()

    again = fetch_commits(make_source(), store, window, branch=None, with_pull_requests=False)

    assert again.complete and (again.new, again.skipped_before) == (1, 1)
    assert server.count(f"{COMMITS_PATH}/{refused.sha}") == 0  # not read again
    assert store.get_meta(failed_commits_key(REPOSITORY)) == {}
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]
