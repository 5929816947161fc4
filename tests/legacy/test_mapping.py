"""Legacy fields onto the Analysis schema: drifting vocabulary, fields in every shape, caps."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from commit_digest.legacy.mapping import map_section, truncate
from commit_digest.legacy.parse import parse_report
from commit_digest.legacy.vocabulary import change_type_from_text, importance_from_text
from commit_digest.models import AnalysisStatus, ChangeType, Importance

CREATED = datetime(2026, 1, 8, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("功能增强", ChangeType.FEATURE),
        ("新功能", ChangeType.FEATURE),
        ("Feature", ChangeType.FEATURE),
        ("功能增强（新增 Grok‑2 模型及其专属 tokenizer）", ChangeType.FEATURE),
        ("Bug修复", ChangeType.BUGFIX),
        ("Bug 修复", ChangeType.BUGFIX),
        ("Bugfix", ChangeType.BUGFIX),
        ("缺陷修复", ChangeType.BUGFIX),
        ("性能优化", ChangeType.PERFORMANCE),
        ("重构", ChangeType.REFACTOR),
        ("代码重构", ChangeType.REFACTOR),
        ("文档更新", ChangeType.DOCS),
        ("测试", ChangeType.TEST),
        ("CI/构建", ChangeType.CI_BUILD),
        ("配置", ChangeType.CONFIG),
        ("依赖", ChangeType.DEPENDENCY),
        ("弃用", ChangeType.DEPRECATION),
        ("移除", ChangeType.DEPRECATION),
        ("回滚", ChangeType.REVERT),
        ("Revert", ChangeType.REVERT),
        ("功能增强 / 重构", ChangeType.FEATURE),
        ("架构变更 / 重构 / 功能增强", ChangeType.REFACTOR),
        ("Bug 修复 / 功能增强", ChangeType.BUGFIX),
        ("其他（CI/构建 & ROCm 兼容性补丁）", ChangeType.OTHER),
        ("默认行为调整", None),
    ],
)
def test_change_type_vocabulary_with_drift(text: str, expected: ChangeType | None) -> None:
    assert change_type_from_text(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("🔴高", Importance.HIGH),
        ("🟡 中——为 vLLM 引入全新模型", Importance.MEDIUM),
        ("🟢 低", Importance.LOW),
        ("高", Importance.HIGH),
        ("low", Importance.LOW),
        ("未知", None),
    ],
)
def test_importance(text: str, expected: Importance | None) -> None:
    assert importance_from_text(text) is expected


def test_truncate_at_a_sentence_end() -> None:
    text = "第一句。" * 10 + "没有句号的很长的一段" * 10
    cut, was_cut = truncate(text, 60)
    assert was_cut and cut.endswith("。") and len(cut) <= 60
    assert truncate("短。", 60) == ("短。", False)


_REPORT = """# 每日更新报告（2026-01-08）

## vllm-project/vllm

