"""Reading the legacy reports' structure: table rows, stats line, sections and their fields."""

from __future__ import annotations

import re

import pytest

from commit_digest.errors import InputError
from commit_digest.legacy.parse import LegacyReport, ends_mid_sentence, field_label, parse_report
from tests.legacy.conftest import NEWER, NEWER_HIGH, OLDER


def test_newer_format_table_stats_and_sections(reports: dict[str, LegacyReport]) -> None:
    report = reports[NEWER_HIGH.name]
    assert str(report.day) == "2026-01-08"
    assert report.repository == "vllm-project/vllm"
    assert len(report.rows) == 54
    assert (report.stats.total, report.stats.high, report.stats.medium, report.stats.low) == (54, 8, 17, 29)
    assert len(report.sections) == 54
    assert all(section.sha and re.fullmatch(r"[0-9a-f]{40}", section.sha) for section in report.sections)
    assert all(section.sha.startswith(section.short_sha) for section in report.sections)
    groups = [section.group for section in report.sections]
    assert (groups.count("high"), groups.count("medium"), groups.count("low")) == (8, 17, 29)
    # The leading blank of " fix(rocm): …" in the table is not part of the title.
    assert "fix(rocm): Add get_supported_kernel_block_sizes() to ROCM_ATTN (#31712)" in [
        r.title for r in report.rows
    ]


def test_stray_heading_levels_are_fields_not_sections(reports: dict[str, LegacyReport]) -> None:
    report = reports[NEWER.name]
    refactor = next(section for section in report.sections if section.title and "[10/N]" in section.title)
    # "## 🔍 技术洞察", "## ⚠️ 潜在风险", "## 💡 关注建议" and "## 综合评价" sit inside a ### section.
    assert [block.key for block in refactor.fields] == [
        "change_type",
        "importance",
        "summary",
        "impact",
        "insights",
        "risks",
        "recommendations",
        "conclusion",
    ]
    assert len(report.sections) == 30


def test_older_format_sections_hold_the_commit_message(reports: dict[str, LegacyReport]) -> None:
    report = reports[OLDER.name]
    assert len(report.rows) == 43
    assert report.stats is None
    assert len(report.sections) == 28
    first = report.sections[0]
    assert first.sha == "41cfa50632c26c6064cabbbc43c9fc29c7792a2d"
    assert (
        first.title == "[ROCm][AITER] fix wrong argument passed to  AITER `flash_attn_varlen_func` (#31880)"
    )
    assert first.message_body == "Signed-off-by: vllmellm <vllm.ellm@embeddedllm.com>"
    assert first.group is None
    assert [block.key for block in first.fields][:3] == ["change_type", "importance", "summary"]


def test_cut_off_sections_are_found(reports: dict[str, LegacyReport]) -> None:
    cut = {
        name: [section.line for section in report.sections if section.cut_off]
        for name, report in reports.items()
    }
    assert cut == {NEWER_HIGH.name: [127, 289, 344, 431, 483], NEWER.name: [79, 121], OLDER.name: []}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("**🎯 变更类型**：功能增强  ", ("change_type", "变更类型", "功能增强")),
        (
            "**变更类型**：Bug 修复（针对 speculative decoding 边缘情况）",
            ("change_type", "变更类型", "Bug 修复（针对 speculative decoding 边缘情况）"),
        ),
        ("## 🔍 技术洞察", ("insights", "技术洞察", "")),
        ("### ⚠️ 潜在风险  ", ("risks", "潜在风险", "")),
        ("#### 💡 关注建议", ("recommendations", "关注建议", "")),
        ("**📋 摘要**：在 X 中新增 Y。", ("summary", "摘要", "在 X 中新增 Y。")),
        ("**影响范围：** `a.py`", ("impact", "影响范围", "`a.py`")),
        ("## 综合评价", ("conclusion", "综合评价", "")),
        ("### 🎯 变更类型：重构", ("change_type", "变更类型", "重构")),
        ("结论：可以合并。", ("conclusion", "结论", "可以合并。")),
    ],
)
def test_field_labels_in_every_written_form(line: str, expected: tuple[str, str, str]) -> None:
    assert field_label(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "- **架构影响**：无",
        "| **架构影响** | 无 |",
        "**架构影响**：无",
        "1. **内存峰值风险**",
        "总体来看，建议：合并。",
        "Signed-off-by: x <y>",
    ],
)
def test_lines_inside_a_field_are_not_fields(line: str) -> None:
    assert field_label(line) is None


@pytest.mark.parametrize(
    ("lines", "cut"),
    [
        (["总体而言，风险可控。"], False),
        (["- 文档中注明该方法已由基类提供。", "", "---"], False),
        (["| **开发者** | 建议 |"], False),
        (["| **CI/CD** | - 在"], True),
        (["此次 PR 通过 **模块化、职责分离** 的方式，对 vLLM 的 OpenAI"], True),
        (["- 在多节点环境进行全流程压测，特别关注 `"], True),
        (["**结论**：", "", "---"], True),
        (["*以上分析侧重技术细节。*"], False),
    ],
)
def test_ends_mid_sentence(lines: list[str], cut: bool) -> None:
    assert ends_mid_sentence(lines) is cut


def test_a_file_that_is_not_a_report_is_named_in_the_error() -> None:
    with pytest.raises(InputError, match=r"^notes\.md: not a legacy daily report"):
        parse_report("# Meeting notes\n\nnothing here\n", "notes.md")
    with pytest.raises(InputError, match=r"^empty\.md: not a legacy daily report"):
        parse_report("", "empty.md")
    with pytest.raises(InputError, match="no commit table"):
        parse_report("# 每日更新报告（2026-01-08）\n\n## a/b\n", "x.md")


def test_a_broken_table_row_names_its_line() -> None:
    text = (
        "# 每日更新报告（2026-01-08）\n\n| 提交时间 | 作者 | 提交信息 |\n|---|---|---|\n"
        "| yesterday | a | t |\n"
    )
    with pytest.raises(InputError, match=r"^bad\.md:5: a commit table row"):
        parse_report(text, "bad.md")
