"""Day-correct windows: dates in the site's zone become UTC bounds; a commit at 23:59:59 and
one at 00:00:00 land on different days, each on exactly one — in UTC and in Asia/Shanghai,
through the pure functions and through the real PyGithub against the fake server."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from commit_digest.collect.fetch import fetch_commits
from commit_digest.collect.window import (
    FetchWindow,
    continuation_window,
    days_window,
    parse_day,
    requested_window,
)
from commit_digest.errors import InputError
from commit_digest.store.analysis_store import AnalysisStore
from tests.fakes.github_server import FakeGithubServer, FakeRepository

from .conftest import REPOSITORY, SourceFactory, scripted_commit

SHANGHAI = ZoneInfo("Asia/Shanghai")
TODAY = date(2026, 1, 10)


def test_days_in_utc_are_midnight_to_midnight() -> None:
    window = days_window(date(2026, 1, 7), date(2026, 1, 8), UTC)
    assert window.start == datetime(2026, 1, 7, tzinfo=UTC)
    assert window.end == datetime(2026, 1, 9, tzinfo=UTC)
    assert window.api_until == datetime(2026, 1, 8, 23, 59, 59, tzinfo=UTC)


def test_days_in_shanghai_are_converted_to_utc_before_they_reach_the_api() -> None:
    window = days_window(date(2026, 1, 7), date(2026, 1, 7), SHANGHAI)
    assert window.start == datetime(2026, 1, 6, 16, tzinfo=UTC)
    assert window.api_until == datetime(2026, 1, 7, 15, 59, 59, tzinfo=UTC)
    assert window.start.tzinfo is UTC


@pytest.mark.parametrize("zone", [UTC, SHANGHAI], ids=["UTC", "Asia/Shanghai"])
def test_the_last_and_the_first_second_of_a_day_belong_to_exactly_one_day(zone: object) -> None:
    last_second = datetime(2026, 1, 7, 23, 59, 59, tzinfo=zone).astimezone(UTC)  # type: ignore[arg-type]
    first_second = last_second + timedelta(seconds=1)
    days = [days_window(date(2026, 1, day), date(2026, 1, day), zone) for day in (6, 7, 8, 9)]  # type: ignore[arg-type]
    assert [window.contains(last_second) for window in days] == [False, True, False, False]
    assert [window.contains(first_second) for window in days] == [False, False, True, False]


def test_bad_dates_and_reversed_ranges_are_clear_errors() -> None:
    with pytest.raises(InputError, match=r"--since '2026-13-01' is not a date: give it as YYYY-MM-DD"):
        parse_day("2026-13-01", option="--since")
    with pytest.raises(InputError, match="--until 2026-01-06 is before --since 2026-01-07"):
        requested_window(date(2026, 1, 7), date(2026, 1, 6), None, today=TODAY, zone=UTC, default_days=2)
    with pytest.raises(InputError, match="--days 0 must be at least 1"):
        requested_window(None, None, 0, today=TODAY, zone=UTC, default_days=2)


def test_requested_windows() -> None:
    def days(since: date | None, until: date | None, count: int | None) -> tuple[date, date] | None:
        window = requested_window(since, until, count, today=TODAY, zone=UTC, default_days=2)
        if window is None:
            return None
        assert window.end is not None
        return window.start.date(), (window.end - timedelta(days=1)).date()

    assert days(None, None, None) is None
    assert days(date(2026, 1, 7), date(2026, 1, 9), None) == (date(2026, 1, 7), date(2026, 1, 9))
    assert days(date(2026, 1, 7), None, None) == (date(2026, 1, 7), TODAY)
    assert days(date(2026, 1, 7), None, 2) == (date(2026, 1, 7), date(2026, 1, 8))
    assert days(None, date(2026, 1, 8), None) == (date(2026, 1, 7), date(2026, 1, 8))
    assert days(None, None, 3) == (date(2026, 1, 8), TODAY)


def test_continuation_starts_at_the_day_of_the_newest_stored_or_oldest_failed_commit() -> None:
    now = datetime(2026, 1, 10, 22, tzinfo=UTC)
    newest = datetime(2026, 1, 8, 17, 30, tzinfo=UTC)  # 2026-01-09 01:30 in Shanghai
    assert continuation_window(newest, None, now=now, zone=UTC, default_days=2) == FetchWindow(
        datetime(2026, 1, 8, tzinfo=UTC)
    )
    assert continuation_window(newest, None, now=now, zone=SHANGHAI, default_days=2).start == datetime(
        2026, 1, 8, 16, tzinfo=UTC
    )
    failed = datetime(2026, 1, 5, 3, tzinfo=UTC)
    assert continuation_window(newest, failed, now=now, zone=UTC, default_days=2).start == datetime(
        2026, 1, 5, tzinfo=UTC
    )
    # Nothing stored: the last two days in the zone (in Shanghai "now" is already 2026-01-11).
    assert continuation_window(None, None, now=now, zone=UTC, default_days=2).start == datetime(
        2026, 1, 9, tzinfo=UTC
    )
    assert continuation_window(None, None, now=now, zone=SHANGHAI, default_days=2).start == datetime(
        2026, 1, 9, 16, tzinfo=UTC
    )


def test_windows_must_be_utc() -> None:
    with pytest.raises(ValueError, match="must be UTC"):
        FetchWindow(datetime(2026, 1, 7, tzinfo=SHANGHAI))


@pytest.mark.parametrize("zone", [UTC, SHANGHAI], ids=["UTC", "Asia/Shanghai"])
def test_fetching_day_by_day_puts_each_boundary_commit_on_one_day(
    zone: ZoneInfo,
    server: FakeGithubServer,
    repository: FakeRepository,
    make_source: SourceFactory,
    store: AnalysisStore,
) -> None:
    last_second = datetime(2026, 1, 7, 23, 59, 59, tzinfo=zone)
    before = repository.add_commit(scripted_commit(1, last_second.astimezone(UTC)))
    after = repository.add_commit(scripted_commit(2, (last_second + timedelta(seconds=1)).astimezone(UTC)))

    fetched: dict[str, set[str]] = {}
    for day in (date(2026, 1, 7), date(2026, 1, 8)):
        with AnalysisStore(store.directory / day.isoformat()) as day_store:
            fetch_commits(
                make_source(), day_store, days_window(day, day, zone), branch=None, with_pull_requests=False
            )
            fetched[day.isoformat()] = {record.commit.sha for record in day_store.records()}
            assert {record.commit.day(zone) for record in day_store.records()} <= {day}

    assert fetched == {"2026-01-07": {before.sha}, "2026-01-08": {after.sha}}
    listings = [
        request.query for request in server.requests if request.path == f"/repos/{REPOSITORY}/commits"
    ]
    expected_since = (
        last_second.replace(hour=0, minute=0, second=0).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    )
    assert listings[0]["since"] == expected_since
