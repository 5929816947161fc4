"""Discord webhook: the day as one embed (title linking the day page, the lines in its description).

Limits (Discord's message reference): an embed's title 256 characters, its description 4,096, its
footer 2,048, and 6,000 characters across a message's embeds; a bigger day is cut at a line.
``allowed_mentions: {"parse": []}`` lets nothing ping, and untrusted text is Markdown-escaped
(``inert.markdown_text``). Discord answers 204 (or 200); 429 with ``Retry-After`` (and
``retry_after`` in its JSON) when rate limited.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from commit_digest.notify.fitting import fitted
from commit_digest.notify.http_sender import Reply, Verdict, again, status_judge, wait_seconds
from commit_digest.notify.inert import markdown_link, markdown_text
from commit_digest.notify.markdown_lines import markdown_line
from commit_digest.notify.message import DayMessage

TITLE_CHARACTERS = 256
DESCRIPTION_CHARACTERS = 4096
FOOTER_CHARACTERS = 2048
EMBEDS_CHARACTERS = 6000
COLOR = 0x3B82F6


def render(message: DayMessage) -> dict[str, Any]:
    parts = [markdown_text(message.counts)]
    if message.brief:
        parts.append(f"**{markdown_text(message.brief.heading)}**\n{markdown_text(message.brief.text)}")
    for section in message.sections:
        parts.append(
            f"**{markdown_text(section.heading)}**\n" + "\n".join(markdown_line(line) for line in section.lines)
        )
    if message.more:
        parts.append(markdown_text(message.more))
    parts.append(markdown_link(message.day_url, message.open_day))
    embed: dict[str, Any] = {
        "title": markdown_text(message.title)[:TITLE_CHARACTERS],
        "url": message.day_url,
        "description": "\n\n".join(parts),
        "color": COLOR,
    }
    if message.scope:
        embed["footer"] = {"text": message.scope[:FOOTER_CHARACTERS]}
    return {"embeds": [embed], "allowed_mentions": {"parse": []}}


def embed_characters(embed: dict[str, Any]) -> int:
    """What Discord counts toward the 6,000: title, description, footer (and fields, author: none here)."""
    return len(embed["title"]) + len(embed["description"]) + len(embed.get("footer", {}).get("text", ""))


def fits(payload: dict[str, Any]) -> bool:
    embeds = payload["embeds"]
    return (
        all(len(embed["description"]) <= DESCRIPTION_CHARACTERS for embed in embeds)
        and sum(embed_characters(embed) for embed in embeds) <= EMBEDS_CHARACTERS
    )


def payload(message: DayMessage) -> dict[str, Any]:
    return fitted(message, render, fits)


def judge(reply: Reply, now: datetime) -> Verdict:
    if reply.status == 429 and "retry-after" not in reply.headers:
        try:
            wait = wait_seconds(reply.json_object().get("retry_after"))
        except ValueError:
            wait = None
        return again("rate limited (HTTP 429)", wait)
    return status_judge(reply, now, (200, 204))
