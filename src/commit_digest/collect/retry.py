"""When to retry a failed request and how long to wait: GitHub's documented rules as pure
functions, and a small loop that applies them with an injected clock and sleep.

PyGithub's own retry (urllib3 ``GithubRetry``) is switched off by the GitHub source: it
sleeps with ``time.sleep`` inside urllib3 where no clock can be injected, its cap applies
per wait rather than per run, and it does not retry a 429. This module owns retrying instead.

- primary rate limit: 403/429 with ``X-RateLimit-Remaining: 0`` — wait until
  ``X-RateLimit-Reset`` (+1 s, the reset second is not exact);
- secondary rate limit: 403/429 with ``Retry-After`` — wait that long;
- a 429, or a 403 whose message names a secondary limit, without either header — wait a
  minute, doubling on each further refusal (GitHub's advice);
- 5xx and connection errors — exponential backoff, at most ``max_retries`` retries;
- anything else is not retried.

Rate-limit waits of one run share one budget (``max_rate_limit_wait``): when the next wait
would exceed it the loop stops with a RateLimitError saying when to retry.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from enum import StrEnum
from typing import TypeVar

from commit_digest.collect.errors import RateLimitError, SourceError

logger = logging.getLogger("mkdocs.plugins.commit_digest.collect")

T = TypeVar("T")

SECONDARY_LIMIT_WAIT = 60.0
BACKOFF_BASE = 1.0
BACKOFF_CAP = 30.0


class FailureKind(StrEnum):
    RATE_LIMIT = "rate-limit"
    TRANSIENT = "transient"
    FATAL = "fatal"


@dataclass(frozen=True)
class FailedRequest:
    """What the policy needs to know about a failure; ``status`` None means no response."""

    status: int | None
    headers: Mapping[str, str]
    message: str


@dataclass(frozen=True)
class Verdict:
    kind: FailureKind
    wait_seconds: float
    reason: str


class TransientFailure(SourceError):
    """A request kept failing with server or connection errors after every retry."""


def _header(headers: Mapping[str, str], name: str) -> str | None:
    lowered = name.lower()
    for key, value in headers.items():
        if key.lower() == lowered:
            return str(value)
    return None


def _retry_after_seconds(value: str, now: datetime) -> float | None:
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max((moment - now).total_seconds(), 0.0)


def _is_secondary_limit_message(message: str) -> bool:
    lowered = message.lower()
    return "secondary rate limit" in lowered or lowered.rstrip().endswith(
        ("please retry your request again later.", "please wait a few minutes before you try again.")
    )


def backoff_seconds(attempt: int) -> float:
    """Wait before retry number ``attempt`` (1-based) of a 5xx or connection error."""
    return min(BACKOFF_BASE * 2 ** (attempt - 1), BACKOFF_CAP)


def classify(failure: FailedRequest, *, now: datetime, attempt: int) -> Verdict:
    """How to treat a failed request; ``attempt`` counts the failures of this request so far (1-based)."""
    status = failure.status
    if status is None:
        reason = f"connection failed: {failure.message}"
        return Verdict(FailureKind.TRANSIENT, backoff_seconds(attempt), reason)
    if status >= 500:
        return Verdict(FailureKind.TRANSIENT, backoff_seconds(attempt), f"HTTP {status} from the server")
    if status in (403, 429):
        retry_after = _header(failure.headers, "Retry-After")
        if retry_after is not None:
            seconds = _retry_after_seconds(retry_after, now)
            if seconds is not None:
                return Verdict(FailureKind.RATE_LIMIT, seconds, "secondary rate limit (Retry-After)")
        remaining = _header(failure.headers, "X-RateLimit-Remaining")
        reset = _header(failure.headers, "X-RateLimit-Reset")
        exhausted = remaining is not None and remaining.strip() == "0"
        if exhausted and reset is not None and reset.strip().isdigit():
            reset_at = datetime.fromtimestamp(int(reset), UTC)
            seconds = max((reset_at - now).total_seconds(), 0.0) + 1.0
            return Verdict(FailureKind.RATE_LIMIT, seconds, "primary rate limit exhausted")
        if status == 429 or _is_secondary_limit_message(failure.message):
            seconds = SECONDARY_LIMIT_WAIT * 2 ** (attempt - 1)
            return Verdict(FailureKind.RATE_LIMIT, seconds, f"rate limited (HTTP {status})")
    return Verdict(FailureKind.FATAL, 0.0, f"HTTP {status}: {failure.message}")


class Retrier:
    """Runs requests under the policy above; one instance per run shares the wait budget."""

    def __init__(
        self,
        *,
        max_retries: int,
        max_rate_limit_wait: float,
        sleep: Callable[[float], None],
        clock: Callable[[], datetime],
    ) -> None:
        self.max_retries = max_retries
        self.max_rate_limit_wait = max_rate_limit_wait
        self.rate_limit_waited = 0.0
        self._sleep = sleep
        self._clock = clock

    def call(
        self,
        what: str,
        operation: Callable[[], T],
        *,
        failure_of: Callable[[BaseException], FailedRequest | None],
        retryable: tuple[type[BaseException], ...],
    ) -> T:
        """``operation()``, retried while the policy says so. Failures the policy calls fatal
        are re-raised as they came, for the caller to explain in its own terms."""
        failures = 0
        transient_failures = 0
        while True:
            try:
                return operation()
            except retryable as error:
                failure = failure_of(error)
                if failure is None:
                    raise
                failures += 1
                now = self._clock()
                verdict = classify(failure, now=now, attempt=failures)
                if verdict.kind is FailureKind.FATAL:
                    raise
                if verdict.kind is FailureKind.RATE_LIMIT:
                    self._wait_for_rate_limit(what, verdict, now)
                    continue
                transient_failures += 1
                if transient_failures > self.max_retries:
                    raise TransientFailure(
                        f"{what}: {verdict.reason}, still failing after {transient_failures} attempts"
                    ) from error
                logger.warning("%s: %s; retry %s in %.0f s", what, verdict.reason, transient_failures,
                               verdict.wait_seconds)
                self._sleep(verdict.wait_seconds)

    def _wait_for_rate_limit(self, what: str, verdict: Verdict, now: datetime) -> None:
        retry_at = now + timedelta(seconds=verdict.wait_seconds)
        if self.rate_limit_waited + verdict.wait_seconds > self.max_rate_limit_wait:
            raise RateLimitError(
                f"GitHub {verdict.reason} while reading {what}; stopped instead of waiting "
                f"{verdict.wait_seconds:.0f} s (this run may wait {self.max_rate_limit_wait:.0f} s in all, "
                f"already waited {self.rate_limit_waited:.0f} s)",
                retry_at=retry_at,
            )
        logger.warning("%s: %s; waiting %.0f s (until %s UTC)", what, verdict.reason, verdict.wait_seconds,
                       f"{retry_at:%H:%M:%S}")
        # Counted even when zero so a server that keeps refusing with no delay still ends the run.
        self.rate_limit_waited += max(verdict.wait_seconds, 1.0)
        self._sleep(verdict.wait_seconds)
