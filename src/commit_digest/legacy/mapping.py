"""A legacy section's fields onto the Analysis schema (pure).

The reports' vocabulary drifted (Bug修复, Bug 修复, Bugfix…), fields came as bullets, tables
or prose, and some answers were cut off. Every text is kept somewhere: what has no field of
its own goes, as text, into the nearest one, and each such decision is noted so the import
can say what it could not map.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from commit_digest.legacy.blocks import Item, parse_items
from commit_digest.legacy.parse import FieldBlock, Group, Section
from commit_digest.legacy.vocabulary import (
    change_type_from_text,
    dimension_in_text,
    importance_from_text,
    insight_dimension,
    nearest_for_insight,
)
from commit_digest.models import (
    Analysis,
    AnalysisStatus,
    ChangeType,
    ImpactItem,
    Importance,
    Label,
    Provenance,
    Recommendation,
    TechnicalInsights,
)

PARAGRAPH_LIMIT = 2000
SHORT_LIMIT = 300
NOTE_LIMIT = 1000
SUMMARY_ITEMS, IMPACT_ITEMS, RISK_ITEMS, RECOMMENDATION_ITEMS = 12, 30, 15, 15
DEFAULT_AUDIENCE = "通用"
LEGACY_PROMPT_VERSION = "legacy"

_SENTENCE_END = re.compile(r"[。！？!?；;\n]|\.(?=\s|$)")
_CODE_AREA = re.compile(r"^(?P<area>`[^`]+`(?:\s*[、,，/及和]\s*`[^`]+`)*)\s*(?P<note>.*)$", re.DOTALL)
_AREA_SPLIT = re.compile(r"[：:]")
_CLAUSE_END = re.compile(r"[，,；;（(]")
_PATH_IN_CODE = re.compile(r"`([^`\s]+)`")
_PATH_LIKE = re.compile(
    r"^(?:[\w.-]+/)+[\w.*-]*$|^[\w-]+\.(?:py|pyi|cu|cuh|cpp|cc|c|h|hpp|md|rst|yaml|yml|toml|txt|sh|json|proto)$"
)
_LIST_FIELDS = frozenset({"summary", "impact", "insights", "risks", "recommendations"})


@dataclass
class MappingNotes:
    """What the mapping could not place exactly: reported, never an error."""

    unmapped: list[str] = field(default_factory=list)  # "<field>: <label> → <where it went>"
    truncated: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MappedSection:
    analysis: Analysis
    notes: MappingNotes


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters at a sentence end (or with an ellipsis); cut or not."""
    text = text.strip()
    if len(text) <= limit:
        return text, False
    window = text[:limit]
    ends = [match.end() for match in _SENTENCE_END.finditer(window)]
    if ends and ends[-1] > limit // 2:
        return window[: ends[-1]].strip(), True
    return window[: limit - 1].rstrip() + "…", True


def _field_items(block: FieldBlock) -> list[Item]:
    return parse_items([block.inline, *block.lines] if block.inline else list(block.lines))


def _field_text(block: FieldBlock) -> str:
    return "\n".join(item.labelled() for item in _field_items(block))


def section_paths(section: Section) -> list[str]:
    """Repository paths the section names in code spans, for the taxonomy's path rules."""
    texts = [section.message_body, *section.preamble]
    for block in section.fields:
        texts.append(block.inline)
        texts.extend(block.lines)
    found: list[str] = []
    for text in texts:
        for candidate in _PATH_IN_CODE.findall(text):
            path = candidate.strip().rstrip("/*").rstrip("/")
            if "://" not in path and _PATH_LIKE.match(path) and not path.startswith(("/", ".")):
                found.append(path)
    return list(dict.fromkeys(found))


