"""The search page (trusted Markdown with raw HTML: no commit text is in it) and its static files."""

from __future__ import annotations

from importlib import resources

from commit_digest.site.build.published_scripts import published_script
from commit_digest.site.rendering.i18n import Texts

SEARCH_PAGE = "search/index.md"
QUERY_SCRIPT = "assets/digest-search-query.js"  # the tokenizer and query parser, loaded first
SCRIPT = "assets/digest-search.js"
STYLE = "assets/digest-search.css"
ASSETS = (QUERY_SCRIPT, SCRIPT, STYLE)
# Runs as the page is parsed, before it is first drawn: an address that asks for a search
# (search/?q=...) has its results' space kept from the start, so their arrival moves nothing.
# digest-search.js keeps the class in step with the form afterwards.
RESERVE_SCRIPT = (
    "if (/[?&](q|repository|platform|subsystem|importance|from|to)=[^&]/.test(location.search)) "
    'document.getElementById("digest-search").classList.add("digest-search--query");'
)


def search_page_markdown(language: str) -> str:
    """The page: a form (box and filters, options filled from the index), status and result list."""

    texts = Texts(language)

    def t(key: str) -> str:
        return str(texts(f"search_{key}"))  # the i18n table's text, already HTML

    return f"""# {t("title")}

{t("intro")}

<div id="digest-search" class="digest-search" data-text-count="{t("count")}" data-text-count-one="{t("count_one")}" data-text-count-at-least="{t("count_at_least")}" data-text-empty="{t("empty")}" data-text-searching="{t("searching")}" data-text-failed="{t("failed")}">
<link rel="stylesheet" href="../{STYLE}">
<script>{RESERVE_SCRIPT}</script>
<form class="digest-search__form" role="search" aria-label="{t("label")}" action="." method="get">
<input type="search" id="digest-search-input" name="q" autocomplete="off" placeholder="{t("placeholder")}" aria-label="{t("label")}" aria-controls="digest-search-results">
<div class="digest-search__filters" role="group" aria-label="{t("filters")}">
<select id="digest-search-repository" name="repository" aria-label="{t("all_repositories")}" hidden><option value="">{t("all_repositories")}</option></select>
<select id="digest-search-platform" name="platform" aria-label="{t("all_platforms")}"><option value="">{t("all_platforms")}</option></select>
<select id="digest-search-subsystem" name="subsystem" aria-label="{t("all_subsystems")}"><option value="">{t("all_subsystems")}</option></select>
<select id="digest-search-importance" name="importance" aria-label="{t("all_importance")}"><option value="">{t("all_importance")}</option></select>
<span class="digest-search__days">
<label class="digest-search__day">{t("from")} <input type="date" id="digest-search-from" name="from"></label>
<label class="digest-search__day">{t("to")} <input type="date" id="digest-search-to" name="to"></label>
</span>
</div>
</form>
<p id="digest-search-status" class="digest-search__status" aria-live="polite"><noscript>{t("noscript")}</noscript></p>
<ol id="digest-search-results" class="digest-search__results"></ol>
<button type="button" id="digest-search-more" class="md-button" hidden>{t("more")}</button>
</div>

<script src="../{QUERY_SCRIPT}" defer></script>
<script src="../{SCRIPT}" defer></script>
"""  # noqa: E501 - one HTML element per line keeps Markdown from touching it


def asset(name: str) -> str:
    """A static file of the client (one of ``ASSETS``) as it is published: a script minified."""
    text = resources.files("commit_digest.search").joinpath(name).read_text(encoding="utf-8")
    return published_script(text) if name.endswith(".js") else text
