"""The quality floor: what a reply's wording must be before it is stored as an analysis.

A JSON schema holds the shape, not the sense: a small model held to a grammar fills every field
with "0", ">1000000000" or "48k", or copies the prompt's own markers, and the reply validates.
A text passes here when it reads as prose in the asked language (a few words of letters: Han
characters for Chinese, words of two or more Latin letters for English) and holds none of the
prompt's markers (its boundary, its canary). Labels outside the taxonomy are refused where the
reply is parsed (llm_schema.parse_reply). Pure: text in, the first problem (or None) out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from commit_digest.models import AnalysisText, LanguageCode

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2,}(?![A-Za-z0-9])")
# The fewest letters that read as a phrase: Han characters, or English words.
MIN_HAN = 2
MIN_WORDS = 2


def reads_as_prose(text: str, language: LanguageCode) -> bool:
    """Whether ``text`` has a few words of letters in ``language`` (not digits or marks alone)."""
    if language == "zh":
        return len(_HAN.findall(text)) >= MIN_HAN
    return len(_LATIN_WORD.findall(text)) >= MIN_WORDS


def _prose_fields(text: AnalysisText) -> Iterator[tuple[str, str]]:
    for index, item in enumerate(text.summary):
        yield f"summary[{index}]", item
    if text.conclusion:  # an analysis must have one (its schema says so); a legacy report's translation has none
        yield "conclusion", text.conclusion
    for name in ("architecture", "performance", "security", "maintainability", "compatibility"):
        value = getattr(text.insights, name)
        if value is not None:
            yield f"insights.{name}", value
    for index, item in enumerate(text.risks):
        yield f"risks[{index}]", item
    for index, recommendation in enumerate(text.recommendations):
        yield f"recommendations[{index}].advice", recommendation.advice


def _all_fields(text: AnalysisText) -> Iterator[tuple[str, str]]:
    yield from _prose_fields(text)
    for index, item in enumerate(text.impact_scope):
        yield f"impact_scope[{index}].area", item.area
        yield f"impact_scope[{index}].note", item.note
    for index, recommendation in enumerate(text.recommendations):
        yield f"recommendations[{index}].audience", recommendation.audience


def floor_problem(text: AnalysisText, language: LanguageCode, markers: Sequence[str] = ()) -> str | None:
    """Why ``text`` (a wording in ``language``) is below the floor, or None when it passes."""
    markers = tuple(marker for marker in markers if marker)
    for where, value in _all_fields(text):
        if any(marker in value for marker in markers):
            return f"{where} repeats the prompt's markers"
    for where, value in _prose_fields(text):
        if not reads_as_prose(value, language):
            shown = value if len(value) <= 40 else value[:40] + "…"
            return f"{where} does not read as {'Chinese' if language == 'zh' else 'English'} prose: {shown!r}"
    return None
