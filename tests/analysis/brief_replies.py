"""Replies of the fake OpenAI server to day-brief requests (`commit-digest brief`), and what a test
reads back from such a request."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.fakes.openai_server import JsonObject, Reply, completion

SENTENCES: dict[str, list[str]] = {
    "zh": ["当天的改动以注意力内核的修复为主。", "升级后请回归测试长上下文场景。", "量化路径也有小幅调整，值得留意。"],
    "en": [
        "The day's changes mostly fix attention kernels.",
        "Re-test long contexts after upgrading.",
        "The quantization path also moved a little, worth a look.",
    ],
}


def is_brief(request: JsonObject) -> bool:
    system = next(m["content"] for m in request["messages"] if m["role"] == "system")
    return str(system).startswith("You write the daily brief")


def brief_languages(request: JsonObject) -> list[str]:
    return list(request["response_format"]["json_schema"]["schema"]["required"])


def user_of(request: JsonObject) -> str:
    return str(next(m["content"] for m in request["messages"] if m["role"] == "user"))


def listed_ids(user: str) -> list[str]:
    """The commit ids a brief request lists, in order."""
    return re.findall(r"^- id ([0-9a-f]{12}) \[", user, re.MULTILINE)


def asked_for(user: str) -> tuple[str, str]:
    """(day, first word of the platform's name, or "all") of a brief request's user message."""
    day = re.search(r"^Day: (\d{4}-\d{2}-\d{2})$", user, re.MULTILINE)
    platform = re.search(r"^Platform: (\S+)", user, re.MULTILINE)
    assert day is not None, user
    return day.group(1), platform.group(1) if platform else "all"


def fewest(user: str) -> int:
    found = re.search(r"JSON object now, (\d) to (\d) sentences", user)
    assert found is not None, user
    return int(found.group(1))


def brief_content(request: JsonObject, cite: list[str] | None = None, **overrides: Any) -> str:
    """A valid brief for ``request``: as few sentences as it asks, each citing ``cite`` (default: the
    first listed commit)."""
    user = user_of(request)
    cited = cite if cite is not None else listed_ids(user)[:1]
    count = fewest(user)
    languages = brief_languages(request)
    content = {code: [{"text": text, "commits": cited} for text in SENTENCES[code][:count]] for code in languages}
    return json.dumps({**content, **overrides}, ensure_ascii=False)


def brief_responder(request: JsonObject) -> Reply:
    return completion(brief_content(request))
