"""Text for a terminal: what a server, a commit or a store says is shown, never obeyed.

Error texts, refusals and replies come from servers someone else runs. Printed raw, an escape
sequence in one recolours the terminal, clears the screen, renames the window, or (OSC 52)
rewrites the clipboard of terminals that allow it; a bidi control makes a line read reversed; a
two-megabyte message is one two-million-character line. So every such line is escaped (control,
bidi and line-separator characters as ``\\x1b``, ``\\u202e``) and cut to ``LINE_LIMIT`` characters.
"""

from __future__ import annotations

import re

LINE_LIMIT = 2_000
# C1 controls, DEL, the Arabic letter mark, bidi marks, embeddings, overrides and isolates, and
# the Unicode line and paragraph separators.
_NOT_TEXT = r"\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_ESCAPED = re.compile(rf"[\x00-\x1f{_NOT_TEXT}]")
_ESCAPED_BUT_LINES = re.compile(rf"[\x00-\x08\x0b-\x1f{_NOT_TEXT}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    character = match.group()
    code = ord(character)
    return _NAMED.get(character) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def one_line(text: str) -> str:
    """``text`` as one line with every control escaped (a newline too: it would start a forged line)."""
    return _ESCAPED.sub(_escaped, text)


def for_terminal(text: str, *, limit: int = LINE_LIMIT, keep_lines: bool = False) -> str:
    """``text`` safe to print: controls escaped (newlines and tabs kept when ``keep_lines``), each
    line cut to ``limit`` characters with the count of what was left out."""
    escaped = (_ESCAPED_BUT_LINES if keep_lines else _ESCAPED).sub(_escaped, text)
    return "\n".join(_cut(line, limit) for line in escaped.split("\n"))


def _cut(line: str, limit: int) -> str:
    if len(line) <= limit:
        return line
    return f"{line[:limit]}… ({len(line) - limit:,} more characters)"
