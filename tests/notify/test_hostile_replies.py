"""Answers no service should give, and configurations no one should write, still end as one failed
(or retried) channel: never a crash of the night, never a negative sleep, never a URL in a message."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from commit_digest.notify.http_sender import retry_after

NOW = datetime(2026, 1, 9, 3, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("7", 7.0),
        ("-5", 0.0),
        ("garbage", None),
        ("Fri, 09 Jan 2026 03:00:30 GMT", 30.0),
        # RFC 5322's "-0000" (a time in UTC, zone unknown): the email package gives it without a zone.
        ("Fri, 09 Jan 2026 03:00:30 -0000", 30.0),
        ("Thu, 01 Jan 2026 00:00:00 -0000", 0.0),
    ],
)
def test_retry_after_reads_numbers_and_dates_and_never_fails(value: str, seconds: float | None) -> None:
    assert retry_after({"retry-after": value}, NOW) == seconds
