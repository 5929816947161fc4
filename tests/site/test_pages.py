"""The built site, page by page: a real ``mkdocs build --strict`` of a store with several days."""

from __future__ import annotations

import json
import re

import pytest

from commit_digest.search.shards import decode_shard
from tests.site.conftest import OVERRIDE_TEXT, BuiltSite
from tests.site.factories import sha_for
from tests.site.html import article, headings, hrefs, tables, visible_text

pytestmark = pytest.mark.slow

HIGH = sha_for("high-1")[:12]
MEDIUM = sha_for("medium-1")[:12]
LOW = sha_for("low-1")[:12]
FAILED = sha_for("failed-1")[:12]
PENDING = sha_for("pending-1")[:12]
DEPRECATION = sha_for("deprecate-1")[:12]


def test_home_shows_latest_days_with_counts_high_changes_and_each_platforms_commits(zh_site: BuiltSite) -> None:
    body = article(zh_site.page(""))
    text = visible_text(body)
    assert "每日提交摘要" in text
    # Newest day first, each linked to its day page.
    day_links = list(dict.fromkeys(href for href in hrefs(body) if re.fullmatch(r"days/[\d-]+/", href)))
    assert day_links[:4] == ["days/2026-01-17/", "days/2026-01-16/", "days/2026-01-15/", "days/2025-12-31/"]
    assert "共 5 个提交 · 高 1 · 中 1 · 低 1 · 未分析 2" in text
    day = body[body.index('id="d-2026-01-15"') : body.index('id="d-2025-12-31"')]
    # Counts per platform and subsystem, each linking the day filtered to that label.
    assert "days/2026-01-15/?platform=rocm" in hrefs(day) and "ROCm（AMD） 2" in visible_text(day)
    assert "days/2026-01-15/?subsystem=quantization" in hrefs(day)
    # High-importance changes, then what landed on each platform (the medium CUDA commit too).
    assert f"commits/{HIGH}/" in hrefs(day)
    rocm = day[day.index('data-platform="rocm"') :]
    rocm = rocm[: rocm.index("</details>")]
    assert hrefs(rocm) == [f"commits/{HIGH}/", f"commits/{FAILED}/"]  # the most important first
    cuda = day[day.index('data-platform="cuda"') :]
    assert f"commits/{MEDIUM}/" in hrefs(cuda[: cuda.index("</details>")])


def test_day_page_has_stats_filters_neighbours_and_every_commit_in_its_group(zh_site: BuiltSite) -> None:
    body = article(zh_site.page("days/2026-01-15"))
    text = visible_text(body)
    assert headings(body)[0].startswith("2026-01-15 提交摘要")
    assert "共 5 个提交 · 高 1 · 中 1 · 低 1 · 未分析 2" in text
    assert tables(body) == []  # entries, not a table that scrolls sideways
    assert "../2025-12-31/" in hrefs(body) and "../2026-01-16/" in hrefs(body)  # older and newer days
    assert headings(body)[1:] == ["高重要度变更 1", "中重要度变更 1", "低重要度变更 1", "未分析或分析失败 2"]
    # The filter offers the day's labels with counts; the script shows it (hidden without one).
    assert re.search(r'<div class="digest-filter" data-digest-filter[^>]* hidden[=>]', body)
    assert 'data-filter-value="rocm"' in body and 'data-filter-value="quantization"' in body
    # Entries newest first within a group, each with its badge, type, time and chips.
    medium = body[body.rindex("<li", 0, body.index(f'id="c-{MEDIUM}"')) :]
    medium = medium[: medium.index("</li>")]
    # Today's rules label it too (tag [Quant], "MoE", the fixtures' path vllm/engine/core.py),
    # in taxonomy order, beside the model's cuda.
    assert 'data-platforms="cuda"' in medium and 'data-subsystems="moe quantization core"' in medium
    title_and_meta = "中 [Quant] Support MXFP4 W4A16 for MoE (#32285) 新功能 · 11:00 · Dipika Sikka"
    assert visible_text(medium).startswith(title_and_meta)
    assert "../../platforms/cuda/" in hrefs(medium) and "../../subsystems/moe/" in hrefs(medium)
    for short_sha in (HIGH, MEDIUM, LOW, FAILED, PENDING):
        assert f"../../commits/{short_sha}/" in hrefs(body)
    # Full analyses are there, collapsed.
    assert text.count("综合评价 conclusion text") == 3 and body.count('<details class="digest-entry__more">') == 3
    assert "删除多余的一行代码" in text
    assert "此提交尚未分析，下次运行时会重试" in text
    # The failure is said, in the reader's language; the endpoint's error stays in the store.
    assert "分析状态：失败" in text and "timeout after 120 s" not in text


