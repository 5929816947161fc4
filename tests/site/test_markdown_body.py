"""A message's Markdown as HTML, without a build: what GitHub would show, minus what is unsafe."""

from __future__ import annotations

import re

import pytest
from markupsafe import Markup

from commit_digest.site.rendering.markdown_body import body_html


def test_markdown_renders() -> None:
    html = str(body_html("Some *em*, **strong**, ~~gone~~ and `code`.\n\n- one\n- two\n\n3. three\n\n> quoted"))
    assert "<em>em</em>" in html and "<strong>strong</strong>" in html and "<del>gone</del>" in html
    assert "<code>code</code>" in html
    assert "<ul>\n<li>one</li>\n<li>two</li>\n</ul>" in html
    assert '<ol start="3">\n<li>three</li>\n</ol>' in html
    assert "<blockquote>\n<p>quoted</p>\n</blockquote>" in html


def test_code_blocks_lose_their_language_class() -> None:
    assert str(body_html("```python\nx = 1\n```")) == "<pre><code>x = 1\n</code></pre>\n"


def test_tables_keep_their_alignment_as_an_attribute() -> None:
    html = str(body_html("| a | b |\n|--:|---|\n| 1 | 2 |"))
    assert '<th align="right">a</th>' in html and '<td align="right">1</td>' in html
    assert "style" not in html


@pytest.mark.parametrize("level", range(1, 7))
def test_headings_are_bold_paragraphs(level: int) -> None:
    assert str(body_html("#" * level + " Title")) == "<p><strong>Title</strong></p>\n"
    assert str(body_html("Title\n=====")) == "<p><strong>Title</strong></p>\n"


@pytest.mark.parametrize(
    ("source", "href", "text"),
    [
        ("[docs](https://docs.vllm.ai/en/latest/)", "https://docs.vllm.ai/en/latest/", "docs"),
        ("<https://example.org/auto>", "https://example.org/auto", "https://example.org/auto"),
        ("see https://example.org/a.", "https://example.org/a", "https://example.org/a"),
        ("(https://example.org/b)", "https://example.org/b", "https://example.org/b"),
        ("https://en.wikipedia.org/wiki/X_(y),", "https://en.wikipedia.org/wiki/X_(y)", None),
        ("[x](HTTP://EXAMPLE.ORG/up)", "HTTP://EXAMPLE.ORG/up", "x"),
    ],
)
def test_web_links_carry_nofollow_ugc(source: str, href: str, text: str | None) -> None:
    html = str(body_html(source))
    [link] = re.findall(r"<a [^>]*>(.*?)</a>", html)
    assert f'<a href="{href}" rel="nofollow ugc">' in html
    assert link == (text or href)


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("[click](javascript:alert(1))", "[click](javascript:alert(1))"),
        ("[click](JaVaScRiPt:alert(1))", "[click](JaVaScRiPt:alert(1))"),
        ("[click](data:text/html;base64,PHNjcmlwdD4=)", "[click](data:text/html;base64,PHNjcmlwdD4=)"),
        ("[rel](../../index.md)", "rel"),
        ("[anchor](#top)", "anchor"),
        ("[mail](mailto:a@example.org)", "mail"),
        ("<a@example.org>", "a@example.org"),
        ("<javascript:alert(1)>", "&lt;javascript:alert(1)&gt;"),
        ("[x](//evil.example.org/x)", "x"),
        ("![alt text](https://tracker.example.org/p.png)", "alt text"),
        ("![](https://tracker.example.org/p.png)", ""),
        ('<img src=x onerror="alert(1)">', '&lt;img src=x onerror="alert(1)"&gt;'),  # text: quotes need no escape
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("<!-- hidden -->", "&lt;!-- hidden --&gt;"),
    ],
)
def test_other_links_images_and_html_become_text(source: str, shown: str) -> None:
    html = str(body_html(source))
    assert "<a" not in html and "<img" not in html and "<script" not in html
    assert html == (f"<p>{shown}</p>\n" if shown else "<p></p>\n")


def test_a_badge_in_a_link_is_its_alt_text_in_the_link() -> None:
    html = str(body_html("[![CI](https://ci.example.org/badge.svg)](https://ci.example.org/run)"))
    assert html == '<p><a href="https://ci.example.org/run" rel="nofollow ugc">CI</a></p>\n'


def test_a_long_message_is_cut_at_a_line_with_the_callers_note() -> None:
    html = str(body_html("line\n" * 10_000, limit=1000, cut_note=Markup("cut <b>here</b>")))
    assert html.count("line") < 250 and html.endswith("<p><em>cut here</em></p>\n")
    assert str(body_html("x" * 1500, limit=1000)).count("x") == 1000
    assert str(body_html("short")) == "<p>short</p>\n"
