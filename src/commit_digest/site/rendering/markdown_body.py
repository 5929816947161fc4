"""A commit message or PR description as the HTML GitHub would show, minus what is unsafe.

The text is untrusted, so it is read as a restricted Markdown: CommonMark plus GitHub's tables and
strikethrough, with raw HTML off (a ``<script>`` shows as the text it is). On top of the parser:

- a link keeps its target only when that is an http(s) URL, and carries ``rel="nofollow ugc"``;
  any other link (``javascript:``, ``mailto:``, a relative path) becomes its text;
- an image becomes its alt text (no request leaves the reader's browser for a commit's image);
- a bare http(s) URL becomes a link, as on GitHub;
- headings render as bold paragraphs: they never enter the page's table of contents.

The HTML then goes through ``sanitize.sanitize_body_html``, which allows exactly what this module
emits; the page's own backstop (``sanitize_html``) runs over it once more.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markupsafe import Markup, escape

from commit_digest.site.rendering.sanitize import BODY_LINK_REL, is_web_url, sanitize_body_html

# Characters of a message rendered; a longer one is cut at a line break before it, with a note.
BODY_LIMIT = 20_000
_BARE_URL = re.compile(r"https?://[^\s<>\"'`]+", re.I)
# Punctuation that ends a sentence rather than a URL ("see https://x.org/a.").
_TRAILING = ".,;:!?*_~'\""
_ALIGN = re.compile(r"text-align:\s*(left|right|center)")
_ELLIPSIS = Markup("…")


def _web_url_end(url: str) -> int:
    """Where a bare URL found in text ends: without trailing punctuation or an unbalanced ")"."""
    end = len(url)
    opened, closed = url.count("("), url.count(")")  # counted once: linear on ")))…" too
    while end:
        character = url[end - 1]
        if character == ")" and opened < closed:
            closed -= 1
        elif character not in _TRAILING:
            break
        end -= 1
    return end


def _plain_text(tokens: Iterable[Token]) -> str:
    """The text of inline tokens without their markup (an image's alt text)."""
    parts = []
    for token in tokens:
        if token.children:
            parts.append(_plain_text(token.children))
        elif token.type in ("text", "code_inline"):
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def _link_tokens(md: MarkdownIt, url: str) -> list[Token]:
    opening = Token("link_open", "a", 1)
    opening.attrSet("href", md.normalizeLink(url))
    opening.attrSet("rel", BODY_LINK_REL)
    opening.markup, opening.info = "linkify", "auto"
    text = Token("text", "", 0, content=url)
    closing = Token("link_close", "a", -1, markup="linkify", info="auto")
    return [opening, text, closing]


def _linkified(md: MarkdownIt, token: Token) -> Iterator[Token]:
    """A text token, with its bare http(s) URLs turned into links."""
    text = token.content
    position = 0
    for match in _BARE_URL.finditer(text):
        url = match.group(0)[: _web_url_end(match.group(0))]
        if len(url) <= len("https://") or not md.validateLink(url):
            continue
        if match.start() > position:
            yield Token("text", "", 0, content=text[position : match.start()])
        yield from _link_tokens(md, url)
        position = match.start() + len(url)
    if position == 0:
        yield token
    elif position < len(text):
        yield Token("text", "", 0, content=text[position:])


def _safe_inline(md: MarkdownIt, children: Sequence[Token]) -> Iterator[Token]:
    in_link = dropped = False
    for token in children:
        if token.type == "link_open":
            if is_web_url(str(token.attrGet("href") or "")):
                token.attrSet("rel", BODY_LINK_REL)
                in_link = True
                yield token
            else:
                dropped = True  # its text stays, as text
        elif token.type == "link_close":
            if dropped:
                dropped = False
            else:
                in_link = False
                yield token
        elif token.type == "image":
            alt = _plain_text(token.children or ())
            if alt:
                yield Token("text", "", 0, content=alt)
        elif token.type == "text" and not in_link and not dropped:
            yield from _linkified(md, token)
        else:
            yield token


def _restrict(state: StateCore) -> None:
    """The core rule (after every other) that applies the module's link, image and table rules."""
    for token in state.tokens:
        if token.type in ("th_open", "td_open"):
            # Alignment as the ``align`` attribute the page's sanitizer keeps, not as a style.
            found = _ALIGN.search(str(token.attrGet("style") or ""))
            token.attrs = {"align": found.group(1)} if found else {}
        elif token.type == "inline" and token.children:
            token.children = list(_safe_inline(state.md, token.children))


def _render_as(html: str) -> Any:
    return lambda self, tokens, idx, options, env: html


@cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.core.ruler.push("commit_digest_restrict", _restrict)
    # Headings of a message are not the page's: bold paragraphs, out of the table of contents.
    md.add_render_rule("heading_open", _render_as("<p><strong>"))
    md.add_render_rule("heading_close", _render_as("</strong></p>\n"))
    md.add_render_rule("s_open", _render_as("<del>"))
    md.add_render_rule("s_close", _render_as("</del>"))
    return md


def _clipped(text: str, limit: int) -> tuple[str, bool]:
    """The text up to ``limit`` characters, cut at a line break when one is near the end."""
    if len(text) <= limit:
        return text, False
    line_end = text.rfind("\n", 0, limit)
    return text[: line_end if line_end > limit // 2 else limit], True


def body_html(text: str, *, limit: int = BODY_LIMIT, cut_note: Markup = _ELLIPSIS) -> Markup:
    """``text`` (untrusted Markdown) as sanitized HTML; past ``limit`` characters the rest is left
    out and ``cut_note`` (trusted: the caller's own words) ends the HTML instead."""
    source, cut = _clipped(text, limit)
    html = _parser().render(source)
    if cut:
        html += f"<p><em>{escape(cut_note)}</em></p>\n"
    return Markup(sanitize_body_html(html))
