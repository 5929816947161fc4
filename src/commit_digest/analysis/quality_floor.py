"""The quality floor: what a reply's wording must be before it is stored as an analysis.

A JSON schema holds the shape, not the sense: a small model held to a grammar fills every field
with "0", ">1000000000" or "48k", or copies the prompt's own markers, and the reply validates.
A text passes here when it reads as prose in the asked language (a few words of letters: Han
characters for Chinese, words of two or more Latin letters for English) and holds none of the
prompt's markers (its boundary, its canary), and it does not go round in circles: a small model
that loops writes one sentence again and again in a text, or one item again and again in a list
(Gemma 3 270M: "This commit is a feature, not a bugfix" six times as the summary). Labels outside
the taxonomy are refused where the reply is parsed (llm_schema.parse_reply). Pure: text in, the
first problem (or None) out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from commit_digest.models import AnalysisText, LanguageCode

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# A word starts with a letter and may hold digits ("FP8", "MI300X", "H100"); "48k" and "1.25e7" do
# not start with one, and a single letter ("A") is no word.
_LATIN_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]+")
# The fewest letters that read as a phrase: Han characters, or English words.
MIN_HAN = 2
MIN_WORDS = 2
# A sentence (of at least a few words) written this many times in one text, or an item this many
# times in one list, is a loop, not an analysis; twice may be a careless but real answer.
LOOP_REPEATS = 3
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\n+")
_MIN_LOOPED_CHARACTERS = 6  # six Han characters, or two short English words


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


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def loop_key(part: str) -> str | None:
    """What two parts that say the same thing have alike (spacing and case aside); None for a part
    too short to count as a loop when repeated."""
    key = _normal(part)
    return key if len(key) >= _MIN_LOOPED_CHARACTERS else None


def _looped(parts: Sequence[str]) -> str | None:
    """The first part (of a few words at least) found ``LOOP_REPEATS`` times in ``parts``."""
    counts: dict[str, int] = {}
    for part in parts:
        key = loop_key(part)
        if key is None:
            continue
        counts[key] = counts.get(key, 0) + 1
        if counts[key] >= LOOP_REPEATS:
            return part.strip()
    return None


def _loop_problem(text: AnalysisText) -> str | None:
    lists = {
        "summary": text.summary,
        "risks": text.risks,
        "recommendations": [recommendation.advice for recommendation in text.recommendations],
    }
    for where, items in lists.items():
        if (item := _looped(items)) is not None:
            return f"{where} repeats one item {LOOP_REPEATS} times or more: {_shown(item)!r}"
    for where, value in _prose_fields(text):
        if (sentence := looped_sentence(value)) is not None:
            return f"{where} repeats one sentence {LOOP_REPEATS} times or more: {_shown(sentence)!r}"
    return None


def looped_sentence(text: str) -> str | None:
    """A sentence ``text`` says ``LOOP_REPEATS`` times or more (a model in a loop), else None."""
    return _looped(_SENTENCE_END.split(text))


def _shown(value: str) -> str:
    return value if len(value) <= 40 else value[:40] + "…"


def floor_problem(text: AnalysisText, language: LanguageCode, markers: Sequence[str] = ()) -> str | None:
    """Why ``text`` (a wording in ``language``) is below the floor, or None when it passes."""
    markers = tuple(marker for marker in markers if marker)
    for where, value in _all_fields(text):
        if any(marker in value for marker in markers):
            return f"{where} repeats the prompt's markers"
    for where, value in _prose_fields(text):
        if not reads_as_prose(value, language):
            return f"{where} does not read as {'Chinese' if language == 'zh' else 'English'} prose: {_shown(value)!r}"
    return _loop_problem(text)


def language_problem(code: LanguageCode, text: str) -> str | None:
    """Why ``text`` is plainly not in ``code``'s language (judged by its script), or None."""
    han = len(_HAN.findall(text))
    if code == "zh" and han == 0:
        return "zh: no Chinese characters"
    letters = sum(1 for char in text if char.isalpha())
    if code == "en" and han > 0.2 * max(letters, 1):
        return "en: mostly Chinese characters"
    return None
