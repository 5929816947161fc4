"""DingTalk's robot and WeCom's group robot: the day as one Markdown message each.

The two speak the same small Markdown (headings, bold, links, lists, inline code) with different
wrappers, limits and answers, so they share the body and differ in the rest:

- DingTalk: ``{"msgtype": "markdown", "markdown": {"title", "text"}, "at": {...}}``, the text at
  most 20,000 bytes; ``at`` names nobody and ``isAtAll`` is false. With a signing secret the query
  carries ``timestamp`` (ms) and ``sign`` (``signing``). Answers ``{"errcode": 0}``; 130101 (more
  than 20 messages a minute) is rate limited.
- WeCom: ``{"msgtype": "markdown", "markdown": {"content"}}``, the content at most 4,096 bytes.
  Answers ``{"errcode": 0}``; 45009 is rate limited.

Untrusted text is backslash-escaped (``inert.markdown_text``: ``<@userid>`` and ``@all`` stay text).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from commit_digest.notify.fitting import fitted, json_body, utf8_size
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
from commit_digest.notify.inert import markdown_link, markdown_text
from commit_digest.notify.markdown_lines import markdown_line
from commit_digest.notify.message import DayMessage
from commit_digest.notify.signing import dingtalk_sign

DINGTALK_TEXT_BYTES = 20_000
WECOM_CONTENT_BYTES = 4_096
DINGTALK_RATE_LIMIT_CODES = frozenset({130101})
WECOM_RATE_LIMIT_CODES = frozenset({45009})


def markdown_body(message: DayMessage) -> str:
    parts = [f"### {markdown_text(message.title)}", markdown_text(message.counts)]
    if message.scope:
        parts.append(markdown_text(message.scope))
    if message.brief:
        parts.append(f"**{markdown_text(message.brief.heading)}**\n\n{markdown_text(message.brief.text)}")
    for section in message.sections:
        lines = "\n".join(markdown_line(line) for line in section.lines)
        parts.append(f"**{markdown_text(section.heading)}**\n\n{lines}")
    if message.more:
        parts.append(markdown_text(message.more))
    parts.append(markdown_link(message.day_url, message.open_day))
    return "\n\n".join(parts)


def dingtalk_render(message: DayMessage) -> dict[str, Any]:
    return {
        "msgtype": "markdown",
        "markdown": {"title": message.title, "text": markdown_body(message)},
        "at": {"atMobiles": [], "atUserIds": [], "isAtAll": False},
    }


def dingtalk_payload(message: DayMessage) -> dict[str, Any]:
    return fitted(message, dingtalk_render, lambda sent: utf8_size(sent["markdown"]["text"]) <= DINGTALK_TEXT_BYTES)


def dingtalk_request(payload: dict[str, Any], url: str, secret: str | None, now: datetime) -> HttpRequest:
    params: dict[str, str] = {}
    if secret:
        timestamp = int(now.timestamp() * 1000)
        params = {"timestamp": str(timestamp), "sign": dingtalk_sign(secret, timestamp)}
    return HttpRequest(url, json_body(payload), params=params)


def wecom_render(message: DayMessage) -> dict[str, Any]:
    return {"msgtype": "markdown", "markdown": {"content": markdown_body(message)}}


def wecom_payload(message: DayMessage) -> dict[str, Any]:
    return fitted(message, wecom_render, lambda sent: utf8_size(sent["markdown"]["content"]) <= WECOM_CONTENT_BYTES)


def _errcode_judge(reply: Reply, now: datetime, rate_limited: frozenset[int]) -> Verdict:
    shared = http_judge(reply, now)
    if shared is not None:
        return shared
    try:
        answer = reply.json_object()
    except ValueError:
        return refused(f"HTTP {reply.status}: {reply.text()}")
    code = integer_code(answer.get("errcode"))
    if reply.status == 200 and code == 0:
        return ACCEPTED
    if code in rate_limited:
        return again(f"rate limited (errcode {code})")
    return refused(f"HTTP {reply.status}, errcode {code}: {answer.get('errmsg', '')}")


def dingtalk_judge(reply: Reply, now: datetime) -> Verdict:
    return _errcode_judge(reply, now, DINGTALK_RATE_LIMIT_CODES)


def wecom_judge(reply: Reply, now: datetime) -> Verdict:
    return _errcode_judge(reply, now, WECOM_RATE_LIMIT_CODES)
