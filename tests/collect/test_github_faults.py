"""Faults between the GitHub source and the API: rate limits (primary, secondary, bare 429),
server and connection errors, wrong repository, bad token; interrupted runs resume. The
clock is fake: every wait is recorded, none is slept."""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest

from commit_digest.collect.errors import RateLimitError, SourceError
from commit_digest.collect.fetch import failed_commits_key, fetch_commits, window_for_run
from commit_digest.collect.window import FetchWindow, days_window
from commit_digest.store.analysis_store import AnalysisStore
from tests.fakes.github_server import FakeGithubServer, FakeRepository, Reply

from .conftest import DAY, REPOSITORY, FakeClock, SourceFactory, add_day

COMMITS_PATH = f"/repos/{REPOSITORY}/commits"


def one_day() -> FetchWindow:
    return days_window(DAY.date(), DAY.date(), UTC)


def test_primary_rate_limit_waits_until_the_reset_then_continues(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    clock: FakeClock,
) -> None:
    commits = add_day(repository, DAY, 5)
    server.queue_fault(COMMITS_PATH, Reply.primary_rate_limit(clock.now() + timedelta(seconds=30)))
    server.queue_fault(
        f"{COMMITS_PATH}/{commits[2].sha}",
        Reply.primary_rate_limit(clock.now() + timedelta(seconds=300), status=429),
    )

    report = fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)

    assert report.complete and report.new == 5
    assert clock.sleeps == [31.0, pytest.approx(300 - 31 + 1)]
    assert server.count(COMMITS_PATH) == 2 + 5 + 1


def test_secondary_rate_limit_waits_as_long_as_retry_after_says(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    clock: FakeClock,
) -> None:
    commits = add_day(repository, DAY, 3)
    server.queue_fault(f"{COMMITS_PATH}/{commits[0].sha}", Reply.secondary_rate_limit(7))
    server.queue_fault(f"{COMMITS_PATH}/{commits[1].sha}", Reply.secondary_rate_limit(11, status=429))

    report = fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)

    assert report.complete and report.new == 3
    assert clock.sleeps == [7.0, 11.0]


def test_a_bare_429_waits_a_minute_then_longer(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    clock: FakeClock,
) -> None:
    commits = add_day(repository, DAY, 2)
    server.queue_fault(f"{COMMITS_PATH}/{commits[1].sha}", Reply.too_many_requests(), times=2)

    report = fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)

    assert report.complete and report.new == 2
    assert clock.sleeps == [60.0, 120.0]


def test_a_rate_limit_longer_than_the_run_may_wait_stops_cleanly_and_the_next_run_resumes(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    clock: FakeClock,
) -> None:
    commits = add_day(repository, DAY, 50)
    reset = clock.now() + timedelta(hours=1)
    # Commits are detailed oldest first: the 21st detail request meets an hour-long limit.
    server.queue_fault(f"{COMMITS_PATH}/{commits[20].sha}", Reply.primary_rate_limit(reset))

    source = make_source(max_rate_limit_wait_seconds=600)
    report = fetch_commits(source, store, one_day(), branch=None, with_pull_requests=False)

    assert isinstance(report.stopped, RateLimitError)
    assert report.stopped.retry_at == reset.replace(microsecond=0) + timedelta(seconds=1)
    assert "retry after 2026-01-10 07:00:01 UTC" in str(report.stopped)
    assert (report.new, report.not_reached) == (20, 30)
    assert clock.sleeps == []
    assert not report.complete and "not fetched" in report.summary()
    stored = {record.commit.sha for record in store.records(REPOSITORY)}
    assert stored == {commit.sha for commit in commits[:20]}

    server.clear_requests()
    window = window_for_run(store, REPOSITORY, None, now=clock.now(), zone=UTC, default_days=2)
    resumed = fetch_commits(make_source(), store, window, branch=None, with_pull_requests=False)

    assert resumed.complete and (resumed.new, resumed.already_stored) == (30, 20)
    assert server.count() == 1 + 30  # the stored twenty are not detailed again
    assert {record.commit.sha for record in store.records(REPOSITORY)} == {commit.sha for commit in commits}


def test_rate_limit_waits_share_one_budget_per_run(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    clock: FakeClock,
) -> None:
    commits = add_day(repository, DAY, 4)
    for commit in commits:
        server.queue_fault(f"{COMMITS_PATH}/{commit.sha}", Reply.secondary_rate_limit(40))

    report = fetch_commits(
        make_source(max_rate_limit_wait_seconds=100), store, one_day(), branch=None, with_pull_requests=False
    )

    assert clock.sleeps == [40.0, 40.0]  # a third 40 s wait would pass the 100 s budget
    assert report.new == 2 and isinstance(report.stopped, RateLimitError)


