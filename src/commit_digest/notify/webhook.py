"""The generic JSON webhook: the day as data, for a receiver of one's own (a bot, a bridge, a log).

The body is the message as JSON (``type: commit-digest.day``): the counts as numbers, then each
section with its commits' title, page, sha, importance, type, author and summary, as plain text
(JSON escapes what it must; what a receiver shows, it escapes for its own markup). With a secret,
``X-Commit-Digest-Timestamp`` and ``X-Commit-Digest-Signature`` sign the body (``signing``). The
message's idempotency key (``idempotency``: site, day, channel) is the ``Idempotency-Key`` header
and the body's ``idempotency_key``, the same on a resend: a receiver that keeps the keys it has seen
drops a second copy. Any 2xx is accepted; 429 and 5xx are tried again. Bodies are cut at a line
past 1 MB.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from commit_digest.notify.fitting import fitted, json_body
from commit_digest.notify.http_sender import HttpRequest, Reply, Verdict, status_judge
from commit_digest.notify.idempotency import IDEMPOTENCY_HEADER
from commit_digest.notify.message import DayMessage
from commit_digest.notify.signing import webhook_signature

MAX_BODY_BYTES = 1_000_000
PAYLOAD_TYPE = "commit-digest.day"


def render(message: DayMessage) -> dict[str, Any]:
    return {
        "type": PAYLOAD_TYPE,
        "channel": message.channel,
        "language": message.language,
        "day": message.day.isoformat(),
        "site_name": message.site_name,
        "title": message.title,
        "counts": message.stats,
        "counts_text": message.counts,
        "scope": message.scope,
        "brief": (
            {
                "heading": message.brief.heading,
                "sentences": [dataclasses.asdict(line) for line in message.brief.sentences],
            }
            if message.brief
            else None
        ),
        "sections": [
            {"heading": section.heading, "commits": [dataclasses.asdict(line) for line in section.lines]}
            for section in message.sections
        ],
        "more": message.more,
        "left_out": message.hidden,
        "day_url": message.day_url,
        "idempotency_key": message.idempotency_key,
    }


def payload(message: DayMessage) -> dict[str, Any]:
    return fitted(message, render, lambda sent: len(json_body(sent)) <= MAX_BODY_BYTES)


def request(payload: dict[str, Any], url: str, secret: str | None, now: datetime) -> HttpRequest:
    body = json_body(payload)
    headers: dict[str, str] = {}
    if payload.get("idempotency_key"):
        headers[IDEMPOTENCY_HEADER] = str(payload["idempotency_key"])
    if secret:
        timestamp = int(now.timestamp())
        headers["X-Commit-Digest-Timestamp"] = str(timestamp)
        headers["X-Commit-Digest-Signature"] = webhook_signature(secret, timestamp, body)
    return HttpRequest(url, body, headers=headers)


def judge(reply: Reply, now: datetime) -> Verdict:
    return status_judge(reply, now, range(200, 300))
