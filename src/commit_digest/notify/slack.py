"""Slack incoming webhook: the day as Block Kit blocks, with a plain ``text`` for notifications.

Limits (Slack's Block Kit reference): 50 blocks a message, 3,000 characters a section's text, 150
a header's; and Slack truncates a message past 40,000 characters, so the blocks' texts stay under.
A section's lines are split over as many section blocks as its text needs; what does
not fit the 50 blocks is cut at a line (``fitting``). Untrusted text is mrkdwn-escaped
(``inert.slack_text``). Slack answers 200 ``ok``; 429 with ``Retry-After`` when rate limited.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from commit_digest.notify.fitting import fitted
from commit_digest.notify.http_sender import Reply, Verdict, status_judge
from commit_digest.notify.inert import slack_link, slack_text
from commit_digest.notify.message import DayMessage, MessageLine

MAX_BLOCKS = 50
SECTION_CHARACTERS = 3000
HEADER_CHARACTERS = 150
MESSAGE_CHARACTERS = 40_000
FALLBACK_CHARACTERS = 3000  # the notification's text: the counts, not the whole day


def _line(line: MessageLine) -> str:
    facts = " · ".join(slack_text(fact) for fact in (line.importance, line.change_type) if fact)
    repository = f"[{slack_text(line.repository)}] " if line.repository else ""
    text = f"• {repository}{slack_link(line.url, line.title)} `{line.short_sha}` ({facts})"
    if line.summary:
        text += f"\n    {slack_text(line.summary)}"
    return text


def _sections(heading: str, lines: list[str]) -> list[dict[str, Any]]:
    """A heading and its lines as section blocks of at most SECTION_CHARACTERS each."""
    blocks: list[dict[str, Any]] = []
    text = f"*{slack_text(heading)}*"
    for line in lines:
        if len(text) + 1 + len(line) > SECTION_CHARACTERS:
            blocks.append(_section(text))
            text = line
        else:
            text += "\n" + line
    blocks.append(_section(text))
    return blocks


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def render(message: DayMessage) -> dict[str, Any]:
    header = message.title if len(message.title) <= HEADER_CHARACTERS else message.title[: HEADER_CHARACTERS - 1] + "…"
    blocks: list[dict[str, Any]] = [{"type": "header", "text": {"type": "plain_text", "text": header}}]
    facts = [slack_text(message.counts)] + ([slack_text(message.scope)] if message.scope else [])
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": fact} for fact in facts]})
    if message.brief:
        blocks.extend(_sections(message.brief.heading, [slack_text(line.text) for line in message.brief.sentences]))
    for section in message.sections:
        blocks.extend(_sections(section.heading, [_line(line) for line in section.lines]))
    ending = slack_link(message.day_url, message.open_day)
    if message.more:
        ending = f"{slack_text(message.more)}\n{ending}"
    blocks.append(_section(ending))
    fallback = f"{message.title}: {message.counts}"[:FALLBACK_CHARACTERS]
    return {"text": slack_text(fallback), "blocks": blocks, "unfurl_links": False, "unfurl_media": False}


def fits(payload: dict[str, Any]) -> bool:
    blocks = payload["blocks"]
    sections = [len(block["text"]["text"]) for block in blocks if block["type"] == "section"]
    return (
        len(blocks) <= MAX_BLOCKS
        and all(length <= SECTION_CHARACTERS for length in sections)
        and sum(sections) + len(payload["text"]) <= MESSAGE_CHARACTERS
    )


def payload(message: DayMessage) -> dict[str, Any]:
    return fitted(message, render, fits)


def judge(reply: Reply, now: datetime) -> Verdict:
    return status_judge(reply, now, (200,))
