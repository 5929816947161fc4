"""Reading a unified diff as two texts: the old side (context and removed lines) and the new side
(context and added lines) of each hunk, each line knowing whether the commit changed it; and
a small scanner of Python-ish text (brackets, strings, comments) to take calls and statements
apart when they span lines or stop at the edge of a hunk.

Pure and tolerant: a hunk cut short, a missing header, unbalanced brackets or binary junk give
fewer findings, never an exception. Every scan stops after a bounded number of characters, so a
patch costs time in proportion to its size.
"""

from __future__ import annotations

import ast
import re
import warnings
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate

_HEADER = re.compile(r"^@@+ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@+ ?(.*)$")
SCAN_LIMIT = 8_000  # characters a call or statement may span
MAX_LINE = 4_000  # characters kept of one line: longer ones are data, not settings
# One token of Python-ish text; strings may be cut by the end of the text, as hunks are.
_TOKEN = re.compile(
    # A backslash may end the text (\\.? ), so no alternative ever backtracks over a long string.
    r'(?P<string>"""(?:[^"\\]|\\.?|"(?!""))*(?:"""|\Z)|\'\'\'(?:[^\'\\]|\\.?|\'(?!\'\'))*(?:\'\'\'|\Z)'
    r'|"(?:[^"\\\n]|\\.?)*(?:"|$)|\'(?:[^\'\\\n]|\\.?)*(?:\'|$))'
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<open>[(\[{])|(?P<close>[)\]}])|(?P<comma>,)|(?P<newline>\n)"
    r"|(?P<equals>(?<![=<>!:+\-*/%&|^@~])=(?!=))"
    r"|(?P<other>[^\"'#()\[\]{},=\n]+|.)",
    re.MULTILINE | re.DOTALL,
)
_QUOTES = re.compile(r'^(?:"""|\'\'\'|"|\')')


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a hunk as text, with which of its lines the commit changed."""

    lines: tuple[str, ...]
    changed: tuple[bool, ...]
    text: str = field(init=False)
    _starts: tuple[int, ...] = field(init=False)
    _counts: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", "\n".join(self.lines))
        starts = tuple(accumulate((len(line) + 1 for line in self.lines[:-1]), initial=0))
        object.__setattr__(self, "_starts", starts)
        object.__setattr__(self, "_counts", tuple(accumulate((int(flag) for flag in self.changed), initial=0)))

    @property
    def has_changes(self) -> bool:
        return bool(self._counts) and self._counts[-1] > 0

    def line_at(self, offset: int) -> int:
        """The index of the line holding character ``offset`` of ``text``."""
        return max(0, bisect_right(self._starts, offset) - 1)

    def offset_of(self, line: int) -> int:
        return self._starts[line]

    def touched(self, first: int, last: int) -> bool:
        """Whether the commit changed any of the lines ``first`` to ``last`` (inclusive)."""
        last = min(last, len(self.lines) - 1)
        return first <= last and self._counts[last + 1] - self._counts[first] > 0

    def span_touched(self, start: int, end: int) -> bool:
        """Whether the characters ``start`` to ``end`` of ``text`` lie on a changed line."""
        return self.touched(self.line_at(start), self.line_at(max(start, end - 1)))


@dataclass(frozen=True, slots=True)
class Hunk:
    context: str  # the function context git writes after the header: the last unindented line
    old: Side
    new: Side


def parse_hunks(patch: str) -> list[Hunk]:
    """The hunks of a GitHub-style patch (no ``diff --git``/``---``/``+++`` header). Lines are
    read by their first character, so a hunk cut short by a size cap still reads."""
    hunks: list[Hunk] = []
    context: str | None = None
    old: list[str] = []
    old_changed: list[bool] = []
    new: list[str] = []
    new_changed: list[bool] = []

    def close() -> None:
        if context is not None and (old or new):
            hunks.append(Hunk(context, Side(tuple(old), tuple(old_changed)), Side(tuple(new), tuple(new_changed))))

    for whole in patch.split("\n"):
        line = whole[:MAX_LINE]
        marker = line[:1]
        if marker == "@" and line.startswith("@@"):
            close()
            header = _HEADER.match(line)
            context = header.group(1) if header else ""
            old, old_changed, new, new_changed = [], [], [], []
        elif context is None or marker == "\\":  # before the first hunk; "\ No newline at end of file"
            continue
        elif marker == "+":
            new.append(line[1:])
            new_changed.append(True)
        elif marker == "-":
            old.append(line[1:])
            old_changed.append(True)
        else:  # context; an empty line is a blank context line whose space was stripped
            old.append(line[1:])
            old_changed.append(False)
            new.append(line[1:])
            new_changed.append(False)
    close()
    return hunks


@dataclass(frozen=True, slots=True)
class Call:
    """The bracketed arguments of a call, as written."""

    end: int  # offset just past the closing bracket (or where the scan stopped)
    complete: bool
    arguments: tuple[tuple[str | None, str], ...]  # (keyword or None, text), top level only
    strings: tuple[tuple[int, str], ...]  # (argument index, literal) of every string literal

    def positional(self, index: int) -> str | None:
        found = [text for keyword, text in self.arguments if keyword is None]
        return found[index] if index < len(found) else None

    def keyword(self, name: str) -> str | None:
        return next((text for keyword, text in self.arguments if keyword == name), None)


def scan_call(text: str, open_at: int, limit: int = SCAN_LIMIT) -> Call:
    """The arguments of the call whose opening bracket is at ``open_at``."""
    arguments: list[tuple[str | None, str]] = []
    strings: list[tuple[int, str]] = []
    depth = 0
    start = open_at + 1
    keyword: str | None = None
    end = min(len(text), open_at + limit)
    for token in _TOKEN.finditer(text, open_at, end):
        kind = token.lastgroup
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth == 0:
                _add_argument(arguments, keyword, text[start : token.start()])
                return Call(token.end(), True, tuple(arguments), tuple(strings))
        elif depth == 1 and kind == "comma":
            _add_argument(arguments, keyword, text[start : token.start()])
            start, keyword = token.end(), None
        elif depth == 1 and kind == "equals" and keyword is None:
            name = text[start : token.start()].strip()
            if name.isidentifier():
                keyword, start = name, token.end()
        elif kind == "string" and depth >= 1 and not text.startswith(".join", token.end()):
            strings.append((len(arguments), string_content(token.group())))
    _add_argument(arguments, keyword, text[start:end])
    return Call(end, False, tuple(arguments), tuple(strings))


def _add_argument(arguments: list[tuple[str | None, str]], keyword: str | None, text: str) -> None:
    cleaned = strip_comments(text).strip()
    if cleaned or keyword is not None:
        arguments.append((keyword, cleaned))


def statement_end(text: str, start: int, limit: int = SCAN_LIMIT) -> int:
    """Where the statement going on at ``start`` ends: the first newline outside brackets and
    not after a backslash."""
    depth = 0
    end = min(len(text), start + limit)
    for token in _TOKEN.finditer(text, start, end):
        kind = token.lastgroup
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth = max(0, depth - 1)
        elif kind == "newline" and depth == 0 and text[token.start() - 1 : token.start()] != "\\":
            return token.start()
    return end


def split_assignment(text: str) -> tuple[str, str | None]:
    """``annotation = value`` at the top level of ``text``: (annotation, value or None)."""
    depth = 0
    for token in _TOKEN.finditer(text):
        kind = token.lastgroup
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
        elif kind == "equals" and depth == 0:
            value = strip_comments(text[token.end() :]).replace("\\\n", "\n").strip()
            return text[: token.start()].strip(), value
    return strip_comments(text).strip(), None


def strip_comments(text: str) -> str:
    if "#" not in text:
        return text
    return "".join(token.group() for token in _TOKEN.finditer(text) if token.lastgroup != "comment")


def string_content(literal: str) -> str:
    """The characters between a string literal's quotes, as written (escapes and f-string
    braces kept); a literal cut short keeps what it has."""
    quote = _QUOTES.match(literal)
    if quote is None:
        return literal
    mark = quote.group()
    body = literal[len(mark) :]
    return body[: -len(mark)] if body.endswith(mark) and len(body) >= len(mark) else body


def string_value(text: str | None) -> str | None:
    """The value of ``text`` when it is one plain string literal (``"VLLM_FOO"``), else None."""
    if text is None or len(text) < 2 or text[0] not in "\"'" or text[-1] != text[0]:
        return None
    match = _TOKEN.match(text)
    if match is None or match.lastgroup != "string" or match.end() != len(text):
        return None
    return string_content(text)


def canonical(value: str | None) -> str:
    """A value reduced to what it means, to compare: quotes, spacing and ``1_000`` do not count,
    and an absent default is ``None``."""
    if value is None:
        return "None"
    text = " ".join(value.split()).rstrip(",").strip()
    if len(text) <= 1000 and "\0" not in text:
        # "\d" in a default is a SyntaxWarning (an error under -W error): not ours to report.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return repr(ast.literal_eval(text))
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
    return text
