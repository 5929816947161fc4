"""Which commits a run asks for: pure functions from dates, a time zone and the store's state
to a window of UTC instants.

A commit belongs to the day of its landing (commit) time in the site's zone; a window covers
whole days, from 00:00:00 of the first to the instant before 00:00:00 after the last.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from commit_digest.errors import InputError

ONE_SECOND = timedelta(seconds=1)


@dataclass(frozen=True)
class FetchWindow:
    """Commits with ``start <= committed_at < end`` (``end`` None: up to now). Bounds are UTC."""

    start: datetime
    end: datetime | None = None

    def __post_init__(self) -> None:
        for bound in (self.start, self.end):
            if bound is not None and bound.utcoffset() != timedelta(0):
                raise ValueError(f"window bounds must be UTC, got {bound.isoformat()}")
        if self.end is not None and self.end <= self.start:
            raise ValueError(f"empty window: {self.start.isoformat()} .. {self.end.isoformat()}")

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment and (self.end is None or moment < self.end)

    @property
    def api_since(self) -> datetime:
        return self.start

    @property
    def api_until(self) -> datetime | None:
        """The inclusive upper bound APIs take; commit times have whole seconds."""
        return None if self.end is None else self.end - ONE_SECOND

    def describe(self) -> str:
        end = "now" if self.end is None else f"{self.end:%Y-%m-%d %H:%M:%S}"
        return f"{self.start:%Y-%m-%d %H:%M:%S} .. {end} UTC"


def parse_day(text: str, *, option: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise InputError(f"{option} {text!r} is not a date: give it as YYYY-MM-DD") from None


def start_of_day(day: date, zone: tzinfo) -> datetime:
    """00:00:00 of ``day`` in ``zone``, as a UTC instant."""
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def days_window(first: date, last: date, zone: tzinfo) -> FetchWindow:
    """Every commit landed on the days ``first`` through ``last`` (inclusive) in ``zone``."""
    if last < first:
        raise InputError(f"--until {last.isoformat()} is before --since {first.isoformat()}")
    return FetchWindow(start_of_day(first, zone), start_of_day(last + timedelta(days=1), zone))


def continuation_window(
    newest_stored: datetime | None,
    oldest_pending: datetime | None,
    *,
    now: datetime,
    zone: tzinfo,
    default_days: int,
) -> FetchWindow:
    """The window of a run given no dates: from the start of the day of the newest stored
    commit (so a day fetched while still in progress is completed, and missed nights are
    filled), or of an older commit that failed last time; the last ``default_days`` days when
    the store has nothing for the repository."""
    anchors = [moment for moment in (newest_stored, oldest_pending) if moment is not None]
    if anchors:
        first = min(anchors).astimezone(zone).date()
    else:
        first = now.astimezone(zone).date() - timedelta(days=default_days - 1)
    return FetchWindow(start_of_day(first, zone))


def requested_window(
    since: date | None,
    until: date | None,
    days: int | None,
    *,
    today: date,
    zone: tzinfo,
    default_days: int,
) -> FetchWindow | None:
    """The window the user asked for, or None when they gave no dates (continue instead).

    --since and --until are inclusive days; --days N alone is the N days ending today, with
    --since the N days from it, with --until the N days ending on it.
    """
    if since is None and until is None and days is None:
        return None
    span = days if days is not None else default_days
    if span < 1:
        raise InputError(f"--days {span} must be at least 1")
    if since is not None and until is not None:
        return days_window(since, until, zone)
    if since is not None and days is not None:
        return days_window(since, since + timedelta(days=span - 1), zone)
    if since is not None:
        if since > today:
            raise InputError(f"--since {since.isoformat()} is in the future (today is {today.isoformat()})")
        return days_window(since, today, zone)
    last = until if until is not None else today
    return days_window(last - timedelta(days=span - 1), last, zone)
