"""Hostile commit text renders as the visible text it is: no tag, attribute, link, include,
broken table or heading, and the strict build still passes (the fixture builds with --strict)."""

from __future__ import annotations

import re

import pytest

from commit_digest.site.rendering.escape import block_text, inline_text
from tests.site.conftest import BuiltSite
from tests.site.factories import PAYLOADS, sha_for
from tests.site.html import article, event_handlers, headings, visible_text

PAYLOAD_SHAS = [sha_for(f"payload-{number}")[:12] for number in range(len(PAYLOADS))]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_inline_text_leaves_no_markdown_or_html_syntax(payload: str) -> None:
    escaped = str(inline_text(payload))
    without_references = re.sub(r"&#\d+;", "", escaped)
    for character in "<>[]|{}#`*_\"'&:=":
        assert character not in without_references, (payload, escaped)
    assert "\n" not in escaped


def test_block_text_keeps_paragraphs_and_folds_lines() -> None:
    assert str(block_text("one\nline\n\n# two")) == "one line\n\n&#35; two"


def test_text_starting_a_line_cannot_open_a_list_or_block() -> None:
    for start in ("- item", "+ item", "> quote", "--8<-- x", "=== tab", "!!! note", "* item", "    - code"):
        assert str(inline_text(start)).startswith("&#"), start
    assert str(inline_text("12. item")) == "12&#46; item"
    assert str(inline_text("3) item")) == "3&#41; item"


def _all_pages(site: BuiltSite) -> list[tuple[str, str]]:
    return [(name, page) for name, page in site.pages() if name != "404.html"]


@pytest.mark.slow
def test_no_payload_markup_reaches_any_page(zh_site: BuiltSite) -> None:
    for name, page in _all_pages(zh_site):
        assert "<script>document" not in page, name
        assert not event_handlers(page), name
        assert 'href="javascript:' not in page.lower(), name
        assert "<img" not in page, name
        assert "site_name:" not in page, name  # the snippet include never ran
        assert 'href="../../index.md"' not in page, name


@pytest.mark.slow
def test_payloads_show_as_text_on_commit_pages(zh_site: BuiltSite) -> None:
    for payload, short_sha in zip(PAYLOADS, PAYLOAD_SHAS, strict=True):
        body = article(zh_site.page(f"commits/{short_sha}"))
        text = visible_text(body)
        shown = " ".join(payload.split())
        assert f"payload summary {shown}" in text, payload
        assert f"Mallory {shown}" in text, payload
        assert f"综合评价 conclusion text {shown}" in text, payload
        assert f"reason {shown}" in text, payload
        # Only the page title is an h1, and no payload became a heading of its own.
        page_headings = headings(body)
        assert page_headings[0].endswith(shown), payload
        assert all(
            heading.startswith(
                (
                    "payload",
                    "变更摘要",
                    "影响范围",
                    "技术洞察",
                    "潜在风险",
                    "关注建议",
                    "综合评价",
                    "分析来源",
                    "说明",
                    "改动的文件",
                )
            )
            for heading in page_headings
        ), page_headings
        assert body.count("<h1") == 1
        assert "<div>unclosed" not in body


@pytest.mark.slow
def test_day_entries_stay_intact_with_payloads_in_titles_and_authors(zh_site: BuiltSite) -> None:
    body = article(zh_site.page("days/2026-01-17"))
    entries = re.findall(r'<li class="digest-entry"[^>]*>(.*?)</li>\n', body, re.S)
    assert len(entries) == len(PAYLOADS)
    titles = [
        visible_text(re.search(r'<p class="digest-entry__title">(.*?)</p>', entry, re.S).group(1)) for entry in entries
    ]
    assert "payload 5 pipe | in | cell" in " ".join(titles)
    assert "payload 2 [click me](javascript:document.title='pwned-link')" in " ".join(titles)
    metas = " ".join(
        visible_text(re.search(r'<p class="digest-entry__meta">(.*?)</p>', e, re.S).group(1)) for e in entries
    )
    assert "Mallory <img src=x onerror=\"document.title='pwned-img'\">" in metas


@pytest.mark.slow
def test_page_titles_are_escaped_in_the_document_head(zh_site: BuiltSite) -> None:
    page = zh_site.page(f"commits/{PAYLOAD_SHAS[0]}")
    head = page[: page.index("</head>")]
    assert "<title>payload 0 &lt;script&gt;document.title=&#x27;pwned-script&#x27;&lt;/script&gt; - " in head


def test_sanitizer_keeps_material_markup_and_drops_active_content() -> None:
    from commit_digest.site.rendering.sanitize import sanitize_html

    kept = (
        '<h2 id="a">Title<a class="headerlink" href="#a" title="Permanent link">¶</a></h2>'
        "<table>\n<thead>\n<tr>\n<th>x</th>\n</tr>\n</thead>\n"
        '<tbody>\n<tr>\n<td><a href="../../commits/abc/">t</a></td>\n</tr>\n</tbody>\n</table>'
    )
    assert sanitize_html(kept) == kept
    hostile = '<p onclick="x()">a<script>alert(1)</script><img src=x onerror=y><a href="javascript:z()">l</a></p>'
    assert sanitize_html(hostile) == "<p>a<a>l</a></p>"
