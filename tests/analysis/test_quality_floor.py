"""The quality floor, on the replies a 270M model held to a grammar wrote (issue 39, case 3)."""

from __future__ import annotations

import json

import pytest

from commit_digest.analysis.llm_schema import LlmAnalysis, to_text
from commit_digest.analysis.prompt import PROMPT_CANARY
from commit_digest.analysis.quality_floor import floor_problem, looped_sentence, reads_as_prose
from tests.fakes.openai_server import analysis_payload

BOUNDARY = "5f3a9c1e7b2d4f6a8c0e1b3d"


def _text(**overrides: object):  # type: ignore[no-untyped-def]
    return to_text(LlmAnalysis.model_validate(analysis_payload(**overrides)))


@pytest.mark.parametrize(
    "overrides",
    [
        {"summary": ["0"]},
        {"conclusion": ">1000000000"},
        {"insights": {**analysis_payload()["insights"], "performance": "1.25e7"}},
        {"insights": {**analysis_payload()["insights"], "architecture": "48k"}},
        {"risks": [f"{BOUNDARY} {BOUNDARY}"]},
        {"recommendations": [{"audience": "开发者", "advice": "!!!"}]},
    ],
    ids=["summary-0", "conclusion-number", "insight-float", "insight-48k", "risk-boundary", "advice-marks"],
)
def test_the_junk_a_small_model_wrote_is_below_the_floor(overrides: dict[str, object]) -> None:
    assert floor_problem(_text(**overrides), "zh", (BOUNDARY, PROMPT_CANARY)) is not None


def test_the_three_junk_replies_of_the_issue_are_each_refused() -> None:
    insights = {**analysis_payload()["insights"], "performance": "1.25e7", "compatibility": "48k"}
    replies = [
        _text(summary=["0"]),
        _text(conclusion=">1000000000", insights=insights),
        _text(risks=[f"[{BOUNDARY}]", f"{BOUNDARY} x"]),
    ]
    problems = [floor_problem(text, "zh", (BOUNDARY, PROMPT_CANARY)) for text in replies]
    assert problems[0] is not None and "summary[0]" in problems[0]
    assert problems[1] is not None and "conclusion" in problems[1]
    assert problems[2] is not None and "markers" in problems[2]


def test_prose_in_the_asked_language_passes() -> None:
    assert floor_problem(_text(), "zh", (BOUNDARY,)) is None
    english = json.loads(json.dumps(analysis_payload()))
    english.update(
        summary=["Fixes lost requests when the scheduler preempts."],
        conclusion="Worth a regression test of preemption.",
        risks=["Edge cases may remain."],
        recommendations=[{"audience": "developers", "advice": "Re-run the preemption tests."}],
        insights={**english["insights"], "performance": "No measurable change."},
    )
    assert floor_problem(to_text(LlmAnalysis.model_validate(english)), "en") is None


def test_reading_as_prose() -> None:
    assert reads_as_prose("修复调度器", "zh") and not reads_as_prose("0", "zh")
    assert not reads_as_prose("fix the bug", "zh")  # not in the asked language
    assert reads_as_prose("Speeds up MoE by 1.2x", "en")
    for junk in ("0", ">1000000000", "1.25e7", "48k", "v0.11", "—", "x"):
        assert not reads_as_prose(junk, "en"), junk


@pytest.mark.parametrize(
    "overrides",
    [
        {"summary": ["修复了调度器在抢占时丢失请求的问题"] * 6},
        {"summary": ["这个提交是一个新功能。" * 5]},
        {"risks": ["旧参数的调用方会静默失效。"] * 3},
        {"conclusion": "\n".join(["迁移到新的后端"] * 4)},
    ],
    ids=["summary-items", "summary-sentence", "risk-items", "conclusion-lines"],
)
def test_a_model_going_round_in_circles_is_below_the_floor(overrides: dict[str, object]) -> None:
    """What Gemma 3 270M wrote through llama-server: one item or sentence again and again."""
    problem = floor_problem(_text(**overrides), "zh")
    assert problem is not None and "repeats one" in problem


def test_an_english_sentence_looped_is_found_and_a_point_made_twice_is_not() -> None:
    looped = "This commit is a feature of the vllm-project/vllm code base. " * 5
    assert looped_sentence(looped) == "This commit is a feature of the vllm-project/vllm code base."
    assert looped_sentence("Callers break. Callers break. The flag is gone.") is None  # short, and twice
    assert looped_sentence("Moves to v0.10.2. Then v0.10.3. Drops v0.9 and v0.8.") is None
    twice = _text(risks=["旧参数的调用方会静默失效。", "旧参数的调用方会静默失效。"])
    assert floor_problem(twice, "zh") is None


@pytest.mark.parametrize("text", ["Supports MI300X.", "Adds FP8 GEMMs", "H100 only"])
def test_words_that_hold_digits_are_words(text: str) -> None:
    """Hardware and formats are named so: a good reply is not refused (and paid for again) over them."""
    assert reads_as_prose(text, "en")


@pytest.mark.parametrize("nothing", ["N/A", "None.", "无", "暂无。", " - "])
def test_an_insight_with_nothing_to_say_is_read_as_null_not_refused(nothing: str) -> None:
    insights = {**analysis_payload()["insights"], "security": nothing}
    text = _text(insights=insights)
    assert text.insights.security is None
    assert floor_problem(text, "zh") is None
