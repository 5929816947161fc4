"""Whitespace a browser never shows, taken out of the theme's frame around generated pages.

The theme's templates are indented for their authors: a commit page's frame (header, tabs,
navigation drawer, footer) carries about 4 KB of line breaks and indentation, a sixth of the
page, repeated on every page of the archive. A run of whitespace that holds a line break becomes
one line break: HTML renders any run of whitespace between words as one space, so the page reads
the same. The inside of ``<pre>``, ``<textarea>``, ``<script>`` and ``<style>`` is left exactly
as it is (there whitespace is content, or code), and so is every comment (a site owner's
override may carry one a tool looks for); the theme's JSON configuration is written compactly,
as the same document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

_RAW_TEXT = re.compile(r"(<(pre|textarea|script|style)\b.*?</\2\s*>)", re.S | re.I)
_BROKEN_RUN = re.compile(r"[ \t]*\n[ \t\n]*")
_JSON_SCRIPT = re.compile(r'(<script\b[^>]*\btype="application/json"[^>]*>)(.*?)(</script\s*>)', re.S | re.I)
# What a JSON document inside <script> must not hold as itself (Jinja's tojson escapes them too).
_UNSAFE_IN_SCRIPT = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
# Joins the frame's parts while they are compacted together: never in a page, never whitespace.
_PART_BREAK = "\x00"


def compact_html(html: str) -> str:
    """``html`` with each whitespace run that holds a line break made one line break, but inside
    raw-text elements (pre, textarea, script, style)."""
    pieces = _RAW_TEXT.split(html)
    # split() with two groups gives text, element, element name, text, …
    compacted = []
    for position in range(0, len(pieces), 3):
        compacted.append(_BROKEN_RUN.sub("\n", pieces[position]))
        if position + 1 < len(pieces):
            compacted.append(pieces[position + 1])
    return "".join(compacted)


def compact_json_scripts(html: str) -> str:
    """Each ``<script type="application/json">`` (the theme's configuration) written compactly:
    its strings as UTF-8 rather than \\u escapes, no spaces after separators. The same document
    to ``JSON.parse``; one that does not parse is left as it is."""

    def compacted(match: re.Match[str]) -> str:
        try:
            document = json.loads(match.group(2))
        except ValueError:
            return match.group(0)
        text = json.dumps(document, ensure_ascii=False, separators=(",", ":")).translate(_UNSAFE_IN_SCRIPT)
        return match.group(1) + text + match.group(3)

    return _JSON_SCRIPT.sub(compacted, html)


def compact_page(html: str) -> str:
    """Both: what a frame's text becomes (``compact_parts``), for a whole page."""
    return compact_json_scripts(compact_html(html))


def compact_parts(parts: Sequence[str]) -> tuple[str, ...]:
    """The parts of a frame compacted as the one text they make (a <script> may open in one part
    and close in the next), then cut where they were."""
    if any(_PART_BREAK in part for part in parts):
        return tuple(parts)  # cannot happen with a real theme: leave the frame as it is
    return tuple(compact_page(_PART_BREAK.join(parts)).split(_PART_BREAK))
