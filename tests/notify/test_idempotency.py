"""The idempotency key of a day's message to a channel: the same for every post of it (a resend
too), different for another day, channel or site; the generic webhook carries it as a header and
in its body, an e-mail as its Message-ID. (A resend after a kill: ``test_at_most_once``.)"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from commit_digest.notify import webhook
from commit_digest.notify.config import EmailChannel
from commit_digest.notify.email_message import email_of
from commit_digest.notify.idempotency import IDEMPOTENCY_HEADER, idempotency_key, message_id
from commit_digest.notify.message import DayMessage
from tests.notify.conftest import SITE_URL


def _message(day: date, key: str) -> DayMessage:
    return DayMessage(
        channel="mail",
        language="en",
        day=day,
        site_name="Digest",
        title="Digest",
        counts="1 commit",
        stats={"total": 1},
        scope=None,
        sections=(),
        day_url=SITE_URL,
        open_day="Open the day",
        more_words="and {count} more",
        subject="Digest",
        footer="commit-digest",
        idempotency_key=key,
    )


def test_the_idempotency_key_is_stable_and_differs_per_day_and_channel() -> None:
    day = date(2026, 1, 8)
    key = idempotency_key(SITE_URL, day, "hook")
    assert key == idempotency_key(SITE_URL, day, "hook")
    others = {
        idempotency_key(SITE_URL, day + timedelta(days=1), "hook"),
        idempotency_key(SITE_URL, day, "slack"),
        idempotency_key("https://other.example.org/", day, "hook"),
    }
    assert key not in others and len(others) == 3
    channel = EmailChannel(type="email", name="mail", host_env="SMTP_HOST", sender="digest@example.org", to=("a@b.c",))
    now = datetime(2026, 1, 9, 3, tzinfo=UTC)
    first = email_of(_message(day, key), channel, now)["Message-ID"]
    assert first == email_of(_message(day, key), channel, now + timedelta(hours=1))["Message-ID"]
    assert first == message_id(key, "example.org") == f"<commit-digest.{key}@example.org>"
    assert first != email_of(_message(day, idempotency_key(SITE_URL, day, "other")), channel, now)["Message-ID"]


def test_the_generic_webhook_carries_the_key_as_a_header_and_in_its_signed_body() -> None:
    key = idempotency_key(SITE_URL, date(2026, 1, 8), "hook")
    payload = webhook.payload(_message(date(2026, 1, 8), key))
    sent = webhook.request(payload, "https://example.org/hook", "a-secret-of-length", datetime(2026, 1, 9, tzinfo=UTC))
    assert sent.headers[IDEMPOTENCY_HEADER] == key
    assert b'"idempotency_key":"' + key.encode() + b'"' in sent.body
    assert "X-Commit-Digest-Signature" in sent.headers
