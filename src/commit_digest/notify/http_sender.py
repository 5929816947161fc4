"""Posting a payload to a webhook, with the retries the services ask for (the only user of httpx).

A service that is rate limited says so (HTTP 429 with ``Retry-After``, or Feishu's, DingTalk's
and WeCom's error codes in a 200 answer): the request is sent again after the wait it names, or
after a doubling backoff when it names none, up to ``attempts`` times and never waiting longer
than ``max_wait_seconds`` at once. A server error or a connection that could not be made is
retried the same way. A request that was sent and never answered (the answer timed out, or the
connection broke while waiting for it) is not: the service may have posted it, and sent again it
could be posted twice. That is ``OutcomeUnknownError``, which the run records as such.
What an answer means is each service's business (its ``judge``); this module only sends and waits.

The webhook URL carries the service's token, so it never appears in an error: every message
raised here has the URL, the secrets and the URL's query replaced by ``***``. ``sleep`` and
``clock`` are injected, so tests never wait.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from commit_digest.errors import CommitDigestError

USER_AGENT = "commit-digest-notify"


class SendError(CommitDigestError):
    """A message the service did not accept; its text names no URL and no secret."""


class OutcomeUnknownError(SendError):
    """A request sent and never answered: the service may or may not have posted it."""


# Raised once the request may have reached the service: reading its answer failed.
_UNANSWERED = (httpx.ReadTimeout, httpx.ReadError, httpx.RemoteProtocolError)


@dataclass(frozen=True)
class HttpRequest:
    url: str
    body: bytes  # JSON
    params: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str]
    body: bytes

    def text(self, limit: int = 300) -> str:
        return " ".join(self.body.decode("utf-8", errors="replace").split())[:limit]

    def json_object(self) -> dict[str, Any]:
        """The answer as a JSON object (Feishu's, DingTalk's, WeCom's); ValueError when it is none."""
        try:
            value = json.loads(self.body.decode("utf-8", errors="replace"))
        except RecursionError as error:  # "[[[[…" nested past Python's stack: no answer of a service
            raise ValueError("the answer is nested too deeply") from error
        if not isinstance(value, dict):
            raise ValueError("the answer is not a JSON object")
        return value


def integer_code(value: object) -> int | None:
    """An answer's error code as the integer the service documents; None for anything else (a
    list or an object would not even hash for a lookup; ``false`` and ``0.0`` are not ``0``)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Verdict:
    """What a service's answer means: accepted, try again (after ``wait`` seconds when it says), or refused."""

    accepted: bool
    retry: bool = False
    wait: float | None = None
    reason: str = ""


ACCEPTED = Verdict(accepted=True)


def refused(reason: str) -> Verdict:
    return Verdict(accepted=False, reason=reason)


def again(reason: str, wait: float | None = None) -> Verdict:
    return Verdict(accepted=False, retry=True, wait=wait, reason=reason)


def wait_seconds(value: object) -> float | None:
    """A wait a service names as a number (a header's text, a JSON value): never negative; None
    when it is no number (NaN included, which no sleep takes)."""
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None
    return None if math.isnan(seconds) else max(0.0, seconds)


def retry_after(headers: Mapping[str, str], now: datetime) -> float | None:
    """Seconds from a ``Retry-After`` header: a number, or an HTTP date (RFC 9110)."""
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = wait_seconds(value)
    if seconds is not None:
        return seconds
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:  # "-0000": a time in UTC whose zone the sender did not name
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - now).total_seconds())


def http_judge(reply: Reply, now: datetime) -> Verdict | None:
    """The HTTP-level meaning every service shares: 429 and 5xx are tried again; None for the rest."""
    if reply.status == 429:
        return again("rate limited (HTTP 429)", retry_after(reply.headers, now))
    if reply.status >= 500:
        return again(f"HTTP {reply.status}", retry_after(reply.headers, now))
    return None


def status_judge(reply: Reply, now: datetime, accepted: Container[int]) -> Verdict:
    """A service that answers by HTTP status alone: ``http_judge``'s meaning, then an ``accepted``
    status is delivered and any other refused, naming the status and the reply's text."""
    shared = http_judge(reply, now)
    if shared is not None:
        return shared
    if reply.status in accepted:
        return ACCEPTED
    return refused(f"HTTP {reply.status}: {reply.text()}")


def redacted(text: str, secrets: Iterable[str]) -> str:
    # A part shorter than 8 characters ("/", "/hook") is no token, and hiding it would garble the text.
    for secret in sorted((item for item in secrets if len(item) >= 8), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def _secrets_of(request: HttpRequest, extra: Iterable[str]) -> list[str]:
    try:
        parts = urlsplit(request.url)
    except ValueError:  # "http://[::1/…": not a URL at all; the whole of it is hidden
        return [request.url, *request.params.values(), *extra]
    return [request.url, parts.query, parts.path, *request.params.values(), *extra]


class HttpSender:
    """Sends JSON posts; one per webhook message."""

    def __init__(
        self,
        *,
        attempts: int = 4,
        backoff_seconds: float = 2.0,
        max_wait_seconds: float = 60.0,
        timeout_seconds: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.attempts = attempts
        self.backoff_seconds = backoff_seconds
        self.max_wait_seconds = max_wait_seconds
        self.sleep = sleep
        self.clock = clock
        self._client = httpx.Client(
            timeout=timeout_seconds, transport=transport, headers={"User-Agent": USER_AGENT}, follow_redirects=False
        )

    def close(self) -> None:
        self._client.close()

    def send(
        self, request: HttpRequest, judge: Callable[[Reply, datetime], Verdict], *, secrets: Iterable[str] = ()
    ) -> int:
        """Posts ``request`` until the service accepts it; the attempts it took. Raises SendError."""
        hidden = _secrets_of(request, secrets)
        verdict = refused("not sent")
        for attempt in range(1, self.attempts + 1):
            try:
                response = self._client.post(
                    request.url,
                    content=request.body,
                    params=dict(request.params),
                    headers={"Content-Type": "application/json; charset=utf-8", **request.headers},
                )
                reply = Reply(response.status_code, response.headers, response.content)
                verdict = judge(reply, self.clock())
            except _UNANSWERED as error:
                reason = f"no answer to the post ({type(error).__name__}: {error})"
                raise OutcomeUnknownError(redacted(reason, hidden)) from error
            except (httpx.InvalidURL, httpx.UnsupportedProtocol):
                # A variable holding no http(s) URL fails the same way every time: not retried,
                # and the error's text (which quotes the URL) is not repeated.
                verdict = refused("the webhook URL is not a valid http:// or https:// URL")
            except httpx.HTTPError as error:
                verdict = again(f"{type(error).__name__}: {error}")
            if verdict.accepted:
                return attempt
            if not verdict.retry or attempt == self.attempts:
                break
            wait = verdict.wait if verdict.wait is not None else self.backoff_seconds * 2 ** (attempt - 1)
            if wait > self.max_wait_seconds:
                raise SendError(
                    redacted(f"{verdict.reason}; the service asks to wait {wait:.0f} s, past the limit", hidden)
                )
            self.sleep(wait)
        tries = f" after {attempt} attempts" if verdict.retry else ""
        raise SendError(redacted(f"{verdict.reason}{tries}", hidden))
