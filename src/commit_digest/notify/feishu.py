"""Feishu/Lark custom bot: the day as an interactive card (``msg_type: interactive``).

The card's header is plain text; its sections are ``div`` elements of ``lark_md`` in which every
untrusted text is escaped (``inert.lark_text``: ``<at user_id="all">`` stays text); a button opens
the day page. With a signing secret, the body carries ``timestamp`` and ``sign`` (``signing``).
A request body may hold at most 20 KB (the custom bot guide's error table, under code 9499 "Bad
Request"; the 30 KB of the app bots' message API is not the custom bot's); a bigger day is cut at a
line. Feishu answers 200 with ``{"code": 0}``; code 11232 (its flow control) means rate limited,
as does HTTP 429. 9499 is a bad request: retried, it would fail the same way, so it is refused.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from commit_digest.notify.fitting import fitted, json_body
from commit_digest.notify.http_sender import (
    ACCEPTED,
    HttpRequest,
    Reply,
    Verdict,
    again,
    http_judge,
    integer_code,
    refused,
)
from commit_digest.notify.inert import lark_text
from commit_digest.notify.message import DayMessage, MessageLine
from commit_digest.notify.signing import feishu_sign

MAX_BODY_BYTES = 20_000
RATE_LIMIT_CODES = frozenset({11232})


def _line(line: MessageLine) -> str:
    facts = " · ".join(lark_text(fact) for fact in (line.importance, line.change_type) if fact)
    repository = f"\\[{lark_text(line.repository)}\\] " if line.repository else ""
    text = f"- {repository}[{lark_text(line.title)}]({line.url}) {line.short_sha} ({facts})"
    if line.summary:
        text += f"\n  {lark_text(line.summary)}"
    return text


def _div(content: str) -> dict[str, Any]:
    return {"tag": "div", "text": {"tag": "lark_md", "content": content}}


def render(message: DayMessage) -> dict[str, Any]:
    facts = lark_text(message.counts) + (f"\n{lark_text(message.scope)}" if message.scope else "")
    elements: list[dict[str, Any]] = [_div(facts)]
    if message.brief:
        brief = message.brief
        elements.extend(({"tag": "hr"}, _div(f"**{lark_text(brief.heading)}**\n{lark_text(brief.text)}")))
    for section in message.sections:
        lines = "\n".join(_line(line) for line in section.lines)
        elements.extend(({"tag": "hr"}, _div(f"**{lark_text(section.heading)}**\n{lines}")))
    if message.more:
        elements.append(_div(lark_text(message.more)))
    button = {"tag": "button", "text": {"tag": "plain_text", "content": message.open_day}, "type": "primary"}
    elements.append({"tag": "action", "actions": [{**button, "url": message.day_url}]})
    card = {
        "config": {"wide_screen_mode": True},
        "header": {"template": "blue", "title": {"tag": "plain_text", "content": message.title}},
        "elements": elements,
    }
    return {"msg_type": "interactive", "card": card}


def fits(payload: dict[str, Any]) -> bool:
    # Room for the signature's two fields, added after the cut.
    return len(json_body(payload)) + 100 <= MAX_BODY_BYTES


def payload(message: DayMessage) -> dict[str, Any]:
    return fitted(message, render, fits)


def request(payload: dict[str, Any], url: str, secret: str | None, now: datetime) -> HttpRequest:
    if secret:
        timestamp = int(now.timestamp())
        payload = {"timestamp": str(timestamp), "sign": feishu_sign(secret, timestamp), **payload}
    return HttpRequest(url, json_body(payload))


def judge(reply: Reply, now: datetime) -> Verdict:
    shared = http_judge(reply, now)
    if shared is not None:
        return shared
    try:
        answer = reply.json_object()
    except ValueError:
        return refused(f"HTTP {reply.status}: {reply.text()}")
    code = integer_code(answer.get("code", answer.get("StatusCode")))
    if reply.status == 200 and code == 0:
        return ACCEPTED
    if code in RATE_LIMIT_CODES:
        return again(f"rate limited (code {code})")
    return refused(f"HTTP {reply.status}, code {code}: {answer.get('msg', answer.get('StatusMessage', ''))}")