| 提交时间 | 作者 | 提交信息 |
|----------|------|----------|
| 2026-01-08 10:00:00 | Dev | [ROCm] Speed up paged attention (#1) |

#### 🟡 中重要度变更 (1)

### [ROCm] Speed up paged attention (#1)
**SHA**: `abcdef1` | 🔗 [查看提交](https://github.com/vllm-project/vllm/commit/abcdef1234567890abcdef1234567890abcdef12)

**🎯 变更类型**：性能优化 / 重构
**⚡ 重要程度**：🔴 高

**📋 变更摘要**
- 在 `vllm/attention/ops/paged_attn.py` 中加入 **ROCm** 专用路径。
  - 子项一
  - 子项二

**🎯 影响范围**
- **注意力层**：`vllm/attention/ops/paged_attn.py`
- `csrc/rocm/attention.cu`（核心内核）

## 🔍 技术洞察

| 维度 | 影响说明 |
|------|----------|
| **架构影响** | 新增后端。<br>不改接口。 |
| **性能影响** | 解码提速 20%。 |
| **路由组织** | 新的分发表。 |
| **回归风险** | 旧卡可能退化。 |

## ⚠️ 潜在风险
1. **精度**
   - fp16 下误差变大。
2. 旧驱动不支持。

## 💡 关注建议

| 对象 | 建议 |
|------|------|
| **开发者** | 补充基准。 |

- 升级驱动。

总体来看，改动值得合入，但需要在 MI300 上
"""


def _mapped():
    report = parse_report(_REPORT, "synthetic.md")
    section = report.sections[0]
    return section, map_section(
        section,
        source_name="synthetic.md",
        created_at=CREATED,
        platforms=(),
        subsystems=(),
    )


def test_every_field_shape_lands_in_its_schema_field() -> None:
    _, mapped = _mapped()
    analysis = mapped.analysis
    assert analysis.ok
    assert analysis.change_type is ChangeType.PERFORMANCE  # the first matching token wins
    assert analysis.importance is Importance.MEDIUM  # the group the report counted wins over the field
    assert analysis.summary == (
        "在 `vllm/attention/ops/paged_attn.py` 中加入 ROCm 专用路径。\n子项一\n子项二",
    )
    assert [(item.area, item.note) for item in analysis.impact_scope] == [
        ("注意力层", "`vllm/attention/ops/paged_attn.py`"),
        ("`csrc/rocm/attention.cu`", "核心内核"),
    ]
    assert analysis.insights.architecture == "新增后端。\n不改接口。\n路由组织：新的分发表。"
    assert analysis.insights.performance == "解码提速 20%。"
    assert analysis.insights.security is None
    # A risk row of the insights table joins the risks, in the report's order.
    assert analysis.risks == ("回归风险：旧卡可能退化。", "精度：fp16 下误差变大。", "旧驱动不支持。")
    assert [(r.audience, r.advice) for r in analysis.recommendations] == [
        ("开发者", "补充基准。"),
        ("通用", "升级驱动。"),
    ]
    assert analysis.conclusion == "总体来看，改动值得合入，但需要在 MI300 上"
    provenance = analysis.provenance
    assert provenance.analyzer == "legacy:synthetic.md"
    assert provenance.source_file == "synthetic.md"
    assert provenance.language == "zh"
    assert provenance.created_at == CREATED
    assert provenance.incomplete  # the report stops mid-sentence
    assert sorted(mapped.notes.unmapped) == [
        "技术洞察 “回归风险” → risks",
        "技术洞察 “路由组织” → architecture",
    ]
    assert any("disagrees with its group" in note for note in mapped.notes.missing)


def test_nothing_of_the_markdown_survives_but_code_spans() -> None:
    _, mapped = _mapped()
    dumped = mapped.analysis.model_dump_json()
    assert "**" not in dumped and "<br>" not in dumped and "|" not in dumped


def test_over_long_text_is_cut_at_a_sentence_and_marked_incomplete() -> None:
    long_summary = "这是一个很长的句子，描述了很多细节。" * 200
    text = _REPORT.replace(
        "- 在 `vllm/attention/ops/paged_attn.py` 中加入 **ROCm** 专用路径。", f"- {long_summary}"
    )
    text = text.replace("但需要在 MI300 上", "已验证。")
    report = parse_report(text, "long.md")
    section = report.sections[0]
    assert not section.cut_off
    mapped = map_section(section, source_name="long.md", created_at=CREATED, platforms=(), subsystems=())
    first = mapped.analysis.summary[0]
    assert len(first) <= 2000 and first.endswith("。")
    assert mapped.analysis.provenance.incomplete
    assert mapped.notes.truncated


def test_a_section_without_importance_or_text_is_pending_not_invented() -> None:
    text = _REPORT.split("#### 🟡")[0] + (
        "### [ROCm] Speed up paged attention (#1)\n"
        "**SHA**: `abcdef1` | 🔗 [查看提交](https://github.com/vllm-project/vllm/commit/"
        "abcdef1234567890abcdef1234567890abcdef12)\n\n**🎯 变更类型**：重构\n"
    )
    section = parse_report(text, "thin.md").sections[0]
    mapped = map_section(section, source_name="thin.md", created_at=CREATED, platforms=(), subsystems=())
    assert mapped.analysis.provenance.status is AnalysisStatus.PENDING
    assert "thin.md" in (mapped.analysis.provenance.error or "")
