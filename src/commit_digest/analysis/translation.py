"""Translating a stored analysis's wording into another language: one request per commit and language.

The analysis's own wording goes to the model as JSON between marker lines with a random boundary:
it was written from third-party text, so it is data, never instructions. The reply is validated
strictly — the schema, the length caps of ``models.AnalysisText``, no echo of the instructions —
and must keep the source's structure (as many items in every list, the same insights present),
so a translation cannot quietly drop or add anything. Type, importance and labels are the same
in every language and are not sent.

Like the analyzer, nothing raises past one translation: a fault becomes a failed or refused
``TranslationResult`` with its reason and the tokens it cost. An invalid reply is asked again
once; a reply cut off at the output limit is not (the same text would be cut off again).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from commit_digest import caps
from commit_digest.analysis import llm_schema
from commit_digest.analysis.exchange import StructuredWriter, ask
from commit_digest.analysis.llm_client import strict_schema_of
from commit_digest.analysis.llm_errors import InvalidReplyError
from commit_digest.analysis.llm_reply import ChatReply
from commit_digest.analysis.prompt import prompt_language_name, render
from commit_digest.analysis.quality_floor import floor_problem
from commit_digest.analysis.servers.session import ChatRequest
from commit_digest.analysis.task import Outcome
from commit_digest.analysis.verdict import Verdict, judge_reply
from commit_digest.models import (
    Analysis,
    AnalysisStatus,
    AnalysisText,
    Commit,
    LanguageCode,
    Provenance,
    TokenUsage,
)

# Bump when a template or the schema changes (stored translations are kept: they say the same).
TRANSLATE_PROMPT_VERSION = "translate-1"
# A marker only the system message contains: a reply holding it has echoed the instructions.
TRANSLATE_CANARY = "CD-CANARY-3f8d2a6c41"
# The caps of models.AnalysisText (caps.TRANSLATED): a translation must fit where its source fits.
SHORT_CAP = caps.TRANSLATED.short
NOTE_CAP = caps.TRANSLATED.note
PARAGRAPH_CAP = caps.TRANSLATED.paragraph

_Short = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=SHORT_CAP)]
_Note = Annotated[str, StringConstraints(strip_whitespace=True, max_length=NOTE_CAP)]
_Paragraph = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=PARAGRAPH_CAP)]
_Conclusion = Annotated[str, StringConstraints(strip_whitespace=True, max_length=PARAGRAPH_CAP)]


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TranslatedImpact(_Reply):
    area: _Short
    note: _Note = Field(description="empty when the source's note is empty")


# "N/A" where the source's insight is null is null here too, as in an analysis's own wording.
_Insight = Annotated[_Paragraph | None, BeforeValidator(llm_schema.nothing_is_null)]


class TranslatedInsights(_Reply):
    architecture: _Insight = Field(description="null when the source's is null")
    performance: _Insight = Field(description="null when the source's is null")
    security: _Insight = Field(description="null when the source's is null")
    maintainability: _Insight = Field(description="null when the source's is null")
    compatibility: _Insight = Field(description="null when the source's is null")


class TranslatedRecommendation(_Reply):
    audience: _Short
    advice: _Paragraph


class LlmTranslation(_Reply):
    """The worded fields of one analysis in the target language (models.AnalysisText, all required)."""

    summary: list[_Paragraph] = Field(min_length=1, max_length=caps.TRANSLATED.summary_items)
    impact_scope: list[TranslatedImpact] = Field(max_length=caps.TRANSLATED.impact_items)
    insights: TranslatedInsights
    risks: list[_Paragraph] = Field(max_length=caps.TRANSLATED.list_items)
    recommendations: list[TranslatedRecommendation] = Field(max_length=caps.TRANSLATED.list_items)
    conclusion: _Conclusion = Field(description="empty when the source's conclusion is empty")


@cache
def translation_schema() -> dict[str, Any]:
    return llm_schema.sendable_schema(strict_schema_of(LlmTranslation))


def source_json(text: AnalysisText) -> str:
    """The wording to translate as the model reads it: its fields only, no provenance."""
    return json.dumps(text.model_dump(mode="json", exclude={"provenance"}), ensure_ascii=False, indent=1)


def structure_problem(source: AnalysisText, translated: LlmTranslation) -> str | None:
    """Why ``translated`` does not have ``source``'s shape, or None when it does."""
    problems = [
        f"{name}: {len(translated_items)} items for {len(source_items)}"
        for name, source_items, translated_items in (
            ("summary", source.summary, translated.summary),
            ("impact_scope", source.impact_scope, translated.impact_scope),
            ("risks", source.risks, translated.risks),
            ("recommendations", source.recommendations, translated.recommendations),
        )
        if len(source_items) != len(translated_items)
    ]
    for name in TranslatedInsights.model_fields:
        if (getattr(source.insights, name) is None) != (getattr(translated.insights, name) is None):
            problems.append(f"insights.{name}: {'missing' if getattr(source.insights, name) else 'added'}")
    if bool(source.conclusion) != bool(translated.conclusion):
        problems.append(f"conclusion: {'missing' if source.conclusion else 'added'}")
    return "; ".join(problems) or None


