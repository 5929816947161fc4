"""The analysis as the LLM writes it, and its conversion into ``models.Analysis``.

OpenAI's strict JSON-schema mode wants every property required and no additional
properties, so this model differs from ``models.Analysis``: optional sections are
required-but-nullable, labels carry only an id and a reason, and there is no provenance.
Length caps are checked here after the reply (strict mode does not accept every
keyword) and stated in the prompt; a reply over a cap is invalid, never cut.

A site in two languages asks for both wordings in one request: the language-neutral fields
once, the worded ones under each language's code (``bilingual_reply_model``). A site in one
language asks exactly what ``LlmAnalysis`` describes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, ValidationError, create_model

from commit_digest import caps
from commit_digest.analysis.llm_errors import InvalidReplyError
from commit_digest.fields import LABEL_ID_PATTERN
from commit_digest.meaning.taxonomy import Classification, Taxonomy
from commit_digest.models import (
    LANGUAGE_CODES,
    Analysis,
    AnalysisText,
    ChangeType,
    ImpactItem,
    Importance,
    Label,
    LabelSource,
    LanguageCode,
    Provenance,
    Recommendation,
    TechnicalInsights,
    TokenUsage,
)
from commit_digest.store.hygiene import clean_strings

# Caps the prompt states (caps.ASKED, within what the store holds: a reply they allow is always stored).
SHORT_CAP = caps.ASKED.short
NOTE_CAP = caps.ASKED.note
PARAGRAPH_CAP = caps.ASKED.paragraph
MAX_SUMMARY_ITEMS = caps.ASKED.summary_items
MAX_IMPACT_ITEMS = caps.ASKED.impact_items
MAX_LIST_ITEMS = caps.ASKED.list_items
MAX_LABELS = caps.ASKED_LABELS

_Short = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=SHORT_CAP)]
_Paragraph = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=PARAGRAPH_CAP)]
_Note = Annotated[str, StringConstraints(strip_whitespace=True, max_length=NOTE_CAP)]
_Reason = Annotated[str, StringConstraints(strip_whitespace=True, max_length=SHORT_CAP)]
_LabelId = Annotated[str, StringConstraints(pattern=LABEL_ID_PATTERN, max_length=caps.LABEL_ID)]


class _LlmModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# A parsed reply: an ``LlmAnalysis``, or an instance of a ``bilingual_reply_model``.
LlmReply = _LlmModel


class LlmImpact(_LlmModel):
    area: _Short = Field(description="a module, path or feature the change touches")
    note: _Note = Field(description="how it is affected; may be empty")


# What models write for "nothing to say" where the schema asks for null: read as null, so that an
# otherwise good reply is not refused by the quality floor (and paid for again) over "N/A".
_NOTHING_TO_SAY = frozenset({"n/a", "na", "none", "null", "nothing", "-", "—", "无", "暂无", "没有", "不适用"})


def nothing_is_null(value: object) -> object:
    """A text that says there is nothing to say, as null (every wording model reads insights so)."""
    if isinstance(value, str) and value.strip().rstrip(".。").casefold() in _NOTHING_TO_SAY:
        return None
    return value


_Insight = Annotated[_Paragraph | None, BeforeValidator(nothing_is_null)]


class LlmInsights(_LlmModel):
    architecture: _Insight = Field(description="design and structure; null when nothing to say")
    performance: _Insight = Field(description="speed and memory; null when nothing to say")
    security: _Insight = Field(description="security; null when nothing to say")
    maintainability: _Insight = Field(description="code health; null when nothing to say")
    compatibility: _Insight = Field(description="APIs, configs, hardware; null when nothing to say")


class LlmRecommendation(_LlmModel):
    audience: _Short = Field(description="who should act, e.g. users, developers, operators")
    advice: _Paragraph


class LlmLabel(_LlmModel):
    id: _LabelId = Field(description="one of the taxonomy ids listed in the instructions")
    reason: _Reason = Field(description="why this label applies, from the commit")


class LlmAnalysis(_LlmModel):
    """What the model returns for one commit."""

    change_type: ChangeType
    importance: Importance
    summary: list[_Paragraph] = Field(min_length=1, max_length=MAX_SUMMARY_ITEMS)
    impact_scope: list[LlmImpact] = Field(max_length=MAX_IMPACT_ITEMS)
    insights: LlmInsights
    risks: list[_Paragraph] = Field(max_length=MAX_LIST_ITEMS)
    recommendations: list[LlmRecommendation] = Field(max_length=MAX_LIST_ITEMS)
    conclusion: _Paragraph
    platforms: list[LlmLabel] = Field(max_length=MAX_LABELS)
    subsystems: list[LlmLabel] = Field(max_length=MAX_LABELS)


class LlmWording(_LlmModel):
    """The worded fields of the analysis in one language."""

    summary: list[_Paragraph] = Field(min_length=1, max_length=MAX_SUMMARY_ITEMS)
    impact_scope: list[LlmImpact] = Field(max_length=MAX_IMPACT_ITEMS)
    insights: LlmInsights
    risks: list[_Paragraph] = Field(max_length=MAX_LIST_ITEMS)
    recommendations: list[LlmRecommendation] = Field(max_length=MAX_LIST_ITEMS)
    conclusion: _Paragraph


@cache
def bilingual_reply_model(languages: tuple[LanguageCode, LanguageCode]) -> type[LlmReply]:
    """What the model returns for one commit worded in two languages, the first the analysis's own:
    type, importance and labels once (label reasons in the first language), the worded fields
    under each language's code, in this order so the first wording is written first."""
    first, second = languages
    if first == second:
        raise ValueError(f"two different languages are needed, got {first} twice")
    return create_model(
        f"LlmAnalysis_{first}_{second}",
        __base__=_LlmModel,
        __doc__="What the model returns for one commit, worded in two languages.",
        change_type=(ChangeType, ...),
        importance=(Importance, ...),
        **{code: (LlmWording, ...) for code in languages},  # type: ignore[call-overload]
        platforms=(list[LlmLabel], Field(max_length=MAX_LABELS)),
        subsystems=(list[LlmLabel], Field(max_length=MAX_LABELS)),
    )


