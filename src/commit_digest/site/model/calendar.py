"""ISO weeks (Monday to Sunday) of the site's days: the unit of week pages, charts and narratives.

A commit's week is the ISO week of its day in the site's time zone, so a commit landing on a
Sunday evening in UTC may belong to the next week on a site in Asia/Shanghai.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta

_WEEK_ID = re.compile(r"^(\d{4})-W(\d{2})$")


@dataclass(frozen=True, order=True)
class IsoWeek:
    year: int
    week: int

    @classmethod
    def of(cls, day: date) -> IsoWeek:
        year, week, _ = day.isocalendar()
        return cls(year, week)

    @classmethod
    def parse(cls, text: str) -> IsoWeek:
        """``2026-W03`` (raises ValueError naming the text when it is no ISO week)."""
        match = _WEEK_ID.match(text.strip())
        if match is None:
            raise ValueError(f"{text!r} is not an ISO week such as 2026-W03")
        year, week = int(match.group(1)), int(match.group(2))
        try:
            date.fromisocalendar(year, week, 1)
        except ValueError as error:
            raise ValueError(f"{text!r} is not an ISO week: {error}") from error
        return cls(year, week)

    @property
    def id(self) -> str:
        return f"{self.year}-W{self.week:02d}"

    @property
    def monday(self) -> date:
        return date.fromisocalendar(self.year, self.week, 1)

    @property
    def sunday(self) -> date:
        return self.monday + timedelta(days=6)

    @property
    def previous(self) -> IsoWeek:
        return IsoWeek.of(self.monday - timedelta(days=7))

    @property
    def next(self) -> IsoWeek:
        return IsoWeek.of(self.monday + timedelta(days=7))

    def __str__(self) -> str:
        return self.id


def weeks_until(last: IsoWeek, count: int) -> tuple[IsoWeek, ...]:
    """The ``count`` weeks ending with ``last``, oldest first."""
    weeks = [last]
    while len(weeks) < count:
        weeks.append(weeks[-1].previous)
    return tuple(reversed(weeks))


def weeks_between(first: IsoWeek, last: IsoWeek) -> Iterator[IsoWeek]:
    """Every week from ``first`` to ``last``, both included, oldest first."""
    week = first
    while week <= last:
        yield week
        week = week.next
