"""The search page (trusted Markdown with raw HTML: no commit text is in it) and its static files."""

from __future__ import annotations

from html import escape
from importlib import resources

SEARCH_PAGE = "search/index.md"
SCRIPT = "assets/digest-search.js"
STYLE = "assets/digest-search.css"

_TEXT: dict[str, tuple[str, str]] = {
    # key: (zh, en)
    "title": ("搜索", "Search"),
    "intro": (
        "搜索全部提交的标题、说明、改动路径和分析全文；多个词之间用空格分隔，结果须包含每个词。",
        "Search every commit's title, message, changed paths and full analysis; separate words with "
        "spaces, results contain every word.",
    ),
    "placeholder": ("输入关键词，例如 缓存、FP8量化、fused_moe", "Type a term, e.g. FlashInfer, fused_moe, MI300"),
    "label": ("搜索提交", "Search commits"),
    "all_platforms": ("全部平台", "All platforms"),
    "all_subsystems": ("全部子系统", "All subsystems"),
    "more": ("更多结果", "More results"),
    "count": ("共 {count} 个结果", "{count} results"),
    "count_at_least": ("至少 {count} 个结果", "At least {count} results"),
    "empty": ("没有找到匹配的提交。", "No matching commit."),
    "searching": ("搜索中…", "Searching…"),
    "failed": ("搜索失败：", "Search failed:"),
    "noscript": ("搜索需要启用 JavaScript。", "Search needs JavaScript."),
}


def search_text(key: str, language: str) -> str:
    return _TEXT[key][0 if language == "zh" else 1]


def search_page_markdown(language: str) -> str:
    """The page: a form (box and filters, options filled from the index), status and result list."""

    def t(key: str) -> str:
        return escape(search_text(key, language))

    return f"""# {t("title")}

{t("intro")}

<div id="digest-search" class="digest-search" data-text-count="{t("count")}" data-text-count-at-least="{t("count_at_least")}" data-text-empty="{t("empty")}" data-text-searching="{t("searching")}" data-text-failed="{t("failed")}">
<link rel="stylesheet" href="../{STYLE}">
<form class="digest-search__form" role="search" action="." method="get">
<input type="search" id="digest-search-input" name="q" autocomplete="off" placeholder="{t("placeholder")}" aria-label="{t("label")}">
<select id="digest-search-platform" aria-label="{t("all_platforms")}"><option value="">{t("all_platforms")}</option></select>
<select id="digest-search-subsystem" aria-label="{t("all_subsystems")}"><option value="">{t("all_subsystems")}</option></select>
</form>
<p id="digest-search-status" class="digest-search__status" aria-live="polite"><noscript>{t("noscript")}</noscript></p>
<ol id="digest-search-results" class="digest-search__results"></ol>
<button type="button" id="digest-search-more" class="md-button" hidden>{t("more")}</button>
</div>

<script src="../{SCRIPT}"></script>
"""  # noqa: E501 - one HTML element per line keeps Markdown from touching it


def asset(name: str) -> str:
    """The content of a static file of the client (``SCRIPT`` or ``STYLE``)."""
    return resources.files("commit_digest.search").joinpath(name).read_text(encoding="utf-8")