def reply_model(languages: Sequence[LanguageCode]) -> type[LlmReply]:
    """The reply's model for an analysis worded in ``languages`` (one or two, the first its own)."""
    if len(languages) == 1:
        return LlmAnalysis
    if len(languages) == 2:
        return bilingual_reply_model((languages[0], languages[1]))
    raise ValueError(f"an analysis is asked for in one or two languages, not {len(languages)}")


def reply_languages(model: type[BaseModel]) -> tuple[LanguageCode, ...]:
    """The language codes a two-language reply model words its fields under, in order; () for one."""
    return tuple(name for name in model.model_fields if name in LANGUAGE_CODES)  # type: ignore[misc]


def _without_keywords(schema: Any, keywords: frozenset[str]) -> Any:
    if isinstance(schema, dict):
        return {
            key: _without_keywords(value, keywords) for key, value in schema.items() if key not in keywords
        }
    if isinstance(schema, list):
        return [_without_keywords(item, keywords) for item in schema]
    return schema


# Keywords strict mode has rejected on some servers; the caps are enforced after the reply.
_UNSENT_KEYWORDS = frozenset({"maxLength", "minLength", "pattern"})


def _inlined(schema: Any, definitions: dict[str, Any], *, field_names: bool = False) -> Any:
    """``schema`` with each ``$ref`` replaced by its definition and no ``$defs`` nor ``title``
    keyword (``field_names``: ``schema`` is a ``properties`` object, whose keys are fields)."""
    if isinstance(schema, list):
        return [_inlined(item, definitions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if not field_names and "$ref" in schema:
        beside = {key: value for key, value in schema.items() if key != "$ref"}
        return _inlined({**definitions[schema["$ref"].rsplit("/", 1)[1]], **beside}, definitions)
    return {
        key: _inlined(value, definitions, field_names=not field_names and key == "properties")
        for key, value in schema.items()
        if field_names or key not in _NAMING_KEYWORDS
    }


# What names the code's own classes (LlmAnalysis, LlmInsights): a model that reads them in its
# prompt writes them back as analysis (SmolLM2's summary of "LlmAnalysis", "LlmInsights").
_NAMING_KEYWORDS = frozenset({"$defs", "title"})


def _undescribed(schema: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in schema.items() if key != "description"}


def sendable_schema(strict_schema: dict[str, Any]) -> dict[str, Any]:
    """The strict schema (from the SDK's converter) as it is sent and shown in the prompt: without
    the keywords strict mode may reject, and without a name of the code's (``_inlined``)."""
    # A class's docstring is its schema's description: written for this code's readers, not the model.
    classes = {name: _undescribed(definition) for name, definition in strict_schema.get("$defs", {}).items()}
    inlined = _inlined(_undescribed(strict_schema), classes)
    return _without_keywords(inlined, _UNSENT_KEYWORDS)  # type: ignore[no-any-return]


def response_schema(strict_schema: dict[str, Any], taxonomy: Taxonomy) -> dict[str, Any]:
    """The strict schema (from the SDK's converter) with the label ids narrowed to the taxonomy."""
    schema = sendable_schema(strict_schema)
    properties = schema["properties"]
    for field, ids in (("platforms", taxonomy.platform_ids), ("subsystems", taxonomy.subsystem_ids)):
        item = {
            "type": "object",
            "properties": {
                "id": {"type": "string", "enum": list(ids)},
                "reason": {"type": "string"},
            },
            "required": ["id", "reason"],
            "additionalProperties": False,
        }
        properties[field] = {**properties[field], "items": item}
    return schema


def schema_text(schema: dict[str, Any]) -> str:
    """The schema as the prompt shows it: stable key order so the prompt prefix never changes."""
    return json.dumps(schema, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# -- reading a reply ------------------------------------------------------------------------

_Parsed = TypeVar("_Parsed", bound=BaseModel)


def extract_json_object(text: str) -> str:
    """The first complete JSON object in ``text`` (plain-text mode wraps it in prose or fences)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, end = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return text[match.start() : end]
    raise InvalidReplyError("the reply holds no JSON object")


def validated_reply(model: type[_Parsed], text: str) -> _Parsed:
    """``text`` (a JSON object) as ``model``, its strings cleaned as the store cleans them, so what passes
    here is what gets stored: a text the store would find empty once its control characters are gone is
    refused now, before the answer is taken as paid for, not after."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidReplyError(f"the reply is not JSON: {error}") from error
    try:
        return model.model_validate(clean_strings(value))
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc']) or '(top)'}: {issue['msg']}"
            for issue in error.errors(include_url=False)
        )
        raise InvalidReplyError(f"the reply does not match the schema: {problems[:1500]}") from error


def parse_reply(
    content: str,
    *,
    taxonomy: Taxonomy,
    canary: str,
    extract: bool,
    model: type[LlmReply] = LlmAnalysis,
) -> LlmReply:
    """Validates a reply strictly: JSON, schema, caps, taxonomy ids, and no leaked instructions.

    ``model`` is ``LlmAnalysis`` or a ``bilingual_reply_model``; the reply is an instance of it."""
    if canary in content:
        # The model echoed the instructions (prompt injection or confusion): nothing of it is kept.
        raise InvalidReplyError("the reply repeats the instructions")
    text = extract_json_object(content) if extract else content.strip()
    parsed = validated_reply(model, text)
    platforms: list[LlmLabel] = getattr(parsed, "platforms")  # noqa: B009 - every reply model has them
    subsystems: list[LlmLabel] = getattr(parsed, "subsystems")  # noqa: B009
    unknown = [label.id for label in platforms if label.id not in taxonomy.platform_ids]
    unknown += [label.id for label in subsystems if label.id not in taxonomy.subsystem_ids]
    if unknown:
        raise InvalidReplyError(
            f"the reply uses labels outside the taxonomy: {', '.join(sorted(set(unknown)))}"
        )
    return parsed


# -- conversion ----------------------------------------------------------------------------


def merge_labels(
    rule_labels: Sequence[Label], llm_labels: Sequence[LlmLabel], order: Sequence[str]
) -> tuple[Label, ...]:
    """Rule labels keep their reasons; the model adds the ids the rules missed, marked as its own."""
    by_id: dict[str, Label] = {label.id: label for label in rule_labels}
    for proposed in llm_labels:
        if proposed.id not in by_id:
            by_id[proposed.id] = Label(id=proposed.id, source=LabelSource.LLM, reason=proposed.reason)
    position = {label_id: index for index, label_id in enumerate(order)}
    return tuple(sorted(by_id.values(), key=lambda label: position.get(label.id, len(position))))


def to_text(wording: LlmAnalysis | LlmWording) -> AnalysisText:
    """The worded fields of a reply (or of one language of a two-language reply)."""
    insights = wording.insights
    return AnalysisText(
        summary=tuple(wording.summary),
        impact_scope=tuple(ImpactItem(area=item.area, note=item.note) for item in wording.impact_scope),
        insights=TechnicalInsights(
            architecture=insights.architecture,
            performance=insights.performance,
            security=insights.security,
            maintainability=insights.maintainability,
            compatibility=insights.compatibility,
        ),
        risks=tuple(wording.risks),
        recommendations=tuple(
            Recommendation(audience=item.audience, advice=item.advice) for item in wording.recommendations
        ),
        conclusion=wording.conclusion,
    )


def to_analysis(
    reply: LlmReply,
    *,
    rules: Classification,
    taxonomy: Taxonomy,
    provenance: Provenance,
) -> Analysis:
    """The Analysis of a parsed reply, in ``provenance.language``; a two-language reply's other
    wording becomes its translation (no provenance of its own: its cost is the analysis's)."""
    languages = reply_languages(type(reply))
    if languages and languages[0] != provenance.language:
        raise ValueError(f"a reply worded first in {languages[0]} cannot be stored as {provenance.language}")
    own = to_text(getattr(reply, languages[0]) if languages else reply)
    analysis = Analysis(
        change_type=reply.change_type,
        importance=reply.importance,
        **{name: getattr(own, name) for name in AnalysisText.model_fields if name != "provenance"},
        platforms=merge_labels(rules.platforms, reply.platforms, taxonomy.platform_ids),
        subsystems=merge_labels(rules.subsystems, reply.subsystems, taxonomy.subsystem_ids),
        provenance=provenance,
    )
    for code in languages[1:]:
        analysis = analysis.with_translation(code, to_text(getattr(reply, code)))
    return analysis


def unsuccessful_analysis(provenance: Provenance, rules: Classification) -> Analysis:
    """A failed, refused or pending attempt: no content, only the rule labels for navigation."""
    return Analysis(platforms=rules.platforms, subsystems=rules.subsystems, provenance=provenance)


def provenance_for(
    *,
    analyzer: str,
    prompt_version: str,
    created_at: datetime,
    language: str,
    usage: TokenUsage,
    status: Any = None,
    error: str | None = None,
) -> Provenance:
    values: dict[str, Any] = {
        "analyzer": analyzer,
        "prompt_version": prompt_version,
        "created_at": created_at,
        "language": language,
        "usage": usage,
        "error": error[:4000] if error else None,
    }
    if status is not None:
        values["status"] = status
    return Provenance(**values)