def test_commit_page_has_metadata_labels_analysis_provenance_and_neighbours(zh_site: BuiltSite) -> None:
    body = article(zh_site.page(f"commits/{MEDIUM}"))
    text = visible_text(body)
    links = hrefs(body)
    assert headings(body)[0] == "[Quant] Support MXFP4 W4A16 for MoE (#32285)"
    assert sha_for("medium-1") in text
    assert "Dipika Sikka (@devone)" in text
    assert f"https://github.com/vllm-project/vllm/commit/{sha_for('medium-1')}" in links
    assert "https://github.com/vllm-project/vllm/pull/32285" in links
    assert "变更类型：新功能" in text and "重要程度：中" in text and "digest-badge--medium" in body
    assert "../../platforms/cuda/" in links and "MXFP4 kernels run on CUDA" in text
    assert "../../subsystems/quantization/" in links and "../../subsystems/moe/" in links
    assert "[quant]" in text  # the rules' reason now, not the one stored with the analysis
    for section in ("变更摘要", "影响范围", "技术洞察", "潜在风险", "关注建议", "综合评价", "分析来源"):
        assert section in headings(body)
    provenance = visible_text(body[body.index('<ul class="digest-provenance">') :])
    # Who wrote it as a reader knows it: the model by its name, never the analyzer's id or the prompt's version.
    assert provenance.startswith("分析方式：由模型 gpt-test 撰写 分析时间：2026-01-20 08:00:00 (UTC) 状态：成功")
    assert "llm:" not in provenance and "v3" not in provenance
    assert f"../{HIGH}/" in links and f"../{LOW}/" in links  # previous and next of the same day
    assert "../../days/2026-01-15/" in links


def test_commit_pages_mark_failed_pending_and_newer_failed_attempts(zh_site: BuiltSite) -> None:
    failed = visible_text(article(zh_site.page(f"commits/{FAILED}")))
    assert "分析状态：失败" in failed and "下次运行时会重试" in failed and "timeout after 120 s" not in failed
    assert "分析来源¶ 分析方式：由模型 gpt-test 撰写" in failed and failed.endswith(
        "状态：失败 ← 上一个提交：[Misc] Remove redundant line (#32366) · 下一个提交 →：[CI] Pin transformers (#32350)"
    )
    pending = visible_text(article(zh_site.page(f"commits/{PENDING}")))
    assert "此提交尚未分析" in pending
    refused = visible_text(article(zh_site.page(f"commits/{sha_for('refused-1')[:12]}")))
    assert "分析状态：被拒绝" in refused and "the model refused" not in refused
    newer_failure = visible_text(article(zh_site.page(f"commits/{DEPRECATION}")))
    assert "模型 gpt-newer 于 2026-01-21" in newer_failure and "未能完成分析" in newer_failure
    assert "此处显示的是之前的分析" in newer_failure
    assert "llm:" not in newer_failure
    assert "rate limited" not in newer_failure
    assert "移除 V0 引擎" in newer_failure  # the earlier analysis is still shown
    # A commit without an ok analysis is classified on the fly, with the rule's reason.
    # Its reason is worded in the site's language.
    assert "ROCm（AMD）（依据：标题标签 [rocm]；路径 vllm/platforms/rocm.py；标题中的“ROCm” 另 1 处）" in failed


def test_archive_index_and_month_pages(zh_site: BuiltSite) -> None:
    index = article(zh_site.page("archive"))
    months, weeks = tables(index)
    assert months[1:] == [["2026-01", "3", "16"], ["2025-12", "1", "1"]]
    assert "2026-01/" in hrefs(index)
    # The archive lists weeks too (ISO weeks: 2025-12-31 is in the first week of 2026).
    assert weeks[1:] == [
        ["2026-W03 01-12 – 01-18", "16", "5", "▲ 16"],
        ["2026-W01 12-29 – 01-04", "1", "0", "▲ 1"],
    ]
    assert "../weeks/2026-W03/" in hrefs(index)
    month = article(zh_site.page("archive/2026-01"))
    days = [visible_text(line) for line in re.findall(r"<li>(.*?)</li>", month, re.S)]
    assert days == [
        "2026-01-17 共 9 个提交 · 高 3 · 中 3 · 低 3",
        "2026-01-16 共 2 个提交 · 高 1 · 中 0 · 低 0 · 未分析 1",
        "2026-01-15 共 5 个提交 · 高 1 · 中 1 · 低 1 · 未分析 2",
    ]
    assert "../../days/2026-01-17/" in hrefs(month)


