"""How the fixed vocabularies read in each output language: one table for the site, the
offline analyzer and anything else that words a change type or an importance."""

from __future__ import annotations

from commit_digest.models import ChangeType, Importance

CHANGE_TYPE_NAMES: dict[str, dict[ChangeType, str]] = {
    "zh": {
        ChangeType.FEATURE: "新功能",
        ChangeType.BUGFIX: "缺陷修复",
        ChangeType.PERFORMANCE: "性能优化",
        ChangeType.REFACTOR: "重构",
        ChangeType.DOCS: "文档",
        ChangeType.TEST: "测试",
        ChangeType.CI_BUILD: "CI/构建",
        ChangeType.CONFIG: "配置",
        ChangeType.DEPENDENCY: "依赖",
        ChangeType.DEPRECATION: "弃用/移除",
        ChangeType.REVERT: "回滚",
        ChangeType.OTHER: "其他",
    },
    "en": {
        ChangeType.FEATURE: "feature",
        ChangeType.BUGFIX: "bug fix",
        ChangeType.PERFORMANCE: "performance",
        ChangeType.REFACTOR: "refactor",
        ChangeType.DOCS: "docs",
        ChangeType.TEST: "test",
        ChangeType.CI_BUILD: "CI/build",
        ChangeType.CONFIG: "config",
        ChangeType.DEPENDENCY: "dependency",
        ChangeType.DEPRECATION: "deprecation/removal",
        ChangeType.REVERT: "revert",
        ChangeType.OTHER: "other",
    },
}

IMPORTANCE_NAMES: dict[str, dict[Importance, str]] = {
    "zh": {Importance.HIGH: "高", Importance.MEDIUM: "中", Importance.LOW: "低"},
    "en": {Importance.HIGH: "high", Importance.MEDIUM: "medium", Importance.LOW: "low"},
}


def change_type_name(change_type: ChangeType | str, language: str) -> str:
    names = CHANGE_TYPE_NAMES[language]
    try:
        return names[ChangeType(change_type)]
    except ValueError:
        return str(change_type)
