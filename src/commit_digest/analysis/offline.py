"""The offline analyzer: a complete Analysis from the commit alone, with no LLM and no network.

It is the default when no LLM is configured and the fallback the site shows until an LLM
analysis exists. It is deterministic: the same commit always gives the same analysis
(its time stamp is the commit's landing time, not the clock's).
"""

from __future__ import annotations

import re
from collections import defaultdict

from commit_digest.analysis.offline_rules import (
    Judgement,
    bare_title,
    changes_default,
    infer_change_type,
    infer_importance,
    mentions_security,
)
from commit_digest.meaning.pr_template import described_message
from commit_digest.meaning.taxonomy import Taxonomy, classify
from commit_digest.meaning.vocabulary import IMPORTANCE_NAMES, change_type_name
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

OFFLINE_RULES_VERSION = "offline-2"
MAX_SUMMARY_BULLETS = 4
MAX_IMPACT_AREAS = 8
_TRAILER = re.compile(r"^(signed-off-by|co-authored-by|reviewed-by|tested-by|acked-by|cc):", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s")
_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")

_TEXT: dict[Language, dict[str, str]] = {
    "zh": {
        "lead": "{type}：{title}",
        "files": "共改动 {files} 个文件（+{additions}/−{deletions} 行），主要涉及 {areas}。",
        "area_note": "{files} 个文件，+{additions}/−{deletions} 行",
        "why": "重要程度依据：{reason}。",
        "compat_default": "此提交改变了默认行为，依赖旧默认值的部署需要检查配置。",
        "compat_removal": "此提交移除或弃用了既有功能，依赖它的代码和配置需要迁移。",
        "perf_claim": "提交声称带来性能改进；请结合基准数据确认在自身负载上的收益。",
        "security": "提交涉及安全相关的行为（如信息泄露或输入处理），建议尽快评估。",
        "risk_large": "改动量较大（{lines} 行），回归风险较高。",
        "risk_no_tests": "改动了产品代码但未包含测试改动。",
        "risk_platform": "涉及特定平台（{platforms}）的代码路径，其他平台的行为应保持不变，但需在对应硬件上验证。",
        "advice_platform": "{platform} 用户",
        "advice_platform_text": "关注此变更在 {platform} 上的影响，升级后运行相关回归测试。",
        "advice_subsystem": "{subsystem} 相关开发者",
        "advice_subsystem_text": "审阅该子系统的改动，确认与自身功能或插件的兼容性。",
        "advice_default": "所有用户",
        "advice_default_text": "一般性改动，按常规升级流程验证即可。",
        "conclusion": "离线规则分析（未调用 LLM）：{type}，重要程度{importance}。完整分析将在 LLM 分析后提供。",
        "and": "、",
    },
    "en": {
        "lead": "{type}: {title}",
        "files": "Changes {files} files (+{additions}/−{deletions} lines), mainly in {areas}.",
        "area_note": "{files} files, +{additions}/−{deletions} lines",
        "why": "Importance because: {reason}.",
        "compat_default": "Changes a default: deployments relying on the old default should check their configuration.",
        "compat_removal": "Removes or deprecates existing behaviour: "
        "code and configuration relying on it must migrate.",
        "perf_claim": "Claims a performance improvement; confirm the gain on your own workload with benchmarks.",
        "security": "Touches security-relevant behaviour (such as a leak or input handling); assess it soon.",
        "risk_large": "Large change ({lines} lines): higher regression risk.",
        "risk_no_tests": "Changes product code without changing tests.",
        "risk_platform": "Touches code paths specific to {platforms}; other platforms should be unaffected, "
        "but verify on that hardware.",
        "advice_platform": "{platform} users",
        "advice_platform_text": "Check the impact on {platform} and run the relevant regression tests after upgrading.",
        "advice_subsystem": "{subsystem} developers",
        "advice_subsystem_text": "Review the change for compatibility with your features or plugins.",
        "advice_default": "All users",
        "advice_default_text": "A general change; the usual upgrade checks suffice.",
        "conclusion": "Offline rule-based analysis (no LLM): {type}, {importance} importance. "
        "A full analysis follows once the LLM has analysed this commit.",
        "and": ", ",
    },
}

# Why the offline rules chose an importance, worded per language (keys from offline_rules).
IMPORTANCE_REASONS: dict[Language, dict[str, str]] = {
    "zh": {
        "docs_test_ci": "文档、测试或 CI 改动",
        "security": "涉及安全（“{word}”）",
        "hang": "涉及挂起或死锁（“{word}”）",
        "crash": "涉及崩溃（“{word}”）",
        "wrong_output": "涉及错误输出或精度损失（“{word}”）",
        "trivial": "仅涉及拼写、注释、格式或类型标注（“{word}”）",
        "series": "系列提交的第 {part} 部分，按整个系列评级：{reason}",
        "internal": "内部改动（{kind}）",
        "kind": "{kind}",
        "removal": "移除或弃用了用户可能依赖的行为",
        "default": "改变了默认值",
        "new_model": "新增模型支持",
        "large_core": "对引擎核心的大改动（{lines} 行）",
        "revert": "回滚了之前的改动",
        "small_kind": "小规模的{kind}改动（{lines} 行）",
        "small": "小改动（{lines} 行）",
        "product": "产品代码中的{kind}",
    },
    "en": {
        "docs_test_ci": "documentation, test or CI change",
        "security": "touches security (“{word}”)",
        "hang": "a hang or deadlock (“{word}”)",
        "crash": "a crash (“{word}”)",
        "wrong_output": "wrong output or lost accuracy (“{word}”)",
        "trivial": "only a typo, comment, formatting or type hints (“{word}”)",
        "series": "part {part} of a series, rated as the whole series: {reason}",
        "internal": "internal change ({kind})",
        "kind": "{kind}",
        "removal": "removes or deprecates behaviour users may rely on",
        "default": "changes a default",
        "new_model": "adds support for a new model",
        "large_core": "large change to the engine core ({lines} lines)",
        "revert": "reverts an earlier change",
        "small_kind": "small {kind} change ({lines} lines)",
        "small": "small change ({lines} lines)",
        "product": "{kind} in product code",
    },
}


class OfflineAnalyzer:
    """Rule-based analysis from tags, words, paths and line counts."""

    name = "offline"

    def __init__(self, taxonomy: Taxonomy, language: Language = "zh") -> None:
        self._taxonomy = taxonomy
        self._language = language
        self._text = _TEXT[language]

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
                text["files"].format(
                    files=len(commit.files),
                    additions=commit.additions,
                    deletions=commit.deletions,
                    areas=text["and"].join(item.area for item in impact[:3]),
                )
            )
        if not summary:
            summary.append(text["lead"].format(type=type_name, title=bare_title(commit.title)))
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
                    text["conclusion"].format(
                        type=type_name, importance=IMPORTANCE_NAMES[self._language][importance.value]
                    ),
                    text["why"].format(reason=self._importance_reason(importance)),
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
        return IMPORTANCE_REASONS[self._language][judgement.rule].format(**values)

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
            risks.append(text["risk_large"].format(lines=lines))
        touches_tests = any("test" in change.path for change in commit.files)
        product_lines = sum(
            change.additions + change.deletions for change in commit.files if change.path.startswith(("vllm/", "csrc/"))
        )
        if product_lines >= 50 and not touches_tests:
            risks.append(text["risk_no_tests"])
        if platform_names:
            risks.append(text["risk_platform"].format(platforms=text["and"].join(platform_names)))
        return risks

    def _recommendations(self, platforms: tuple[Label, ...], subsystems: tuple[Label, ...]) -> list[Recommendation]:
        text = self._text
        advice = [
            Recommendation(
                audience=text["advice_platform"].format(platform=self._platform_name(label.id)),
                advice=text["advice_platform_text"].format(platform=self._platform_name(label.id)),
            )
            for label in platforms[:2]
        ]
        advice += [
            Recommendation(
                audience=text["advice_subsystem"].format(subsystem=self._subsystem_name(label.id)),
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
        ImpactItem(area=area, note=note_format.format(files=files, additions=additions, deletions=deletions))
        for area, (files, additions, deletions) in ranked[:MAX_IMPACT_AREAS]
    ]


def area_of(path: str) -> str:
    """A file's area: its folder, at most three levels deep (vllm/model_executor/layers)."""
    parts = path.split("/")[:-1]
    if not parts:
        return path
    depth = 4 if parts[0] == "vllm" and len(parts) >= 4 and parts[1] in {"model_executor", "v1"} else 3
    return "/".join(parts[:depth]) + "/"