def test_platform_pages_list_commits_newest_first_by_day_and_paginate_by_month(zh_site: BuiltSite) -> None:
    index = article(zh_site.page("platforms"))
    rows = _label_index(index)
    assert rows["CUDA（NVIDIA）"][0] == "共 10 个提交。" and rows["ROCm（AMD）"][0] == "共 2 个提交。"
    assert rows["TPU（Google）"][0] == "共 0 个提交。"
    assert rows["ROCm（AMD）"][1].startswith("AMD GPU：")  # each label says what it covers
    rocm = article(zh_site.page("platforms/rocm"))
    _chart, months = tables(rocm)  # the chart's table of numbers first
    assert months[1:] == [["2026-01", "2"]]
    lines = re.findall(r"<li>(.*?)</li>", rocm[rocm.index('class="digest-lines"') :], re.S)
    assert [visible_text(line) for line in lines] == [
        "未分析 [ROCm] Fix gfx950 crash (#32400) - · 13:00",
        "高 [ROCm][Perf] Enable shuffle kv cache layout (#29887) 性能优化 · 10:00",
    ]
    assert "../../days/2026-01-15/" in hrefs(rocm) and "2026-01/" in hrefs(rocm)
    # page_size 3: CUDA's 10 commits of 2026-01 over 4 parts of the month, linked both ways.
    first = article(zh_site.page("platforms/cuda"))
    assert tables(first)[1][1:] == [["2026-01", "10"]]
    assert "2026-01/" in hrefs(first)
    month = article(zh_site.page("platforms/cuda/2026-01"))
    assert "第 1 / 4 页" in visible_text(month) and "../2026-01-2/" in hrefs(month)
    last = article(zh_site.page("platforms/cuda/2026-01-4"))
    assert "../2026-01-3/" in hrefs(last) and "第 4 / 4 页" in visible_text(last)
    assert f"../../../commits/{MEDIUM}/" in hrefs(last)  # the oldest CUDA commit is on the last part
    assert "../" in hrefs(last)  # back to the label's months
    assert "TPU" in visible_text(article(zh_site.page("platforms/tpu")))  # an empty label still has its page
    subsystems = article(zh_site.page("subsystems"))
    # The rules label every commit by today's taxonomy, analysed or not: the fixtures' commits
    # change vllm/engine/core.py unless they say otherwise.
    assert _label_index(subsystems)["引擎与调度"][0] == "共 15 个提交。"


def _label_index(page: str) -> dict[str, tuple[str, str]]:
    """A label index page as {name: (count text, description)}."""
    items = re.findall(
        r'class="digest-labels__name"[^>]*>(.*?)</a> <span class="digest-chip__count">(.*?)</span><br>'
        r'<span class="digest-labels__description">(.*?)</span>',
        page,
        re.S,
    )
    return {visible_text(name): (visible_text(count), visible_text(description)) for name, count, description in items}


def test_navigation_lists_sections_never_days_or_commits(zh_site: BuiltSite) -> None:
    page = zh_site.page("deprecations")  # a site owner's page: in material's own frame
    tabs = page[page.index('class="md-tabs"') : page.index("</nav>", page.index('class="md-tabs"'))]
    assert [visible_text(label) for label in re.findall(r'class="md-tabs__link[^"]*"[^>]*>(.*?)</a>', tabs, re.S)] == [
        "首页",
        "归档",
        "周报",
        "运维影响",
        "发布",
        "平台",
        "子系统",
        "搜索",
        "订阅",
        "关于本站",
        "弃用与移除",
    ]
    navigation = page[page.index("md-nav--primary") : page.index("</nav>", page.index("md-nav--primary"))]
    assert "commits/" not in navigation and "days/" not in navigation


def test_hand_written_page_replaces_the_generated_one(zh_site: BuiltSite) -> None:
    body = article(zh_site.page("subsystems/docs"))
    assert OVERRIDE_TEXT in visible_text(body)
    assert "Update docs" not in visible_text(body)


def test_gen_files_page_lists_deprecations_of_the_latest_month(zh_site: BuiltSite) -> None:
    body = article(zh_site.page("deprecations"))
    text = visible_text(body)
    assert "2026-01 的弃用与移除类变更" in text
    [table] = tables(body)
    assert table[1] == [
        "2026-01-16",
        "[Deprecation] Remove V0 engine (#32501)",
        "移除 V0 引擎 remove the V0 engine",
    ]
    assert f"../commits/{DEPRECATION}/" in hrefs(body)


def test_language_en_switches_generated_text_and_theme(en_site: BuiltSite) -> None:
    page = en_site.page("days/2026-01-15")
    assert '<html lang="en"' in page
    text = visible_text(article(page))
    assert "Commits of 2026-01-15" in text
    assert "5 commits · high 1 · medium 1 · low 1 · not analysed 2" in text
    assert "High importance 1" in headings(article(page))
    commit = visible_text(article(en_site.page(f"commits/{MEDIUM}")))
    assert "Change type: feature" in commit and "Importance: medium" in commit
    assert "提交" not in visible_text(article(en_site.page("archive")))
    assert "Deprecations and removals" in visible_text(article(en_site.page("deprecations")))


def test_search_is_our_sharded_index_not_materials(zh_site: BuiltSite) -> None:
    assert not (zh_site.site / "search" / "search_index.json").exists()
    manifest = json.loads((zh_site.site / "search" / "manifest.json").read_text(encoding="utf-8"))
    [partition] = [part for part in manifest["partitions"] if part["id"] == "2026q1m01"]
    shards = sorted((zh_site.site / "search" / "2026q1m01" / "s").glob("*.bin"))
    assert len(shards) == partition["shards"]
    grams = {gram for shard in shards for gram in decode_shard(shard.read_bytes())}
    assert {"mxf", "fp4", "缓", "洞察"} <= grams  # English trigrams, Chinese characters and bigrams
    page = zh_site.page("search")
    assert 'id="digest-search-input"' in page and "assets/digest-search.js" in page
    assert re.search(r'href="search/"[^>]*>\s*搜索', zh_site.page(""))  # in the navigation
