"""Answers no service should give, and configurations no one should write, still end as one failed
(or retried) channel: never a crash of the night, never a negative sleep, never a URL in a message."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime

import httpx
import pytest

from commit_digest.notify import discord, feishu, markdown_bots, webhook
from commit_digest.notify.http_sender import HttpRequest, HttpSender, Reply, SendError, Verdict, retry_after

Judge = Callable[[Reply, datetime], Verdict]

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


@pytest.mark.parametrize(
    ("body", "wait"),
    [
        (b'{"retry_after": 1.5}', 1.5),
        (b'{"retry_after": -3}', 0.0),  # time.sleep(-3) raises ValueError
        (b'{"retry_after": NaN}', None),  # Python's json reads NaN; time.sleep(nan) raises too
        (b'{"retry_after": "soon"}', None),
        (b'{"retry_after": [1]}', None),
        (b"<html>Too Many Requests</html>", None),
        (b"[1, 2]", None),
    ],
)
def test_discord_429_bodies_give_a_wait_a_sleep_accepts(body: bytes, wait: float | None) -> None:
    verdict = discord.judge(Reply(429, httpx.Headers({}), body), NOW)
    assert verdict.retry and verdict.wait == wait


DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize(
    ("judge", "status"),
    [
        (feishu.judge, 200),
        (markdown_bots.dingtalk_judge, 200),
        (markdown_bots.wecom_judge, 200),
        (discord.judge, 429),  # Discord reads its body only on a 429
    ],
)
def test_an_answer_nested_past_the_stack_is_refused_or_retried_not_a_crash(judge: Judge, status: int) -> None:
    verdict = judge(Reply(status, httpx.Headers({}), DEEP), NOW)
    assert not verdict.accepted
    assert verdict.retry is (status == 429)


@pytest.mark.parametrize("judge", [feishu.judge, markdown_bots.dingtalk_judge, markdown_bots.wecom_judge])
@pytest.mark.parametrize("code", [[0], {"value": 0}, "0", None, False, 0.0])
def test_an_error_code_that_is_no_integer_is_refused_not_a_crash(judge: Judge, code: object) -> None:
    body = json.dumps({"code": code, "errcode": code}).encode()
    verdict = judge(Reply(200, httpx.Headers({}), body), NOW)
    assert not verdict.accepted and not verdict.retry


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1/hooks/T0K3N-SECRET",  # httpx.InvalidURL: no HTTPError, it escaped the run
        "http://exa\x01mple.org/hooks/T0K3N-SECRET",
        "hooks.example.org/T0K3N-SECRET",  # no scheme: retried four times before
        "ftp://example.org/T0K3N-SECRET",
    ],
)
def test_a_variable_holding_no_http_url_fails_its_channel_at_once_and_names_no_url(url: str) -> None:
    sleeps: list[float] = []
    sender = HttpSender(sleep=sleeps.append, clock=lambda: NOW)
    try:
        with pytest.raises(SendError) as raised:
            sender.send(HttpRequest(url, b"{}"), webhook.judge)
    finally:
        sender.close()
    assert "not a valid http" in str(raised.value)
    assert "T0K3N" not in str(raised.value) and "example" not in str(raised.value)
    assert sleeps == []
