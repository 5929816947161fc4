"""The offline analyzer: a complete Analysis from the commit alone, with no LLM and no network.

It is the default when no LLM is configured and the fallback the site shows until an LLM
analysis exists. It is deterministic: the same commit always gives the same analysis
(its time stamp is the commit's landing time, not the clock's).
"""

from __future__ import annotations

import re
from collections import defaultdict
from importlib import resources
from typing import get_args

from commit_digest.meaning.offline_rules import (
    Judgement,
    bare_title,
    changes_default,
    infer_change_type,
    infer_importance,
    mentions_security,
)
from commit_digest.meaning.pr_template import described_message
from commit_digest.meaning.taxonomy import Taxonomy, classify
from commit_digest.meaning.vocabulary import change_type_name, importance_name
from commit_digest.models import (
    Analysis,
    ChangeType,
    Commit,
    ImpactItem,
    Importance,
    Label,
    Provenance,
    Recommendation,
    TechnicalInsights,
)
from commit_digest.settings import Language
from commit_digest.words import Words, fill, load_words

OFFLINE_RULES_VERSION = "offline-2"
MAX_SUMMARY_BULLETS = 4
MAX_IMPACT_AREAS = 8
_TRAILER = re.compile(r"^(signed-off-by|co-authored-by|reviewed-by|tested-by|acked-by|cc):", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s")
_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")

_WORDS = resources.files("commit_digest.meaning").joinpath("offline_words")


def offline_words(language: Language) -> Words:
    """The analyzer's sentences in ``language``, from ``offline_words/<language>.yml`` (read once, checked)."""
    return load_words(_WORDS, get_args(Language))[language]


class OfflineAnalyzer:
    """Rule-based analysis from tags, words, paths and line counts."""

    name = "offline"

    def __init__(self, taxonomy: Taxonomy, language: Language = "zh") -> None:
        self._taxonomy = taxonomy
        self._language = language
        self._text = offline_words(language)

    def analyze(self, commit: Commit) -> Analysis:
        # Every rule below reads what the author wrote about the change, never the template's
        # headings and instructions, which are the same in every message of a repository.
        commit = commit.model_copy(update={"body": described_message(commit.body)})
        text = self._text
        change_type = infer_change_type(commit)
        importance = infer_importance(commit, change_type.value)
        labels = classify(commit.title, commit.body, [change.path for change in commit.files], self._taxonomy)
        name = change_type_name(change_type.value, self._language)
        type_name = name[:1].upper() + name[1:]  # it opens a sentence
        impact = impact_areas(commit, text["area_note"])
        # The title is on the page already: the summary says what the message and files add.
        summary = message_points(commit.body)[: MAX_SUMMARY_BULLETS - 1]
        if commit.files:
            summary.append(
                fill(
                    text["files"],
                    files=len(commit.files),
                    additions=commit.additions,
                    deletions=commit.deletions,
                    areas=text["and"].join(item.area for item in impact[:3]),
                )
            )
        if not summary:
            summary.append(fill(text["lead"], type=type_name, title=bare_title(commit.title)))
        platform_names = [self._platform_name(label.id) for label in labels.platforms]
        return Analysis(
            change_type=change_type.value,
            importance=importance.value,
            summary=tuple(summary),
            impact_scope=tuple(impact),
            insights=self._insights(commit, change_type.value),
            risks=tuple(self._risks(commit, platform_names)),
            recommendations=tuple(self._recommendations(labels.platforms, labels.subsystems)),
            conclusion=" ".join(
                [
                    fill(
                        text["conclusion"], type=type_name, importance=importance_name(importance.value, self._language)
                    ),
                    fill(text["why"], reason=self._importance_reason(importance)),
                ]
            ),
            platforms=labels.platforms,
            subsystems=labels.subsystems,
            provenance=Provenance(
                analyzer="offline",
                prompt_version=OFFLINE_RULES_VERSION,
                created_at=commit.committed_at,
                language=self._language,
            ),
        )

    def _importance_reason(self, judgement: Judgement[Importance]) -> str:
        values: dict[str, object] = {}
        for name, value in judgement.details.items():
            if isinstance(value, ChangeType):
                values[name] = change_type_name(value, self._language)
            elif isinstance(value, Judgement):  # a series: the reason its title gives
                values["reason"] = self._importance_reason(value)
            else:
                values[name] = value
        return fill(self._text[f"reason_{judgement.rule}"], **values)

    def _platform_name(self, label_id: str) -> str:
        rule = self._taxonomy.platform(label_id)
        return rule.name.in_language(self._language) if rule else label_id

    def _subsystem_name(self, label_id: str) -> str:
        rule = self._taxonomy.subsystem(label_id)
        return rule.name.in_language(self._language) if rule else label_id

    def _insights(self, commit: Commit, change_type: ChangeType) -> TechnicalInsights:
        text = self._text
        compatibility = None
        if change_type is ChangeType.DEPRECATION:
            compatibility = text["compat_removal"]
        elif changes_default(commit.title):
            compatibility = text["compat_default"]
        security = text["security"] if mentions_security(f"{commit.title}\n{commit.body}") else None
        performance = text["perf_claim"] if change_type is ChangeType.PERFORMANCE else None
        return TechnicalInsights(performance=performance, security=security, compatibility=compatibility)

    def _risks(self, commit: Commit, platform_names: list[str]) -> list[str]:
        text = self._text
        risks = []
        lines = commit.additions + commit.deletions
        if lines >= 500:
            risks.append(fill(text["risk_large"], lines=lines))
        touches_tests = any("test" in change.path for change in commit.files)
        product_lines = sum(
            change.additions + change.deletions for change in commit.files if change.path.startswith(("vllm/", "csrc/"))
        )
        if product_lines >= 50 and not touches_tests:
            risks.append(text["risk_no_tests"])
        if platform_names:
            risks.append(fill(text["risk_platform"], platforms=text["and"].join(platform_names)))
        return risks

    def _recommendations(self, platforms: tuple[Label, ...], subsystems: tuple[Label, ...]) -> list[Recommendation]:
        text = self._text
        advice = [
            Recommendation(
                audience=fill(text["advice_platform"], platform=self._platform_name(label.id)),
                advice=fill(text["advice_platform_text"], platform=self._platform_name(label.id)),
            )
            for label in platforms[:2]
        ]
        advice += [
            Recommendation(
                audience=fill(text["advice_subsystem"], subsystem=self._subsystem_name(label.id)),
                advice=text["advice_subsystem_text"],
            )
            for label in subsystems[:2]
        ]
        if not advice:
            advice.append(Recommendation(audience=text["advice_default"], advice=text["advice_default_text"]))
        return advice


def message_points(body: str) -> list[str]:
    """The message's paragraphs as summary points, without trailers, headings or code, each cut
    at a sentence end."""
    points = []
    for paragraph in re.split(r"\n\s*\n", _without_code(body)):
        lines = [line.strip(" -*\t") for line in paragraph.splitlines() if not _HEADING.match(line)]
        lines = [line for line in lines if line and not _TRAILER.match(line)]
        if not lines:
            continue
        points.append(clip_sentence(" ".join(lines), 300))
    return points


def _without_code(text: str) -> str:
    """``text`` with its fenced code blocks left out: a command or a log is not a summary point."""
    kept, in_code = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_code = not in_code
            kept.append("")
        elif not in_code:
            kept.append(line)
    return "\n".join(kept)


def clip_sentence(text: str, limit: int) -> str:
    """At most ``limit`` characters, ending at a sentence end when one exists, else with an ellipsis."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    ends = [match.start() for match in _SENTENCE_END.finditer(head)]
    if ends and ends[-1] > limit // 3:
        return head[: ends[-1]].rstrip()
    return head[: limit - 1].rstrip() + "…"


def impact_areas(commit: Commit, note_format: str) -> list[ImpactItem]:
    """Changed files grouped by area (their folder), the busiest first."""
    grouped: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for change in commit.files:
        totals = grouped[area_of(change.path)]
        totals[0] += 1
        totals[1] += change.additions
        totals[2] += change.deletions
    ranked = sorted(grouped.items(), key=lambda item: (-(item[1][1] + item[1][2]), item[0]))
    return [
        ImpactItem(area=area, note=fill(note_format, files=files, additions=additions, deletions=deletions))
        for area, (files, additions, deletions) in ranked[:MAX_IMPACT_AREAS]
    ]


def area_of(path: str) -> str:
    """A file's area: its folder, at most three levels deep (vllm/model_executor/layers)."""
    parts = path.split("/")[:-1]
    if not parts:
        return path
    depth = 4 if parts[0] == "vllm" and len(parts) >= 4 and parts[1] in {"model_executor", "v1"} else 3
    return "/".join(parts[:depth]) + "/"