def test_a_rate_limit_while_listing_stops_cleanly_too(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    clock: FakeClock,
) -> None:
    add_day(repository, DAY, 3)
    server.queue_fault(COMMITS_PATH, Reply.primary_rate_limit(clock.now() + timedelta(hours=2)))
    report = fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)
    assert isinstance(report.stopped, RateLimitError)
    assert report.listed == 0 and len(store) == 0


def test_server_errors_are_retried_with_backoff(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    clock: FakeClock,
) -> None:
    commits = add_day(repository, DAY, 3)
    server.queue_fault(COMMITS_PATH, Reply.server_error(502))
    server.queue_fault(f"{COMMITS_PATH}/{commits[1].sha}", Reply.server_error(500), times=2)

    report = fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)

    assert report.complete and report.new == 3
    assert clock.sleeps == [1.0, 1.0, 2.0]


def test_a_commit_that_keeps_failing_is_reported_the_others_are_stored_and_the_next_run_retries_it(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    clock: FakeClock,
) -> None:
    older = add_day(repository, DAY - timedelta(days=1), 2, first_number=100)
    commits = add_day(repository, DAY, 4)
    server.queue_fault(f"{COMMITS_PATH}/{older[0].sha}", Reply.server_error(503), times=3)

    window = FetchWindow(DAY - timedelta(days=1))
    report = fetch_commits(make_source(max_retries=2), store, window, branch=None, with_pull_requests=False)

    assert [failure.sha for failure in report.failed] == [older[0].sha]
    assert "HTTP 503" in str(report.failed[0]) and "3 attempts" in str(report.failed[0])
    assert report.new == 5 and not report.complete
    assert clock.sleeps == [1.0, 2.0]
    assert set(store.get_meta(failed_commits_key(REPOSITORY))) == {older[0].sha}  # type: ignore[arg-type]

    # The newest stored commit is on DAY, but the failed one is older: the next run reaches back.
    next_window = window_for_run(store, REPOSITORY, None, now=clock.now(), zone=UTC, default_days=2)
    assert next_window.start == DAY - timedelta(days=1)
    resumed = fetch_commits(make_source(), store, next_window, branch=None, with_pull_requests=False)
    assert resumed.complete and resumed.new == 1
    assert store.get_meta(failed_commits_key(REPOSITORY)) == {}
    assert len(store) == len(older) + len(commits)


def test_connection_errors_are_retried_and_a_failed_page_is_not_fetched_twice(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    clock: FakeClock,
) -> None:
    commits = add_day(repository, DAY, 150)
    page_two = f"/repositories/{repository.id}/commits"
    server.queue_fault(page_two, Reply.connection_drop())
    server.queue_fault(f"{COMMITS_PATH}/{commits[0].sha}", Reply.connection_drop())

    report = fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)

    assert report.complete and report.new == 150
    assert clock.sleeps == [1.0, 1.0]
    listings = [request.query.get("page") for request in server.requests if request.path.endswith("/commits")]
    assert listings == [None, "2", "2"]


def test_a_wrong_repository_is_one_clear_error(
    repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    with pytest.raises(
        SourceError, match=r"repository acme/nope at http://127\.0\.0\.1:\d+/api/v3 not found"
    ):
        fetch_commits(
            make_source(repository="acme/nope"), store, one_day(), branch=None, with_pull_requests=False
        )
    assert len(store) == 0


def test_a_bad_token_is_one_clear_error(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    clock: FakeClock,
) -> None:
    add_day(repository, DAY, 2)
    with pytest.raises(SourceError, match=r"rejected the token.*401 Bad credentials.*GITHUB_TOKEN"):
        fetch_commits(make_source(token="wrong"), store, one_day(), branch=None, with_pull_requests=False)
    assert server.count() == 1 and clock.sleeps == []


def test_a_forbidden_reply_that_is_no_rate_limit_is_not_retried(
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
    clock: FakeClock,
) -> None:
    add_day(repository, DAY, 2)
    server.queue_fault(COMMITS_PATH, Reply(403, {"message": "Resource not accessible by integration"}))
    with pytest.raises(SourceError, match="HTTP 403 Resource not accessible"):
        fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)
    assert server.count() == 1 and clock.sleeps == []


def test_a_failed_commit_that_left_the_branch_is_forgotten(
    server: FakeGithubServer, repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    commits = add_day(repository, DAY, 2)
    server.queue_fault(f"{COMMITS_PATH}/{commits[0].sha}", Reply(404, {"message": "Not Found"}))
    report = fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)
    assert [failure.sha for failure in report.failed] == [commits[0].sha]
    repository.branches["main"].remove(commits[0])  # force-pushed away

    fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)

    assert store.get_meta(failed_commits_key(REPOSITORY)) == {}
