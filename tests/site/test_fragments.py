"""The fragments built in Python (fragments.py) escape untrusted text exactly once, as a template's
{{ value }} does; what they remember stays bounded; and the escaping helpers they use agree with
what the templates did before."""

from __future__ import annotations

import re
import sys
from datetime import UTC

from markupsafe import Markup

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.index import build_index
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.escape import html_fill, html_fill_each, html_join, html_text
from commit_digest.site.rendering.fragments import RECENT_ANALYSES, _Recent
from commit_digest.site.rendering.render import environment
from tests.site.factories import PAYLOADS, REPOSITORY, sample_records

_WHITESPACE_RUN = re.compile(r"\s+")


def _context(language: str = "zh") -> SiteContext:
    taxonomy = load_taxonomy(None, None)
    index = build_index(sample_records(), repository=REPOSITORY, zone=UTC, taxonomy=taxonomy, language=language)
    return SiteContext(index, taxonomy, SiteOptions(language=language))


def _commits(context: SiteContext) -> list[SiteCommit]:
    return [item for day in context.index.days for item in day.commits]


def test_text_folds_at_exactly_the_whitespace_a_regex_folded_at() -> None:
    # html_text folds with str.split(): the same characters as regex's \s, every one of them.
    for code in range(sys.maxunicode + 1):
        character = chr(code)
        assert (_WHITESPACE_RUN.fullmatch(character) is not None) == character.isspace(), hex(code)
    for text in (" a \t b\n\n c\u3000d\u00a0 ", "\x1c\x1dx\x85y", "", "   ", "one"):
        assert str(html_text(text)) == str(html_text(_WHITESPACE_RUN.sub(" ", text).strip()))


def test_fill_escapes_text_and_keeps_markup() -> None:
    filled = html_fill("<b>%s</b>%s %s", "<i>&\n'x'", Markup("<br>"), 3)
    assert filled == Markup("<b>&lt;i&gt;&amp; &#39;x&#39;</b><br> 3")
    assert html_fill_each("<li>%s</li>", ["<a>", Markup("<em>e</em>")]) == Markup(
        "<li>&lt;a&gt;</li><li><em>e</em></li>"
    )
    assert html_join(["<", Markup("&amp;")], "; ") == Markup("&lt;; &amp;")


def test_fragments_show_hostile_text_as_text() -> None:
    context = _context()
    hostile = [item for item in _commits(context) if item.record.commit.author_name.startswith("Mallory")]
    assert len(hostile) == len(PAYLOADS)
    page = context.for_page("commits/x.md")
    for item in hostile:
        analysis = context.fragments.analysis_sections(item, 2)
        rows = page["commit_rows"]([item])
        for html in (analysis, rows, context.fragments.status_note(item)):
            assert "<script" not in html and "<img" not in html and "<div>" not in html
        assert str(html_text(item.analysis.summary[0])) in analysis  # escaped once: not &amp;lt;


def test_analysis_sections_are_the_same_at_every_level_but_their_headings() -> None:
    context = _context()
    item = next(item for item in _commits(context) if item.analysis is not None and item.analysis.ok)
    on_commit_page = context.fragments.analysis_sections(item, 2)
    on_day_page = context.fragments.analysis_sections(item, 0)
    assert '<h2 id="summary">' in on_commit_page and "<h2" not in on_day_page
    strip = re.compile(r"<h2 id=[^>]*>(.*?)<a class=\"headerlink\"[^>]*>¶</a></h2>|<p><strong>(.*?)</strong></p>")
    assert strip.sub("", on_commit_page) == strip.sub("", on_day_page)


def test_what_fragments_remember_is_bounded() -> None:
    recent = _Recent(2)
    for key in "abcab":
        recent.get(key, lambda key=key: key.upper())
    assert list(recent._entries) == ["a", "b"]
    assert RECENT_ANALYSES <= 1024  # a day's commits, never the archive


def test_labels_without_values_are_compiled_into_the_templates() -> None:
    template = environment("en").from_string('{{ t("none") }}|{{ t("stats_total", total=n) }}')
    # The label without values no longer asks t; the one with values still does.
    texts = _context("en").texts
    assert template.render(t=texts, n=3) == f"{texts('none')}|{texts('stats_total', total=3)}"
    assert environment("zh").from_string('{{ t("none") }}').render(t=None) == str(_context().texts("none"))
