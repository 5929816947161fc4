"""Whitespace a browser never shows, taken out of the theme's frame around generated pages.

The theme's templates are indented for their authors: a commit page's frame (header, tabs,
navigation drawer, footer) carries about 4 KB of line breaks and indentation, a sixth of the
page, repeated on every page of the archive. A run of whitespace that holds a line break becomes
one line break: HTML renders any run of whitespace between words as one space, so the page reads
the same. The inside of ``<pre>``, ``<textarea>``, ``<script>`` and ``<style>`` is left exactly
as it is (there whitespace is content, or code), and so is every comment (a site owner's
override may carry one a tool looks for).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_RAW_TEXT = re.compile(r"(<(pre|textarea|script|style)\b.*?</\2\s*>)", re.S | re.I)
_BROKEN_RUN = re.compile(r"[ \t]*\n[ \t\n]*")
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


def compact_parts(parts: Sequence[str]) -> tuple[str, ...]:
    """The parts of a frame compacted as the one text they make (a <script> may open in one part
    and close in the next), then cut where they were."""
    if any(_PART_BREAK in part for part in parts):
        return tuple(parts)  # cannot happen with a real theme: leave the frame as it is
    return tuple(compact_html(_PART_BREAK.join(parts)).split(_PART_BREAK))
