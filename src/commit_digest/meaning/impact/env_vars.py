"""Environment variables a commit adds, removes or gives another default: entries of an env
table (vLLM's ``envs.py``), its ``NAME: type`` declarations, and ``os.getenv``-like reads in any
Python file whose names match the rules' env-name pattern."""

from __future__ import annotations

import re
from collections.abc import Iterator

from commit_digest.meaning.impact.diff import Side, scan_call, split_assignment
from commit_digest.meaning.impact.findings import ImpactKind, Seen

_ENV_KEY = re.compile(r"""^\s*(["'])([A-Z_][A-Z0-9_]*)\1\s*:""")
_ENV_DECLARATION = re.compile(r"^[ \t]+([A-Z_][A-Z0-9_]*)[ \t]*:(?!=)")
# A call whose first argument is a quoted name: os.getenv("X", ...), env_with_choices("X", ...).
_NAMED_CALL = re.compile(r"""(?<![\w.])([A-Za-z_][\w.]{0,120})\s*(\()\s*(["'])([A-Za-z_][A-Za-z0-9_]{0,200})\3""")
_SUBSCRIPT = re.compile(r"""\benviron\s*\[\s*(["'])([A-Za-z_][A-Za-z0-9_]{0,200})\1\s*\](?!\s*=[^=])""")
_READ = re.compile(r"""\b(?:getenv|environ\.get)\s*(\()\s*(["'])([A-Za-z_][A-Za-z0-9_]{0,200})\2""")
_UPPER = re.compile(r"^[A-Z_][A-Z0-9_]*$")


def env_table(side: Side, path: str) -> Iterator[Seen]:
    """Entries ``"NAME": lambda: ...os.getenv("NAME", default)...`` (the default is the second
    argument of the call naming the entry), ``NAME: type = default`` declarations, and
    getenv-like calls outside any entry (an entry whose key line is above the hunk)."""
    lines, text = side.lines, side.text
    keys = [(index, match.group(2)) for index, line in enumerate(lines) if (match := _ENV_KEY.match(line))]
    covered: set[int] = set()
    for number, (first, name) in enumerate(keys):
        last = keys[number + 1][0] - 1 if number + 1 < len(keys) else len(lines) - 1
        last = next((index - 1 for index in range(first + 1, last + 1) if _ends_entry(lines[index])), last)
        covered.update(range(first, last + 1))
        start, end = side.offset_of(first), side.offset_of(last) + len(lines[last])
        yield Seen(
            ImpactKind.ENV_VAR, (name,), name, _env_default(text, start, end, name), path, side.touched(first, last)
        )
    for index, line in enumerate(lines):
        declared = _ENV_DECLARATION.match(line)
        if declared and index not in covered:
            annotation, value = split_assignment(line[declared.end() :])
            if annotation and "(" not in annotation:
                name = declared.group(1)
                yield Seen(ImpactKind.ENV_VAR, (name,), name, value, path, side.changed[index], rank=1)
    for match in _NAMED_CALL.finditer(text):
        name = match.group(4)
        if "env" in match.group(1).lower() and _UPPER.match(name) and side.line_at(match.start()) not in covered:
            call = scan_call(text, match.start(2))
            value = call.positional(1) or call.keyword("default")
            yield Seen(ImpactKind.ENV_VAR, (name,), name, value, path, side.span_touched(match.start(), call.end))
    for match in _SUBSCRIPT.finditer(text):
        name = match.group(2)
        if _UPPER.match(name) and side.line_at(match.start()) not in covered:
            yield Seen(ImpactKind.ENV_VAR, (name,), name, None, path, side.span_touched(match.start(), match.end()))


def _ends_entry(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith("}") or (bool(line) and not line[0].isspace() and not line.startswith("#"))


def _env_default(text: str, start: int, end: int, name: str) -> str | None:
    for match in _NAMED_CALL.finditer(text, start, end):
        if match.group(4) == name:
            call = scan_call(text, match.start(2))
            return call.positional(1) or call.keyword("default")
    return None


def env_reads(side: Side, path: str, names: re.Pattern[str]) -> Iterator[Seen]:
    text = side.text
    for match in _READ.finditer(text):
        name = match.group(3)
        if names.search(name):
            call = scan_call(text, match.start(1))
            value = call.positional(1) or call.keyword("default")
            touched = side.span_touched(match.start(), call.end)
            yield Seen(ImpactKind.ENV_VAR, (name,), name, value, path, touched, rank=2)
    for match in _SUBSCRIPT.finditer(text):
        name = match.group(2)
        if names.search(name):
            touched = side.span_touched(match.start(), match.end())
            yield Seen(ImpactKind.ENV_VAR, (name,), name, None, path, touched, rank=2)
