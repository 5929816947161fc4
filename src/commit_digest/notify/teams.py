"""Microsoft Teams workflow webhook ("Post to a channel when a webhook request is received"): the day
as an Adaptive Card in a ``message`` attachment.

Untrusted text goes only into ``TextRun``s of ``RichTextBlock``s, which Adaptive Cards never read as
Markdown (a ``TextBlock`` would), so a title is never a link, formatting or a mention (a Teams
mention needs an ``msteams.entities`` entry, and the card has none); a commit's page opens from its
run's ``selectAction``. A Teams message holds about 28 KB (the Teams connector's "Post card in a
chat or channel", which the workflow runs, fails past it with "Request Entity too large"; the
incoming-webhook guide gives the same 28 KB), so the body is kept to 28,000 bytes of UTF-8 (sent
with ``charset=utf-8``: a body without it has been measured as UTF-16, twice its size); a bigger
day is cut at a line. The workflow answers 202 (or 200); 429 when rate limited.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from commit_digest.notify.fitting import fitted, json_body
from commit_digest.notify.http_sender import Reply, Verdict, status_judge
from commit_digest.notify.message import DayMessage, MessageLine

MAX_BODY_BYTES = 28_000
CARD_SCHEMA = "http://adaptivecards.io/schemas/adaptive-card.json"


def _run(text: str, **style: Any) -> dict[str, Any]:
    return {"type": "TextRun", "text": text, **style}


def _rich(*runs: dict[str, Any], **style: Any) -> dict[str, Any]:
    return {"type": "RichTextBlock", "inlines": list(runs), **style}


def _line(line: MessageLine) -> list[dict[str, Any]]:
    facts = " · ".join(fact for fact in (line.importance, line.change_type) if fact)
    runs = [_run(f"[{line.repository}] ")] if line.repository else []
    runs.append(_run(line.title, color="Accent", selectAction={"type": "Action.OpenUrl", "url": line.url}))
    runs.append(_run(f"  {line.short_sha} ({facts})", isSubtle=True))
    blocks = [_rich(*runs, spacing="Small")]
    if line.summary:
        blocks.append(_rich(_run(line.summary, isSubtle=True), spacing="None"))
    return blocks


def render(message: DayMessage) -> dict[str, Any]:
    body: list[dict[str, Any]] = [
        _rich(_run(message.title, weight="Bolder", size="Large")),
        _rich(_run(message.counts)),
    ]
    if message.scope:
        body.append(_rich(_run(message.scope, isSubtle=True), spacing="None"))
    if message.brief:
        body.append(_rich(_run(message.brief.heading, weight="Bolder"), separator=True, spacing="Medium"))
        body.append(_rich(_run(message.brief.text), spacing="Small"))
    for section in message.sections:
        body.append(_rich(_run(section.heading, weight="Bolder", size="Medium"), separator=True, spacing="Medium"))
        for line in section.lines:
            body.extend(_line(line))
    if message.more:
        body.append(_rich(_run(message.more, italic=True), spacing="Medium"))
    card = {
        "$schema": CARD_SCHEMA,
        "type": "AdaptiveCard",
        "version": "1.4",
        "msteams": {"width": "Full"},
        "body": body,
        "actions": [{"type": "Action.OpenUrl", "title": message.open_day, "url": message.day_url}],
    }
    attachment = {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": None, "content": card}
    return {"type": "message", "attachments": [attachment]}


def fits(payload: dict[str, Any]) -> bool:
    return len(json_body(payload)) <= MAX_BODY_BYTES


def payload(message: DayMessage) -> dict[str, Any]:
    return fitted(message, render, fits)


def judge(reply: Reply, now: datetime) -> Verdict:
    return status_judge(reply, now, (200, 202))