def parse_translation(content: str, *, source: AnalysisText, extract: bool) -> LlmTranslation:
    """Validates a reply strictly: JSON, schema, caps, the source's structure, no leaked instructions."""
    if TRANSLATE_CANARY in content:
        raise InvalidReplyError("the reply repeats the instructions")
    text = llm_schema.extract_json_object(content) if extract else content.strip()
    parsed = llm_schema.validated_reply(LlmTranslation, text)
    problem = structure_problem(source, parsed)
    if problem is not None:
        raise InvalidReplyError(f"the translation does not keep the analysis's structure: {problem}")
    return parsed


TranslationVerdict = Verdict[LlmTranslation]
# One translation attempt: the text to store (ok only), or the reason it failed.
TranslationResult = Outcome[AnalysisText]


class Translator(StructuredWriter):
    """Translates analyses through an OpenAI-compatible chat endpoint. Building it sends nothing."""

    longest_cap = max(caps.TRANSLATED.paragraph, caps.TRANSLATED.note, caps.TRANSLATED.short)

    def system(self, source: LanguageCode, target: LanguageCode) -> str:
        """The static instructions for one pair of languages: the same for every commit."""
        return render(
            "translate_system.j2",
            repository_kind=self._repository,
            source_name=prompt_language_name(source),
            target_name=prompt_language_name(target),
            canary=TRANSLATE_CANARY,
            paragraph_cap=PARAGRAPH_CAP,
            note_cap=NOTE_CAP,
            short_cap=SHORT_CAP,
            schema=llm_schema.schema_text(translation_schema()),
        )

    def request(
        self, commit: Commit, analysis: Analysis, target: LanguageCode, boundary: str | None = None
    ) -> ChatRequest:
        """The request translating ``analysis``'s own wording into ``target`` (direct or a batch line)."""
        wording = source_json(analysis.text())
        boundary = boundary or self.boundary(wording, commit.title)
        user = render(
            "translate.j2",
            boundary=boundary,
            repository=commit.repository,
            sha=commit.sha,
            title=commit.title,
            analysis=wording,
            target_name=prompt_language_name(target),
        )
        return self.chat_request(self.system(analysis.language, target), user, translation_schema())

    def judge(
        self, reply: ChatReply, source: AnalysisText, target: LanguageCode, markers: tuple[str, ...] = ()
    ) -> TranslationVerdict:
        """A reply that parses is a translation only above the quality floor, as an analysis is."""

        def parse(content: str) -> LlmTranslation:
            translation = parse_translation(content, source=source, extract=self.extracts(reply))
            problem = floor_problem(self.text(translation, target, reply.usage), target, (TRANSLATE_CANARY, *markers))
            if problem is not None:
                raise InvalidReplyError(f"the translation is below the quality floor: {problem}")
            return translation

        return judge_reply(reply, parse)

    def result(self, verdict: TranslationVerdict, target: LanguageCode, usage: TokenUsage) -> TranslationResult:
        """The result of a final verdict (an invalid reply here is a failure: no more asking)."""
        return self.outcome(
            verdict, usage, lambda translation: Outcome(AnalysisStatus.OK, usage, self.text(translation, target, usage))
        )

    def translate(self, commit: Commit, analysis: Analysis, target: LanguageCode) -> TranslationResult:
        """``analysis``'s own wording in ``target``; an invalid reply is asked again once."""
        source = analysis.text()
        boundary = self.boundary(source_json(source), commit.title)
        return ask(
            self.session,
            self.request(commit, analysis, target, boundary),
            lambda reply: self.judge(reply, source, target, (boundary,)),
            lambda verdict, usage: self.result(verdict, target, usage),
            what=f"{commit.short_sha}: translation",
        )

    def text(self, translation: LlmTranslation, target: LanguageCode, usage: TokenUsage) -> AnalysisText:
        """The stored translation, with who made it and what it cost (``stats`` counts it)."""
        provenance = Provenance(
            analyzer=self.name,
            prompt_version=TRANSLATE_PROMPT_VERSION,
            created_at=self.clock(),
            language=target,
            usage=usage,
        )
        return AnalysisText.model_validate({**translation.model_dump(), "provenance": provenance})
