"""The legacy reports' drifting vocabulary: change types, importance marks, insight dimensions (pure)."""

from __future__ import annotations

import re

from commit_digest.models import ChangeType, Importance

# Checked in order for each token of the type text; the first token that matches wins, so
# "功能增强 / 重构" is a feature. ASCII words match whole words, case-insensitively.
CHANGE_TYPE_WORDS: tuple[tuple[ChangeType, tuple[str, ...]], ...] = (
    (ChangeType.REVERT, ("回滚", "还原", "revert")),
    (ChangeType.DEPRECATION, ("弃用", "移除", "废弃", "deprecation", "deprecate", "removal")),
    (ChangeType.BUGFIX, ("bug修复", "bug 修复", "bugfix", "bug fix", "缺陷修复", "修复", "fix", "bug")),
    (ChangeType.PERFORMANCE, ("性能优化", "性能", "performance", "perf", "优化")),
    (ChangeType.REFACTOR, ("代码重构", "重构", "refactor", "清理", "cleanup", "chore")),
    (ChangeType.DOCS, ("文档", "docs", "doc", "documentation")),
    (ChangeType.TEST, ("测试", "test", "tests", "testing")),
    (ChangeType.CI_BUILD, ("ci/构建", "构建", "ci", "build")),
    (ChangeType.CONFIG, ("配置", "config", "configuration")),
    (ChangeType.DEPENDENCY, ("依赖", "dependency", "dependencies", "deps")),
    (ChangeType.FEATURE, ("功能增强", "新功能", "新增功能", "功能", "增强", "新增", "feature", "feat")),
    (ChangeType.OTHER, ("其他", "其它", "杂项", "other", "misc")),
)
_TYPE_TOKEN_SPLIT = re.compile(r"\s*(?:[/／、,，;；|+＋]|\s和\s|\s&\s)\s*")
_PARENTHETICAL = re.compile(r"[（(][^）)]*[）)]?")
_IMPORTANCE_MARKS: tuple[tuple[Importance, tuple[str, ...]], ...] = (
    (Importance.HIGH, ("🔴", "高", "high")),
    (Importance.MEDIUM, ("🟡", "中", "medium")),
    (Importance.LOW, ("🟢", "低", "low")),
)
# Technical-insight rows by label; a label naming none of them goes to the nearest field.
INSIGHT_DIMENSIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("architecture", ("架构",)),
    ("performance", ("性能",)),
    ("security", ("安全",)),
    ("maintainability", ("可维护", "维护性")),
    ("compatibility", ("兼容",)),
)
_INSIGHT_ELSEWHERE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("risks", ("风险",)),
    ("recommendations", ("建议",)),
    ("compatibility", ("依赖", "迁移", "版本")),
    ("maintainability", ("代码", "重复", "测试", "文档", "可读")),
    ("architecture", ("路由", "组织", "模块", "结构", "设计")),
)


def change_type_from_text(text: str) -> ChangeType | None:
    cleaned = _PARENTHETICAL.sub(" ", text).strip()
    for token in _TYPE_TOKEN_SPLIT.split(cleaned):
        normalized = token.strip().lower()
        if not normalized:
            continue
        for change_type, words in CHANGE_TYPE_WORDS:
            if any(_word_in(word, normalized) for word in words):
                return change_type
    return None


def _word_in(word: str, token: str) -> bool:
    if word.isascii():
        return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", token) is not None
    return word in token


def importance_from_text(text: str) -> Importance | None:
    head = text.strip().lower()[:12]
    for mark_set in (0, 1, 2):
        for importance, marks in _IMPORTANCE_MARKS:
            if marks[mark_set] in head:
                return importance
    return None


def insight_dimension(label: str) -> str | None:
    for dimension, words in INSIGHT_DIMENSIONS:
        if any(word in label for word in words):
            return dimension
    return None


def dimension_in_text(text: str) -> tuple[str | None, str, str]:
    """A prose insight that starts with its dimension ("性能影响：…")."""
    match = re.match(r"^([^：:\n]{1,12})[：:]\s*(.*)$", text, re.DOTALL)
    if match:
        dimension = insight_dimension(match.group(1))
        if dimension is not None:
            return dimension, match.group(1), match.group(2)
    return None, "", text


def nearest_for_insight(label: str) -> str:
    for home, words in _INSIGHT_ELSEWHERE:
        if any(word in label for word in words):
            return home
    return "architecture"
