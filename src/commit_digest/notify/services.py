"""Each webhook service's parts in one table: how a message becomes its payload (fitted to its
limits), how a payload becomes a request (signed where the service signs), and what its answers
mean. A new service is a formatter module and one line here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from commit_digest.notify import discord, feishu, markdown_bots, slack, teams, webhook
from commit_digest.notify.fitting import json_body
from commit_digest.notify.http_sender import HttpRequest, Reply, Verdict
from commit_digest.notify.message import DayMessage

Payload = dict[str, Any]


def unsigned(payload: Payload, url: str, secret: str | None, now: datetime) -> HttpRequest:
    return HttpRequest(url, json_body(payload))


@dataclass(frozen=True)
class WebhookFormat:
    payload: Callable[[DayMessage], Payload]
    request: Callable[[Payload, str, str | None, datetime], HttpRequest]
    judge: Callable[[Reply, datetime], Verdict]
    limit: str  # the limit the payload is fitted to, as a reader would say it


SERVICES: dict[str, WebhookFormat] = {
    "slack": WebhookFormat(
        slack.payload, unsigned, slack.judge, "50 blocks, 3,000 characters a section, 40,000 in all"
    ),
    "feishu": WebhookFormat(feishu.payload, feishu.request, feishu.judge, "20,000 bytes a request body"),
    "dingtalk": WebhookFormat(
        markdown_bots.dingtalk_payload,
        markdown_bots.dingtalk_request,
        markdown_bots.dingtalk_judge,
        "20,000 bytes of Markdown",
    ),
    "wecom": WebhookFormat(markdown_bots.wecom_payload, unsigned, markdown_bots.wecom_judge, "4,096 bytes of Markdown"),
    "discord": WebhookFormat(discord.payload, unsigned, discord.judge, "6,000 characters an embed set"),
    "teams": WebhookFormat(teams.payload, unsigned, teams.judge, "28,000 bytes a message"),
    "webhook": WebhookFormat(webhook.payload, webhook.request, webhook.judge, "1,000,000 bytes a body"),
}
