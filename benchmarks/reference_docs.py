"""The reference site's pages: our day and commit pages' content as plain Markdown files.

    .venv/bin/python -m benchmarks.reference_docs --cache STORE --docs DIR

The scale benchmark builds these with stock mkdocs-material and its built-in search (jieba for
Chinese) and compares our build time with it. The text is the synthetic archive's, which holds no
Markdown syntax of its own, so it is written as it is (this is a benchmark input, not the site).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from zoneinfo import ZoneInfo

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import Analysis
from commit_digest.site.model.commit import GROUP_ORDER, SiteCommit
from commit_digest.site.model.index import build_index
from commit_digest.store.analysis_store import AnalysisStore

REPOSITORY = "vllm-project/vllm"


def _analysis(analysis: Analysis, heading: str) -> list[str]:
    lines = [f"{heading} 📋 变更摘要", "", *(f"- {bullet}" for bullet in analysis.summary), ""]
    if analysis.impact_scope:
        lines += [f"{heading} 🎯 影响范围", ""]
        lines += [f"- **{item.area}**：{item.note}" for item in analysis.impact_scope] + [""]
    insights = [(name, text) for name, text in analysis.insights.model_dump().items() if text]
    if insights:
        lines += [f"{heading} 🔍 技术洞察", "", *(f"- **{name}**：{text}" for name, text in insights), ""]
    if analysis.risks:
        lines += [f"{heading} ⚠️ 潜在风险", "", *(f"- {risk}" for risk in analysis.risks), ""]
    if analysis.recommendations:
        lines += [f"{heading} 💡 关注建议", ""]
        lines += [f"- **{item.audience}**：{item.advice}" for item in analysis.recommendations] + [""]
    if analysis.conclusion:
        lines += [f"{heading} 综合评价", "", analysis.conclusion, ""]
    return lines


def _labels(labels: tuple) -> str:
    return ", ".join(label.id for label in labels) or "无"


def commit_markdown(item: SiteCommit) -> str:
    commit, analysis = item.record.commit, item.record.analysis
    lines = [
        f"# {commit.title}",
        "",
        f"- **SHA**：`{commit.sha}`",
        f"- **作者**：{commit.author_name} (@{commit.author_login})",
        f"- **时间**：{item.local_time:%Y-%m-%d %H:%M:%S}",
        f"- **链接**：[GitHub 提交]({commit.web_url}) · [当天摘要](../days/{item.day.isoformat()}.md)",
        f"- **平台**：{_labels(item.platforms)}",
        f"- **子系统**：{_labels(item.subsystems)}",
        "",
    ]
    if analysis is not None and analysis.ok:
        lines += _analysis(analysis, "##")
    elif analysis is not None:
        lines += [f"> ⚠️ 分析状态：{analysis.provenance.status}。{analysis.provenance.error}", ""]
    return "\n".join(lines) + "\n"


def day_markdown(day) -> str:
    stats = day.stats
    lines = [
        f"# {day.iso} 提交摘要",
        "",
        f"共 {stats.total} 个提交 | 🔴 高 {stats.high} | 🟡 中 {stats.medium} | 🟢 低 {stats.low}",
        "",
        "## 提交列表",
        "",
        "| 时间 | 作者 | 标题 | 重要度 | 平台 |",
        "| --- | --- | --- | --- | --- |",
    ]
    for item in day.newest_first:
        link = f"[{item.record.commit.title}](../commits/{item.sha[:12]}.md)"
        lines.append(
            f"| {item.local_time:%H:%M} | {item.record.commit.author_name} | {link} | {item.group} | "
            f"{_labels(item.platforms)} |"
        )
    lines.append("")
    for name in GROUP_ORDER:
        for item in day.group(name):
            lines += [f"### {item.record.commit.title}", "", f"[详情](../commits/{item.sha[:12]}.md)", ""]
            analysis = item.record.analysis
            if analysis is not None and analysis.ok:
                lines += _analysis(analysis, "**") if name != "low" else [f"- {b}" for b in analysis.summary]
                lines.append("")
    return "\n".join(lines).replace("** 📋", "**📋") + "\n"


def write_reference_docs(cache: Path, docs: Path) -> int:
    """Writes index.md, days/*.md and commits/*.md; returns the number of pages."""
    with AnalysisStore(cache) as store:
        index = build_index(
            store.records(REPOSITORY), repository=REPOSITORY, zone=ZoneInfo("UTC"), taxonomy=load_taxonomy()
        )
    (docs / "days").mkdir(parents=True, exist_ok=True)
    (docs / "commits").mkdir(parents=True, exist_ok=True)
    pages = 1
    (docs / "index.md").write_text(
        "# 每日提交摘要\n\n" + "".join(f"- [{day.iso}](days/{day.iso}.md)\n" for day in index.days[:7]),
        encoding="utf-8",
    )
    for day in index.days:
        (docs / "days" / f"{day.iso}.md").write_text(day_markdown(day), encoding="utf-8")
        pages += 1
        for item in day.commits:
            (docs / "commits" / f"{item.sha[:12]}.md").write_text(commit_markdown(item), encoding="utf-8")
            pages += 1
    return pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--docs", type=Path, required=True)
    args = parser.parse_args()
    print(f"{write_reference_docs(args.cache, args.docs)} pages into {args.docs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