class _Builder:
    """Collects one section's texts per Analysis field, noting every cut and re-homing."""

    def __init__(self) -> None:
        self.notes = MappingNotes()
        self.summary: list[str] = []
        self.impact: list[ImpactItem] = []
        self.insights: dict[str, list[str]] = {}
        self.risks: list[str] = []
        self.recommendations: list[Recommendation] = []
        self.conclusion: list[str] = []

    def paragraph(self, text: str, where: str, limit: int = PARAGRAPH_LIMIT) -> str:
        cut, was_cut = truncate(text, limit)
        if was_cut:
            self.notes.truncated.append(f"{where}: {len(text)} characters cut to {len(cut)}")
        return cut

    def add_summary(self, items: Sequence[Item]) -> None:
        self.summary.extend(self.paragraph(item.labelled(), "summary") for item in items if item.labelled())

    def add_impact(self, items: Sequence[Item]) -> None:
        for item in items:
            area, note = _area_and_note(item)
            if not area:
                continue
            self.impact.append(
                ImpactItem(
                    area=self.paragraph(area, "impact area", SHORT_LIMIT),
                    note=self.paragraph(note, "impact note", NOTE_LIMIT) if note else "",
                )
            )

    def add_insights(self, items: Sequence[Item]) -> None:
        for item in items:
            label = item.label or ""
            dimension = insight_dimension(label)
            if dimension is None and not label:
                dimension, label, body = dimension_in_text(item.body())
            else:
                body = item.body()
            if dimension is not None:
                self.insights.setdefault(dimension, []).append(body)
                continue
            home = nearest_for_insight(label)
            self.notes.unmapped.append(f"技术洞察 “{label or item.body()[:20]}” → {home}")
            if home == "risks":
                self.risks.append(self.paragraph(item.labelled(), "risks"))
            elif home == "recommendations":
                self.recommendations.append(self._recommendation(item))
            else:
                self.insights.setdefault(home, []).append(item.labelled())

    def add_risks(self, items: Sequence[Item]) -> None:
        self.risks.extend(self.paragraph(item.labelled(), "risks") for item in items if item.labelled())

    def add_recommendations(self, items: Sequence[Item]) -> None:
        for item in items:
            if item.labelled():
                self.recommendations.append(self._recommendation(item))

    def _recommendation(self, item: Item) -> Recommendation:
        if item.label and item.body():
            audience, advice = item.label, item.body()
        else:
            audience, advice = DEFAULT_AUDIENCE, item.labelled()
        return Recommendation(
            audience=self.paragraph(audience, "recommendation audience", SHORT_LIMIT),
            advice=self.paragraph(advice, "recommendation"),
        )

    def add_conclusion(self, items: Sequence[Item]) -> None:
        self.conclusion.extend(item.labelled() for item in items if item.labelled())

    def capped(self, values: list, limit: int, where: str) -> tuple:  # type: ignore[type-arg]
        if len(values) > limit:
            self.notes.truncated.append(f"{where}: {len(values)} items cut to {limit}")
        return tuple(values[:limit])


def _area_and_note(item: Item) -> tuple[str, str]:
    if item.label:
        return item.label, item.body()
    text = item.body()
    code = _CODE_AREA.match(text)
    if code and code.group("area"):
        note = code.group("note").strip()
        note = re.sub(r"^[（(](.*?)[）)]", r"\1", note, count=1).lstrip("，,：: ").strip()
        return code.group("area"), note
    split = _AREA_SPLIT.search(text[:60])
    if split:
        return text[: split.start()].strip(), text[split.end() :].strip()
    if len(text) <= 120:
        return text, ""
    clause = _CLAUSE_END.search(text)
    cut = clause.start() if clause and 0 < clause.start() <= SHORT_LIMIT else 120
    return text[:cut].strip(), text[cut:].lstrip("，,；;").strip()


