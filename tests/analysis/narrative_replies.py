"""Replies of the fake OpenAI server to week-narrative requests (`commit-digest narrate`), and
what a test reads back from such a request."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from tests.analysis.brief_replies import brief_responder, is_brief
from tests.fakes.openai_server import JsonObject, Reply, completion

NARRATIVE_TEXTS: dict[str, str] = {
    "zh": "本周 ROCm 上的改动以注意力内核的修复为主。升级后请回归测试长上下文场景。",
    "en": "This week's changes on the platform mostly fix attention kernels. Re-test long contexts after upgrading.",
}


def is_narrative(request: JsonObject) -> bool:
    system = next(m["content"] for m in request["messages"] if m["role"] == "system")
    return str(system).startswith("You write the weekly narrative")


def narrative_languages(request: JsonObject) -> list[str]:
    """The languages the request's schema asks for, in order."""
    return list(request["response_format"]["json_schema"]["schema"]["required"])


def narrative_content(languages: list[str], **overrides: Any) -> str:
    return json.dumps({**{code: NARRATIVE_TEXTS[code] for code in languages}, **overrides}, ensure_ascii=False)


def narrative_responder(request: JsonObject) -> Reply:
    """Answers a narrative request with a valid narrative in every language it asks for."""
    return completion(narrative_content(narrative_languages(request)))


def is_written(request: JsonObject) -> bool:
    """A narrative's or a brief's request: not an analysis."""
    return is_narrative(request) or is_brief(request)


def narratives_or(other: Callable[[JsonObject], Reply]) -> Callable[[JsonObject], Reply]:
    """Narrative requests get a narrative, brief requests a brief, the rest what ``other`` answers (an analysis)."""
    def respond(request: JsonObject) -> Reply:
        if is_brief(request):
            return brief_responder(request)
        return narrative_responder(request) if is_narrative(request) else other(request)

    return respond


def asked_for(user: str) -> tuple[str, str]:
    """(week id, first word of the platform's name) of a narrative request's user message."""
    week = re.search(r"^Week: (\d{4}-W\d{2}) ", user, re.MULTILINE)
    platform = re.search(r"^Platform: (\S+)", user, re.MULTILINE)
    assert week is not None and platform is not None, user
    return week.group(1), platform.group(1)


def listed_titles(user: str) -> list[str]:
    """The commit titles a narrative request lists, in order, between its boundary markers."""
    boundary = user.split('"<<<COMMITS ')[1].split('"')[0]
    block = user.split(f"<<<COMMITS {boundary}\n")[1].split(f"COMMITS {boundary}>>>")[0]
    return [line.split("] ", 2)[2] for line in block.splitlines() if line.startswith("- [")]
