"""Cutting a message to a service's limit at a line, never inside one.

A service refuses (or silently truncates) a message past its limit: WeCom's 4,096 bytes of
Markdown, DingTalk's 20,000, Slack's 50 blocks, Discord's 6,000 characters an embed set. The
formatter renders a message; ``fitted`` renders it whole, and when that does not fit, finds the
most lines that do (the size only grows with the lines shown, so a binary search suffices),
the rest counted in the message's "and N more" line beside the day page's link. The day's brief
counts as lines before the first (``DayMessage.shown``): cut a sentence at a time, last.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TypeVar

from commit_digest.errors import CommitDigestError
from commit_digest.notify.message import DayMessage

Payload = TypeVar("Payload")


class TooLargeError(CommitDigestError):
    """Not even the message's head fits the service's limit (a limit set far too low)."""


def fitted(message: DayMessage, render: Callable[[DayMessage], Payload], fits: Callable[[Payload], bool]) -> Payload:
    """``render(message)`` with as many of its lines as fit (``fits``)."""
    whole = render(message)
    if fits(whole):
        return whole
    low, high = 0, message.unit_count - 1
    best: Payload | None = None
    while low <= high:
        middle = (low + high) // 2
        payload = render(message.shown(middle))
        if fits(payload):
            best, low = payload, middle + 1
        else:
            high = middle - 1
    if best is None:
        raise TooLargeError(f"the message for {message.day} does not fit the service's limit even without a line")
    return best


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))


def json_body(payload: object) -> bytes:
    """The bytes a payload is sent as (and measured by): compact JSON, UTF-8, non-ASCII as is."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
