"""Reading built pages in tests: the article body, its visible text, its links and tables, the
event handlers its elements carry."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

_TAG = re.compile(r"<[^>]+>")
_PERMALINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.S)


class _Handlers(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [f"{tag} {name}" for name, _ in attrs if name.startswith("on")]


def event_handlers(page: str) -> list[str]:
    """Every element's event handler attributes ("img onerror") as a browser parses the page: a
    payload's "onmouseover=" inside an attribute's value is text, not an attribute."""
    parser = _Handlers()
    parser.feed(page)
    parser.close()
    return parser.found


def article(page: str) -> str:
    start = page.index("<article")
    return page[start : page.index("</article>", start)]


_INLINE_TAG = re.compile(r"</?(?:a|strong|em|code|span|mark|del|abbr)\b[^>]*>")


def visible_text(fragment: str) -> str:
    """The text a reader sees, spaces folded (inline tags add none, block tags separate)."""
    return " ".join(html.unescape(_TAG.sub(" ", _INLINE_TAG.sub("", fragment))).split())


def hrefs(fragment: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', fragment)


def headings(fragment: str) -> list[str]:
    found = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", fragment, re.S)
    return [visible_text(_PERMALINK.sub("", text)) for text in found]


def tables(fragment: str) -> list[list[list[str]]]:
    """Each table as rows of cell texts (header row first)."""
    found = []
    for table in re.findall(r"<table[^>]*>(.*?)</table>", fragment, re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
        found.append(
            [[visible_text(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)] for row in rows]
        )
    return found
