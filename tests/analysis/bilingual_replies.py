"""Replies of the fake OpenAI server for two-language analyses and translations, and stored
analyses to translate. The server's own helpers answer one-language analyses."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from commit_digest.models import (
    Analysis,
    ImpactItem,
    Importance,
    Provenance,
    Recommendation,
    TechnicalInsights,
    TokenUsage,
)
from tests.fakes.openai_server import JsonObject, Reply, analysis_payload, completion

WORDED = ("summary", "impact_scope", "insights", "risks", "recommendations", "conclusion")
ENGLISH_WORDING: JsonObject = {
    "summary": ["Fixes the scheduler losing requests on preemption."],
    "impact_scope": [{"area": "vllm/v1/core", "note": "the scheduler"}],
    "insights": {
        "architecture": None,
        "performance": "No visible effect.",
        "security": None,
        "maintainability": None,
        "compatibility": None,
    },
    "risks": ["Edge cases may still be uncovered."],
    "recommendations": [{"audience": "developers", "advice": "Re-test preemption after upgrading."}],
    "conclusion": "Watch for scheduler regressions.",
}


def chinese_wording() -> JsonObject:
    payload = analysis_payload()
    return {name: payload[name] for name in WORDED}


def bilingual_payload(first: str = "zh", second: str = "en", **overrides: Any) -> JsonObject:
    """A valid two-language analysis reply; ``overrides`` replace top-level fields."""
    wordings = {"zh": chinese_wording(), "en": ENGLISH_WORDING}
    neutral = analysis_payload()
    payload: JsonObject = {
        "change_type": neutral["change_type"],
        "importance": neutral["importance"],
        first: wordings[first],
        second: wordings[second],
        "platforms": neutral["platforms"],
        "subsystems": neutral["subsystems"],
    }
    payload.update(overrides)
    return payload


def bilingual_content(first: str = "zh", second: str = "en", **overrides: Any) -> str:
    return json.dumps(bilingual_payload(first, second, **overrides), ensure_ascii=False)


def is_translation(request: JsonObject) -> bool:
    system = next(m["content"] for m in request["messages"] if m["role"] == "system")
    return system.startswith("You translate one structured analysis")


def source_of(request: JsonObject) -> JsonObject:
    """The analysis a translation request sends, read between its boundary markers."""
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    boundary = user.split('"<<<ANALYSIS ')[1].split('"')[0]
    block = user.split(f"<<<ANALYSIS {boundary}\n")[1].rsplit(f"ANALYSIS {boundary}>>>", 1)[0]
    return json.loads(block.split("\n\n", 1)[1])


ENGLISH_MARK = "EN in English 英文"


def translated(source: JsonObject) -> JsonObject:
    """A faithful-looking translation: the source's structure, every text marked as English (in
    words of either language, so each text reads as prose to the quality floor)."""

    def mark(value: Any) -> Any:
        if isinstance(value, str):
            return f"{ENGLISH_MARK} {value}" if value else value
        if isinstance(value, list):
            return [mark(item) for item in value]
        if isinstance(value, dict):
            return {key: mark(item) for key, item in value.items()}
        return value

    return mark(source)


def language_responder(request: JsonObject) -> Reply:
    """Answers translations with a translation of what was sent, two-language analysis requests
    with both wordings, and the rest with a one-language analysis."""
    if is_translation(request):
        return completion(json.dumps(translated(source_of(request)), ensure_ascii=False))
    schema_text = next(m["content"] for m in request["messages"] if m["role"] == "system")
    if 'under "en"' in schema_text and 'under "zh"' in schema_text:
        first = "zh" if schema_text.index('under "zh"') < schema_text.index('under "en"') else "en"
        return completion(bilingual_content(first, "en" if first == "zh" else "zh"))
    return completion(json.dumps(analysis_payload(), ensure_ascii=False))


def stored_analysis(
    analyzer: str = "llm:gpt-4o-mini", *, language: str = "zh", minutes: int = 0, summary: str = "修复了调度器的问题。"
) -> Analysis:
    """An ok analysis as `analyze` or `import-legacy` stores it, in Chinese unless told."""
    return Analysis(
        importance=Importance.MEDIUM,
        summary=(summary, "第二条摘要。"),
        impact_scope=(ImpactItem(area="vllm/v1/core", note=""),),
        insights=TechnicalInsights(performance="没有明显影响。"),
        risks=("边界情况。",),
        recommendations=(Recommendation(audience="开发者", advice="回归测试。"),),
        conclusion="" if analyzer.startswith("legacy") else "值得关注。",
        provenance=Provenance(
            analyzer=analyzer,
            prompt_version="llm-1" if analyzer.startswith("llm:") else "",
            created_at=datetime(2026, 1, 9, 6, 0, tzinfo=UTC) + timedelta(minutes=minutes),
            language=language,
            usage=TokenUsage(prompt_tokens=1000, completion_tokens=200) if analyzer.startswith("llm:") else None,
        ),
    )
