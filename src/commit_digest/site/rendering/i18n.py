"""Every word the generated pages show, in Chinese (the default) and English, in one table."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from markupsafe import Markup, escape

from commit_digest.meaning.vocabulary import change_type_name
from commit_digest.site.rendering.escape import html_text

_TEXT: dict[str, tuple[str, str]] = {
    # key: (zh, en)
    "site_title": ("vLLM 每日提交摘要", "vLLM daily commit digest"),
    "nav_home": ("首页", "Home"),
    "nav_archive": ("归档", "Archive"),
    "nav_platforms": ("平台", "Platforms"),
    "nav_repositories": ("仓库", "Repositories"),
    "nav_subsystems": ("子系统", "Subsystems"),
    "nav_search": ("搜索", "Search"),
    "home_title": ("每日提交摘要", "Daily commit digest"),
    "home_intro": ("最近 {days} 天的提交，按日期倒序。", "Commits of the latest {days} days, newest first."),
    "home_empty": ("存储中还没有提交。", "The store holds no commits yet."),
    "home_high": ("高重要度变更", "High-importance changes"),
    "home_no_high": ("当天没有高重要度变更。", "No high-importance change that day."),
    "home_more": ("查看当天全部提交", "All commits of the day"),
    "day_title": ("{date} 提交摘要", "Commits of {date}"),
    "stats_total": ("共 {total} 个提交", "{total} commits"),
    "commit_table": ("提交列表", "Commits"),
    "col_time": ("时间", "Time"),
    "col_author": ("作者", "Author"),
    "col_title": ("标题", "Title"),
    "col_type": ("类型", "Type"),
    "col_importance": ("重要度", "Importance"),
    "col_platforms": ("平台", "Platforms"),
    "col_date": ("日期", "Date"),
    "col_month": ("月份", "Month"),
    "col_days": ("天数", "Days"),
    "col_commits": ("提交数", "Commits"),
    "col_name": ("名称", "Name"),
    "col_description": ("说明", "Description"),
    "col_high": ("高", "High"),
    "col_medium": ("中", "Medium"),
    "col_low": ("低", "Low"),
    "col_unanalysed": ("未分析", "Not analysed"),
    "group_high": ("高重要度变更", "High importance"),
    "group_medium": ("中重要度变更", "Medium importance"),
    "group_low": ("低重要度变更", "Low importance"),
    "group_unanalysed": ("未分析或分析失败", "Not analysed or analysis failed"),
    # Badges: a word on a colour, never a colour or an emoji alone.
    "importance_high": ("高", "high"),
    "importance_medium": ("中", "medium"),
    "importance_low": ("低", "low"),
    "importance_none": ("未分析", "not analysed"),
    "details": ("详情", "Details"),
    "sha": ("SHA", "SHA"),
    "author": ("作者", "Author"),
    "time": ("时间", "Time"),
    "links": ("链接", "Links"),
    "view_commit": ("GitHub 提交", "Commit on GitHub"),
    "view_pr": ("PR #{number}", "PR #{number}"),
    "change_type": ("变更类型", "Change type"),
    "importance": ("重要程度", "Importance"),
    "platforms": ("平台", "Platforms"),
    "subsystems": ("子系统", "Subsystems"),
    "none": ("无", "none"),
    "files_changed": ("改动", "Changes"),
    "files_line": (
        "{files} 个文件，+{additions} / -{deletions}",
        "{files} files, +{additions} / -{deletions}",
    ),
    "summary": ("变更摘要", "Summary"),
    "impact_scope": ("影响范围", "Impact scope"),
    "insights": ("技术洞察", "Technical insights"),
    "insight_architecture": ("架构", "Architecture"),
    "insight_performance": ("性能", "Performance"),
    "insight_security": ("安全", "Security"),
    "insight_maintainability": ("可维护性", "Maintainability"),
    "insight_compatibility": ("兼容性", "Compatibility"),
    "risks": ("潜在风险", "Risks"),
    "recommendations": ("关注建议", "Recommendations"),
    "conclusion": ("综合评价", "Conclusion"),
    "provenance": ("分析来源", "Provenance"),
    "analyzer": ("分析器", "Analyzer"),
    "model": ("模型", "Model"),
    "prompt_version": ("提示词版本", "Prompt version"),
    "analysed_at": ("分析时间", "Analysed at"),
    "status": ("状态", "Status"),
    "status_ok": ("成功", "ok"),
    "status_pending": ("待分析", "pending"),
    "status_failed": ("失败", "failed"),
    "status_refused": ("被拒绝", "refused"),
    "incomplete_note": (
        "原始分析文本不完整（在句中截断）。",
        "The source analysis text is incomplete (cut mid-sentence).",
    ),
    "note_title": ("注意", "Note"),
    "not_analysed_note": (
        "此提交尚未分析，下次运行时会重试。",
        "This commit has not been analysed yet; the next run retries it.",
    ),
    "not_ok_note": (
        "分析状态：{status}。下次运行时会重试。原因：",
        "Analysis status: {status}. The next run retries it. Reason:",
    ),
    "failure_note": (
        "较新的一次分析尝试（{analyzer}，{time}）状态为{status}，此处显示的是之前的分析。原因：",
        "A newer analysis attempt ({analyzer}, {time}) ended {status}; the analysis shown is the earlier one. Reason:",
    ),
    "previous_commit": ("← 上一个提交", "← Previous commit"),
    "next_commit": ("下一个提交 →", "Next commit →"),
    "day_link": ("当天摘要", "Day digest"),
    "archive_title": ("归档", "Archive"),
    "archive_intro": ("按月份或按周浏览全部提交。", "Browse every commit by month or by week."),
    "archive_months": ("按月", "By month"),
    "archive_weeks": ("按周", "By week"),
    "month_title": ("{month} 归档", "Archive of {month}"),
    "platforms_title": ("平台", "Platforms"),
    "platforms_intro": ("按硬件平台浏览提交。", "Browse commits by hardware platform."),
    "subsystems_title": ("子系统", "Subsystems"),
    "subsystems_intro": ("按子系统浏览提交。", "Browse commits by subsystem."),
    "repositories_title": ("仓库", "Repositories"),
    "repositories_intro": (
        "按仓库浏览提交：本站关注的每个仓库。",
        "Browse commits by repository: each one this site follows.",
    ),
    "label_count": ("共 {count} 个提交。", "{count} commits."),
    "label_months": ("按月份", "By month"),
    "label_latest": ("最近：{month}", "Latest: {month}"),
    "label_month_count": ("{month} 共 {count} 个提交。", "{count} commits in {month}."),
    "label_all_months": ("← 全部月份", "← All months"),
    "read_more": ("完整分析 →", "Full analysis →"),
    "label_empty": ("还没有属于此类别的提交。", "No commit in this category yet."),
    "page_of": ("第 {page} / {pages} 页", "Page {page} of {pages}"),
    "newer_page": ("← 较新", "← Newer"),
    "older_page": ("较旧 →", "Older →"),
    "label_reason": ("（依据：{reason}）", " (reason: {reason})"),
    "colon": ("：", ": "),
    "semicolon": ("；", "; "),
    "unknown_label": ("（分类表中没有此标签）", "(not in the taxonomy)"),
    # The morning read: day pages, the home page, entries and filters.
    "previous_day": ("← {date}", "← {date}"),
    "next_day": ("{date} →", "{date} →"),
    "all_days": ("归档", "Archive"),
    "full_analysis": ("完整分析", "Full analysis"),
    "filter_platforms": ("平台", "Platform"),
    "filter_subsystems": ("子系统", "Subsystem"),
    "filter_repositories": ("仓库", "Repository"),
    "filter_all": ("全部", "All"),
    "filter_showing": ("显示 {shown} / {total} 个提交", "Showing {shown} of {total} commits"),
    "filter_none": ("没有符合筛选条件的提交。", "No commit matches the filter."),
    "home_counts_platforms": ("平台", "Platforms"),
    "home_counts_subsystems": ("子系统", "Subsystems"),
    "home_by_platform": ("各平台变更", "By platform"),
    "home_my_platform": ("我的平台", "My platform"),
    "home_my_platform_hint": (
        "选择后，首页每天展开该平台的提交（保存在本浏览器中）。",
        "Once chosen, the home page opens that platform's commits of each day (kept in this browser).",
    ),
    "no_platform_commits": ("当天没有带平台标签的提交。", "No commit with a platform label that day."),
    "reason_tag": ("标题标签 {tag}", "title tag {tag}"),
    "reason_path": ("路径 {path}", "path {path}"),
    "reason_repository": ("仓库 {repository} 的每个提交都属于此平台", "every commit of {repository} is on it"),
    "reason_word": ("{field}中的“{word}”", "“{word}” in the {field}"),
    "reason_field_title": ("标题", "title"),
    "reason_field_message": ("提交说明", "message"),
    "reason_more": ("另 {count} 处", "and {count} more"),
    "reason_llm": ("LLM 判断：{reason}", "LLM: {reason}"),
    # An analysis shown in the language it was written in, not the page's: never mixed silently.
    "original_zh": ("原文为中文", "Original in Chinese"),
    "original_en": ("原文为英文", "Original in English"),
    "original_note_zh": (
        "此分析以中文写成。",
        "This analysis has no English version yet; it is shown in the Chinese it was written in.",
    ),
    "original_note_en": (
        "此分析尚无中文版本，以下为英文原文。",
        "This analysis has no English version yet; it is shown in the English it was written in.",
    ),
    # The footer's status line (set as text by the page's script, from status.json).
    "footer_status": (
        "最后更新：{built} · 数据范围：{first} 至 {last}（{days} 天，{commits} 个提交）",
        "Last updated {built} · data from {first} to {last} ({days} days, {commits} commits)",
    ),
    "footer_status_empty": ("最后更新：{built} · 暂无数据", "Last updated {built} · no data yet"),
    # The search page.
    "search_title": ("搜索", "Search"),
    "search_intro": (
        "搜索全部提交的标题、说明、改动路径和分析全文；多个词之间用空格分隔，结果须包含每个词，"
        "最相关的在前。同义词一并查找（推测解码 = 投机解码 = speculative decoding）；"
        "也可粘贴提交哈希的前几位或 #PR 编号。按 / 键开始搜索，↑ ↓ 选择结果，回车打开。",
        "Search every commit's title, message, changed paths and full analysis; separate words with "
        "spaces, results contain every word, most relevant first. Synonyms count too, in both languages "
        "(spec decode = speculative decoding); a sha prefix or a #PR number finds its commit. Press / to "
        "search, ↑ ↓ to choose a result, Enter to open it.",
    ),
    "search_placeholder": (
        "输入关键词，例如 FP8量化、推测解码、fused_moe",
        "Type a term, e.g. FlashInfer, speculative decoding, MI300",
    ),
    "search_label": ("搜索提交", "Search commits"),
    "search_all_platforms": ("全部平台", "All platforms"),
    "search_all_subsystems": ("全部子系统", "All subsystems"),
    "search_all_importance": ("全部重要性", "Any importance"),
    "search_all_repositories": ("全部仓库", "All repositories"),
    "search_from": ("从", "From"),
    "search_to": ("到", "to"),
    "search_filters": ("筛选", "Filters"),
    "search_more": ("更多结果", "More results"),
    "search_count": ("共 {count} 个结果", "{count} results"),
    "search_count_one": ("共 1 个结果", "1 result"),
    "search_count_at_least": ("至少 {count} 个结果", "At least {count} results"),
    "search_empty": ("没有找到匹配的提交。", "No matching commit."),
    "search_searching": ("搜索中…", "Searching…"),
    "search_failed": ("搜索失败：", "Search failed:"),
    "search_noscript": ("搜索需要启用 JavaScript。", "Search needs JavaScript."),
    # The site's chrome: header search box, 404 page, footer status and stale-data notice.
    "header_search_placeholder": ("搜索提交", "Search commits"),
    "header_search_open": ("打开搜索", "Open search"),
    "header_search_hint": ("搜索提交（按 / 键）", "Search commits (press /)"),
    "header_search_all": ("全部结果 →", "All results →"),
    "not_found_title": ("404 - 页面不存在", "404 - Page not found"),
    "not_found_text": (
        "这个地址没有页面：链接可能已经过时，或者地址输错了。可以搜索提交，或者从这里继续：",
        "There is no page at this address: the link may be out of date or the address mistyped. "
        "Search the commits, or continue from here:",
    ),
    "not_found_newest": ("最新一天的摘要（{date}）", "The newest day's digest ({date})"),
    "not_found_archive": ("按月份浏览的归档", "The archive, by month"),
    "status_last_fetch": (" · 上次成功获取：{fetched}", " · last successful fetch {fetched}"),
    "status_stale": (
        "⚠️ 数据可能已过期：最新的提交日期是 {last}，比本次构建（{built}）早 {days} 天，获取提交可能失败了。",
        "⚠️ The data may be out of date: its newest day, {last}, is {days} days before this build ({built}); "
        "fetching commits may have failed.",
    ),
    # The commit page: its message, changed files, copy control and permalink.
    "message": ("说明", "Message"),
    "pr_description": ("PR #{number} 的描述", "Description of PR #{number}"),
    "message_cut": (
        "……内容过长，只显示了前 {limit} 个字符，全文见 GitHub。",
        "… Too long: only the first {limit} characters are shown; the rest is on GitHub.",
    ),
    "changed_files": ("改动的文件", "Changed files"),
    "col_file": ("文件", "File"),
    "col_lines": ("行数", "Lines"),
    "more_files": (
        "……以及另外 {count} 个文件：见此提交在 GitHub 上的页面",
        "and {count} more files: see the commit on GitHub",
    ),
    "analysis_shortened": (
        "此分析过长，本页每段只显示前 {limit} 个字符左右。",
        "This analysis is too long for one page: each of its texts is shortened to about {limit} characters.",
    ),
    "renamed_from": ("（原为 {path}）", " (was {path})"),
    "file_added": ("新增", "added"),
    "file_modified": ("修改", "modified"),
    "file_removed": ("删除", "removed"),
    "file_renamed": ("重命名", "renamed"),
    "file_copied": ("复制", "copied"),
    "file_changed": ("变更", "changed"),
    "file_unchanged": ("未变", "unchanged"),
    "copy": ("复制", "Copy"),
    "copied": ("已复制", "Copied"),
    "copy_sha": ("复制完整 SHA", "Copy the full SHA"),
    "permalink": ("永久链接", "Permalink"),
    # A site in several languages: the theme's palette toggles, named in mkdocs.yml in one language
    # and worded by the plugin for each language's build (site/languages.py).
    "palette_to_dark": ("切换到深色模式", "Switch to dark mode"),
    "palette_to_light": ("切换到浅色模式", "Switch to light mode"),
    "palette_to_system": ("切换到跟随系统", "Switch to system preference"),
    # -- feeds (site/feeds.py) and the subscribe page --
    # What each feed is called (plain text: the feed's <title> after the site's name, and the
    # subscribe page's list); a label's feed is called by the label's name.
    "feed_all": ("全部提交", "All commits"),
    "feed_high": ("仅高重要度", "High importance only"),
    "feed_subtitle": (
        "{name}：最新 {count} 个提交，每个提交一条，附分析摘要。",
        "{name}: the newest {count} commits, one entry each with its analysis summary.",
    ),
    # An entry's first line: "重要度：高 · 类型：性能优化 · 平台：ROCm · 子系统：注意力、KV 缓存".
    "feed_fact": ("{name}：{value}", "{name}: {value}"),
    "feed_importance": ("重要度", "Importance"),
    "feed_type": ("类型", "Type"),
    "feed_platforms": ("平台", "Platforms"),
    "feed_subsystems": ("子系统", "Subsystems"),
    "feed_list_separator": ("、", ", "),
    "feed_not_analysed": (
        "此提交尚未分析，下次运行时会分析它。",
        "This commit has not been analysed yet; the next run analyses it.",
    ),
    "feed_not_ok": (
        "分析未完成（状态：{status}），下次运行时会重试。",
        "The analysis did not complete (status: {status}); the next run retries it.",
    ),
    # The subscribe page and the feed links of the pages that announce a feed.
    "subscribe_title": ("订阅", "Subscribe"),
    "nav_subscribe": ("订阅", "Subscribe"),
    "subscribe_intro": (
        "本站为全站、每个平台、每个子系统和高重要度变更提供 Atom 订阅源。每个订阅源包含最新的 {count} 个提交，"
        "每个提交一条：标题、日期、重要度、标签、分析摘要和提交页面的链接。"
        "把订阅源的地址复制到任意 RSS/Atom 阅读器（如 Feedly、Inoreader、Thunderbird）中即可订阅，"
        "阅读器会定期检查新的提交。",
        "This site has Atom feeds for the whole site, each platform, each subsystem and the high-importance "
        "changes. Each feed holds the newest {count} commits, one entry each: its title, date, importance, "
        "labels, analysis summary and a link to its page. Copy a feed's address into any RSS/Atom reader "
        "(Feedly, Inoreader, Thunderbird, ...) to subscribe; the reader checks it for new commits.",
    ),
    "subscribe_site": ("全站", "The whole site"),
    "subscribe_platforms": ("按平台", "By platform"),
    "subscribe_subsystems": ("按子系统", "By subsystem"),
    "subscribe_repositories": ("按仓库", "By repository"),
    "feed_url": ("订阅地址", "Feed address"),
    "feed_link": ("订阅（Atom）", "Subscribe (Atom)"),
    "feeds_line": ("订阅：", "Subscribe:"),
    "all_feeds": ("全部订阅源", "All feeds"),
    # -- end feeds --
    # -- activity charts (site/charts.py) --
    "chart_caption_home": ("各平台每周的提交数", "Commits per platform, week by week"),
    "chart_caption_platforms": ("{name} 上各子系统每周的提交数", "Commits on {name} per subsystem, week by week"),
    "chart_caption_subsystems": ("{name} 在各平台每周的提交数", "Commits in {name} per platform, week by week"),
    "chart_total": ("合计", "Total"),
    "chart_bar": ("{week}：{count}", "{week}: {count}"),
    "chart_bar_now": ("{week}（进行中）：{count}", "{week} (in progress): {count}"),
    "chart_row_label": ("{name}，每周的提交数：{counts}", "{name}, commits per week: {counts}"),
    "chart_list_separator": ("、", ", "),
    "chart_more": ("另有 {count} 项：", "{count} more: "),
    "chart_note": (
        "每行：每周的提交数（浅色的最后一根柱是进行中的 {now}）、合计，以及 {week} 的提交数和与前一周相比的变化"
        "（▲ 增加，▼ 减少）。",
        "Each row: commits per week (the light last bar is {now}, in progress), the total, and {week}'s "
        "commits with the change from the week before (▲ more, ▼ fewer).",
    ),
    "chart_note_two": (
        "每行：每周的提交数（浅色的最后一根柱是进行中的 {now}）、合计，以及 {week} 的提交数。",
        "Each row: commits per week (the light last bar is {now}, in progress), the total, and {week}'s commits.",
    ),
    "chart_note_one": (
        "每行：进行中的 {now} 的提交数及合计。",
        "Each row: the commits of {now}, in progress, and their total.",
    ),
    "chart_table": ("数据表", "The numbers as a table"),
    # -- end charts --
    # -- week pages (site/weeks.py) --
    "nav_weeks": ("周报", "Weeks"),
    "week_title": ("{week} 周报", "Week {week}"),
    "week_dates": ("{start} 至 {end}", "{start} to {end}"),
    "weeks_title": ("每周回顾", "Weekly reviews"),
    "weeks_intro": (
        "每周一页：各平台与子系统的重要变更、与上周相比的提交数、弃用与移除、新模型和运维须知。"
        "周按 ISO 标准从周一到周日计算（时区 {zone}）。",
        "One page per week: the notable changes per platform and subsystem, the counts against the week before, "
        "deprecations and removals, new models and what operators must know. Weeks run Monday to Sunday (ISO "
        "weeks, time zone {zone}).",
    ),
    "weeks_empty": ("还没有任何一周的提交。", "No week has commits yet."),
    "col_week": ("周", "Week"),
    "col_dates": ("日期", "Dates"),
    "col_change": ("较上周", "Change"),
    "previous_week": ("← {week}", "← {week}"),
    "next_week": ("{week} →", "{week} →"),
    "all_weeks": ("全部周报", "All weeks"),
    "week_of_day": ("本周周报：{week}", "This week: {week}"),
    "week_latest": ("最新周报：{week}", "Latest week: {week}"),
    "week_against": ("上周 {previous} 个，{change}", "{previous} the week before, {change}"),
    "change_up": ("▲ {count}", "▲ {count}"),
    "change_down": ("▼ {count}", "▼ {count}"),
    "change_none": ("持平", "no change"),
    "week_days": ("每天", "Days"),
    "weekday_1": ("周一", "Mon"),
    "weekday_2": ("周二", "Tue"),
    "weekday_3": ("周三", "Wed"),
    "weekday_4": ("周四", "Thu"),
    "weekday_5": ("周五", "Fri"),
    "weekday_6": ("周六", "Sat"),
    "weekday_7": ("周日", "Sun"),
    "week_highlights": ("本周要点", "Highlights"),
    "week_no_highlights": ("本周没有高重要度变更。", "No high-importance change this week."),
    "week_deprecations": ("弃用与移除", "Deprecations and removals"),
    "week_new_models": ("新模型", "New models"),
    "week_operators": ("运维须知", "What operators must know"),
    "week_operators_intro": (
        "从 diff 中读出的环境变量、参数、依赖与弃用变更，以及分析指出会影响兼容性的高重要度变更。",
        "Environment variables, flags, dependencies and deprecations read from the diffs, and high-importance changes "
        "the analyses say affect compatibility.",
    ),
    "week_none": ("无。", "None."),
    "week_by_platform": ("按平台", "By platform"),
    "week_by_subsystem": ("按子系统", "By subsystem"),
    "week_by_repository": ("按仓库", "By repository"),
    "week_label_facts": (
        "{count} 个提交{against} · 高重要度 {high} 个{related}",
        "{count} commits{against} · {high} of high importance{related}",
    ),
    "week_label_against": ("（上周 {previous} 个，{change}）", " ({previous} the week before, {change})"),
    "week_label_related": (" · 涉及最多：{related}", " · mostly {related}"),
    "week_related": ("{name}（{count}）", "{name} ({count})"),
    "list_separator": ("、", ", "),
    "week_more": ("以及另外 {count} 个提交", "and {count} more commits"),
    "week_narrative": ("{model} 撰写的本周概述", "The week as {model} tells it"),
    "week_series": ("系列，共 {count} 个提交：", "a series of {count} commits:"),
    # -- end weeks --
    # -- what a commit means: operator impact, related commits, releases (site/facts.py) --
    "nav_impact": ("运维影响", "Operator impact"),
    "nav_releases": ("发布", "Releases"),
    "impact_title": ("运维影响", "Operator impact"),
    "impact_intro": (
        "从每个提交的 diff 中确定性提取的运维变更：环境变量、命令行参数与引擎参数、依赖版本和新增的弃用警告。"
        "最新在前；可按类别和平台筛选。",
        "What each commit's diff changes for the people who run it, read from the diff itself: environment "
        "variables, CLI flags and engine arguments, dependency versions and new deprecation warnings. Newest first; "
        "filter by kind and platform.",
    ),
    "impact_months": ("按月份", "By month"),
    "impact_month_title": ("{month} 运维影响", "Operator impact of {month}"),
    "impact_empty": ("还没有提交改动运维相关的配置。", "No commit has changed what operators configure yet."),
    "impact_section": ("运维影响", "Operator impact"),
    "impact_partial": (
        "此提交的部分 diff 未被完整收集，以下列表可能不全。",
        "Part of this commit's diff was not collected whole: the list may be incomplete.",
    ),
    "impact_in_file": ("（{path}）", " ({path})"),
    "impact_count": ("运维影响 {count}", "{count} operator changes"),
    "impact_more": ("以及另外 {count} 项运维改动", "and {count} more operator changes"),
    "impact_more_diff": (
        "以及另外 {count} 项运维改动：见此提交在 GitHub 上的 diff",
        "and {count} more operator changes: see the commit's diff on GitHub",
    ),
    "filter_kinds": ("类别", "Kind"),
    "impact_kind_env_var": ("环境变量", "Environment variables"),
    "impact_kind_cli_flag": ("命令行参数", "CLI flags"),
    "impact_kind_engine_arg": ("引擎参数", "Engine arguments"),
    "impact_kind_dependency": ("依赖", "Dependencies"),
    "impact_kind_deprecation": ("弃用", "Deprecations"),
    "impact_nothing": ("（无）", "(none)"),
    "impact_default": ("（默认 {value}）", " (default {value})"),
    "impact_spec": (" {value}", " {value}"),
    "impact_of": ("（{detail}）", " ({detail})"),
    "impact_env_var_added": ("新增环境变量 {name}{default}", "New environment variable {name}{default}"),
    "impact_env_var_removed": ("移除环境变量 {name}", "Environment variable {name} removed"),
    "impact_env_var_default_changed": (
        "环境变量 {name} 默认值：{old} → {new}",
        "Environment variable {name}: default {old} → {new}",
    ),
    "impact_env_var_renamed": (
        "环境变量 {previous} 更名为 {name}",
        "Environment variable {previous} renamed to {name}",
    ),
    "impact_cli_flag_added": ("新增命令行参数 {name}{default}", "New CLI flag {name}{default}"),
    "impact_cli_flag_removed": ("移除命令行参数 {name}", "CLI flag {name} removed"),
    "impact_cli_flag_default_changed": (
        "命令行参数 {name} 默认值：{old} → {new}",
        "CLI flag {name}: default {old} → {new}",
    ),
    "impact_cli_flag_renamed": ("命令行参数 {previous} 更名为 {name}", "CLI flag {previous} renamed to {name}"),
    "impact_engine_arg_added": ("新增引擎参数 {name}{of}{default}", "New engine argument {name}{of}{default}"),
    "impact_engine_arg_removed": ("移除引擎参数 {name}{of}", "Engine argument {name}{of} removed"),
    "impact_engine_arg_default_changed": (
        "引擎参数 {name}{of} 默认值：{old} → {new}",
        "Engine argument {name}{of}: default {old} → {new}",
    ),
    "impact_engine_arg_renamed": (
        "引擎参数 {previous} 更名为 {name}{of}",
        "Engine argument {previous} renamed to {name}{of}",
    ),
    "impact_dependency_added": ("新增依赖 {name}{spec}", "New dependency {name}{spec}"),
    "impact_dependency_removed": ("移除依赖 {name}", "Dependency {name} removed"),
    "impact_dependency_version_changed": ("依赖 {name}：{old} → {new}", "Dependency {name}: {old} → {new}"),
    "impact_dependency_renamed": ("依赖 {previous} 改为 {name}", "Dependency {previous} replaced by {name}"),
    "impact_deprecation_added": ("新增弃用警告（{name}）：{message}", "New deprecation warning ({name}): {message}"),
    "impact_other": ("{kind}：{name}（{change}）", "{kind}: {name} ({change})"),
    "impact_change_added": ("新增", "added"),
    "impact_change_removed": ("移除", "removed"),
    "impact_change_default_changed": ("默认值改变", "default changed"),
    "impact_change_renamed": ("更名", "renamed"),
    "impact_change_version_changed": ("版本改变", "version changed"),
    "impact_feed": ("运维须知", "Changes operators must know"),
    "related_section": ("相关提交", "Related commits"),
    "related_reverts": ("回滚了", "Reverts"),
    "related_reverted_by": ("被回滚于", "Reverted by"),
    "related_fixes": ("修复", "Fixes"),
    "related_fixed_by": ("后续修复", "Fixed by"),
    "related_follows_up": ("跟进", "Follows up"),
    "related_followed_up_by": ("后续跟进", "Followed up by"),
    "related_mentions": ("提及", "Mentions"),
    "related_mentioned_by": ("被提及于", "Mentioned by"),
    "related_reference": ("{repository}#{number}", "{repository}#{number}"),
    "reverted_banner": ("此提交已被回滚", "This commit was reverted"),
    "reverted_note": ("{date} 被 {link} 回滚。", "Reverted on {date} by {link}."),
    "restored_note": ("此提交曾被回滚，之后又被恢复。", "This commit was reverted, then restored."),
    "reverted_flag": ("已回滚", "reverted"),
    "series": ("系列", "Series"),
    "series_title": ("提交系列", "Commit series"),
    "series_intro": (
        "标题带编号的提交系列（[k/N]、k/N、[Part k]），按部分排列并显示进度，跨越天数与仓库。",
        "Numbered series of commits ([k/N], k/N, [Part k]), in part order with their progress, across days and "
        "repositories.",
    ),
    "series_empty": ("还没有提交系列。", "No series of commits yet."),
    "series_progress": ("已合入 {landed}/{total}", "{landed} of {total} landed"),
    "series_progress_open": ("已合入 {landed} 部分（总数未标明）", "{landed} parts landed (no total given)"),
    "series_missing": ("尚未合入：第 {parts} 部分", "Not landed yet: part {parts}"),
    "series_part": ("第 {part} 部分", "Part {part}"),
    "series_part_missing": ("尚未合入", "not landed yet"),
    "col_series": ("系列", "Series"),
    "col_progress": ("进度", "Progress"),
    "col_latest": ("最近一部分", "Latest part"),
    "col_repository": ("仓库", "Repository"),
    "col_release": ("版本", "Release"),
    "first_release": ("首次发布", "First released in"),
    "release_on": ("{tag}（{date}）", "{tag} ({date})"),
    "not_released": ("尚未发布", "Not yet released"),
    "releases_title": ("发布版本", "Releases"),
    "releases_intro": (
        "每个版本首次带来的提交，按平台与子系统分组、重要度优先：自动生成的发布说明。",
        "What each release brought first, grouped by platform and subsystem, importance first: release notes "
        "that write themselves.",
    ),
    "releases_empty": (
        "存储中还没有发布标签：运行 commit-digest fetch 收集。",
        "The store has no release tags yet: commit-digest fetch collects them.",
    ),
    "release_title": ("{tag} 发布说明", "Release {tag}"),
    "release_facts": ("{date} 发布 · 首次带来 {count} 个提交", "Tagged {date} · first brings {count} commits"),
    "release_previous": ("上一版本：{tag}", "Previous release: {tag}"),
    "release_compare": ("在 GitHub 上比较 {base}…{tag}", "Compare {base}…{tag} on GitHub"),
    "release_github": ("GitHub 上的标签", "The tag on GitHub"),
    "release_operators": ("升级须知", "Upgrade notes"),
    "release_operators_intro": (
        "本版本提交中的运维变更（来自 diff）。",
        "The operator changes of this release's commits, read from their diffs.",
    ),
    "release_highlights": ("要点", "Highlights"),
    "release_no_highlights": ("本版本没有高重要度变更。", "No high-importance change in this release."),
    "unreleased_title": ("尚未发布的提交", "Not yet released"),
    "unreleased_intro": (
        "已合入但还没有任何发布标签包含的提交：下一个版本将带来的内容。",
        "Commits landed that no release tag contains yet: what the next release will bring.",
    ),
    "unreleased_link": ("尚未发布：{count} 个提交", "Not yet released: {count} commits"),
    # -- end meaning --
}

LANGUAGES = ("zh", "en")


class Texts:
    """The labels of one language as HTML; values are trusted Markup (they come from this table only)."""

    def __init__(self, language: str) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r}: expected one of {', '.join(LANGUAGES)}")
        self.language = language
        index = LANGUAGES.index(language)
        self._text: Mapping[str, str] = MappingProxyType({key: pair[index] for key, pair in _TEXT.items()})
        # A label without values is asked for thousands of times per build (a colon, a heading's word).
        self._markup: Mapping[str, Markup] = MappingProxyType({key: Markup(text) for key, text in self._text.items()})
        self._change_types: dict[str, Markup] = {}

    def __call__(self, key: str, **values: object) -> Markup:
        """A label with ``values`` filled in; values that are not Markup go through the escaping path."""
        if not values:
            return self._markup[key]
        template = self._text[key]
        safe = {name: value if isinstance(value, Markup) else html_text(value) for name, value in values.items()}
        return Markup(template.format(**safe))

    def has(self, key: str) -> bool:
        return key in self._text

    def change_type(self, value: str) -> Markup:
        # Remembered: a change type (an enum's value, a handful) is named on every listing line.
        if value not in self._change_types:
            self._change_types[value] = escape(change_type_name(value, self.language))
        return self._change_types[value]