def map_section(
    section: Section,
    *,
    source_name: str,
    created_at: datetime,
    platforms: tuple[Label, ...],
    subsystems: tuple[Label, ...],
) -> MappedSection:
    """The Analysis of one legacy section (status ok, or pending when it has no analysis)."""
    builder = _Builder()
    notes = builder.notes
    change_type = None
    for block in section.field("change_type"):
        change_type = change_type or change_type_from_text(_field_text(block) or block.inline)
    type_text = " ".join(block.inline for block in section.field("change_type"))
    if change_type is None:
        notes.missing.append(f"变更类型 “{type_text}” → other" if type_text else "no 变更类型 → other")
    importance = _importance(section, notes)

    if section.preamble:
        builder.add_summary(parse_items(section.preamble))
    last_field = section.fields[-1] if section.fields else None
    for block in section.fields:
        items = _field_items(block)
        if block is last_field and block.key in _LIST_FIELDS:
            items, tail = _split_tail_prose(items)
            builder.add_conclusion(tail)
        if block.key == "summary":
            builder.add_summary(items)
        elif block.key == "impact":
            builder.add_impact(items)
        elif block.key == "insights":
            builder.add_insights(items)
        elif block.key == "risks":
            builder.add_risks(items)
        elif block.key == "recommendations":
            builder.add_recommendations(items)
        elif block.key == "conclusion":
            builder.add_conclusion(items)
    # The conclusion must precede tail prose the last field carried, which it already does
    # unless an explicit 结论 field came last; either way the order of the report is kept.
    conclusion = builder.paragraph("\n".join(builder.conclusion), "conclusion") if builder.conclusion else ""
    summary = builder.capped(builder.summary, SUMMARY_ITEMS, "summary")
    if not summary:
        fallback = conclusion or next(iter(builder.risks), "")
        if fallback:
            notes.missing.append("no 变更摘要 → the first text of the section")
            summary = (builder.paragraph(fallback, "summary"),)
    insights = TechnicalInsights(
        **{
            dimension: builder.paragraph("\n".join(texts), f"insights {dimension}")
            for dimension, texts in builder.insights.items()
            if "\n".join(texts).strip()
        }
    )
    incomplete = section.cut_off or bool(notes.truncated)
    if importance is None or not summary:
        reason = "no 重要程度" if importance is None else "no analysis text"
        provenance = _provenance(
            source_name,
            created_at,
            incomplete,
            status=AnalysisStatus.PENDING,
            error=f"the legacy report {source_name} has a section with {reason}",
        )
        return MappedSection(Analysis(provenance=provenance), notes)
    analysis = Analysis(
        change_type=change_type or ChangeType.OTHER,
        importance=importance,
        summary=summary,
        impact_scope=builder.capped(builder.impact, IMPACT_ITEMS, "impact_scope"),
        insights=insights,
        risks=builder.capped(builder.risks, RISK_ITEMS, "risks"),
        recommendations=builder.capped(builder.recommendations, RECOMMENDATION_ITEMS, "recommendations"),
        conclusion=conclusion,
        platforms=platforms,
        subsystems=subsystems,
        provenance=_provenance(source_name, created_at, incomplete or bool(notes.truncated)),
    )
    return MappedSection(analysis, notes)


def pending_analysis(source_name: str, created_at: datetime, reason: str) -> Analysis:
    return Analysis(
        provenance=_provenance(source_name, created_at, False, status=AnalysisStatus.PENDING, error=reason)
    )


def _provenance(
    source_name: str,
    created_at: datetime,
    incomplete: bool,
    *,
    status: AnalysisStatus = AnalysisStatus.OK,
    error: str | None = None,
) -> Provenance:
    return Provenance(
        analyzer=f"legacy:{source_name}",
        prompt_version=LEGACY_PROMPT_VERSION,
        created_at=created_at,
        status=status,
        error=error,
        incomplete=incomplete,
        language="zh",
        source_file=source_name,
    )


def _importance(section: Section, notes: MappingNotes) -> Importance | None:
    stated = None
    for block in section.field("importance"):
        stated = stated or importance_from_text(block.inline or _field_text(block))
    grouped = _GROUP_IMPORTANCE.get(section.group) if section.group else None
    if grouped is not None and stated is not None and grouped is not stated:
        # The group decides: it is what the report's stats line counted and readers saw.
        notes.missing.append(
            f"重要程度 {stated.value} disagrees with its group {grouped.value}; the group wins"
        )
    if grouped is None and stated is None:
        notes.missing.append("no 重要程度")
    return grouped or stated


_GROUP_IMPORTANCE: dict[Group, Importance] = {
    "high": Importance.HIGH,
    "medium": Importance.MEDIUM,
    "low": Importance.LOW,
}


def _split_tail_prose(items: list[Item]) -> tuple[list[Item], list[Item]]:
    """Paragraphs after the last list or table of the section's last field: its closing words."""
    last_structured = max((index for index, item in enumerate(items) if item.kind != "paragraph"), default=-1)
    if last_structured < 0:
        return items, []
    tail = items[last_structured + 1 :]
    return items[: last_structured + 1], tail
