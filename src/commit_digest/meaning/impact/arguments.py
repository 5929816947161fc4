"""CLI flags and engine arguments a commit adds, removes or gives another default:
``add_argument("--flag", default=...)`` calls, and the ``name: type = default`` fields of the
classes the rules name (``EngineArgs``, config dataclasses)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from commit_digest.meaning.impact.diff import Hunk, Side, scan_call, split_assignment, statement_end, string_value
from commit_digest.meaning.impact.findings import UNKNOWN, ImpactKind, Seen

_ADD_ARGUMENT = re.compile(r"\badd_argument\s*\(")


def cli_flags(side: Side, path: str) -> Iterator[Seen]:
    text = side.text
    for match in _ADD_ARGUMENT.finditer(text):
        call = scan_call(text, match.end() - 1)
        options = [
            value
            for keyword, argument in call.arguments
            if keyword is None and (value := string_value(argument)) and value.startswith("-")
        ]
        if not options:
            continue  # a positional argument, or the names lie above the hunk
        name = next((option for option in options if option.startswith("--")), options[0])
        touched = side.span_touched(match.start(), call.end)
        default = call.keyword("default")
        # add_argument("--x", **kwargs["x"]): the default lives elsewhere, it is not None.
        hidden = default is None and any(
            keyword is None and argument.startswith("**") for keyword, argument in call.arguments
        )
        same = UNKNOWN if hidden else None
        yield Seen(ImpactKind.CLI_FLAG, (name,), name, default, path, touched, same=same)


_CLASS = re.compile(r"^class\s+([A-Za-z_]\w*)")
_FIELD = re.compile(r"^(?: {4}|\t)([a-z][a-z0-9_]*)[ \t]*:(?!=)")
_TYPE_PART = r"""(?:[A-Za-z_][\w.]*(?:\[.*\])?|"[^"\n]*"|'[^'\n]*')"""
_ANNOTATION = re.compile(rf"^{_TYPE_PART}(?:\s*\|\s*{_TYPE_PART})*$", re.DOTALL)
_TRIPLE = re.compile(r'"""|\'\'\'')


def class_fields(hunk: Hunk, side: Side, path: str, classes: tuple[re.Pattern[str], ...]) -> Iterator[Seen]:
    """Class-body fields ``name: type = default`` of the classes ``classes`` name. The class of
    the hunk's first lines is the one git names in the hunk header; an unindented line in the
    hunk starts another class or ends it."""
    lines = side.lines
    context = _CLASS.match(hunk.context)
    current = context.group(1) if context else None
    wanted = current is not None and any(regex.search(current) for regex in classes)
    in_docstring = _starts_in_docstring(lines)
    index = 0
    while index < len(lines):
        line = lines[index]
        if line and not line[0].isspace() and line[0] != "#":
            found = _CLASS.match(line)
            current = found.group(1) if found else None
            wanted = current is not None and any(regex.search(current) for regex in classes)
            in_docstring = False
            index += 1
            continue
        field = None if in_docstring or not wanted else _FIELD.match(line)
        if field is None:
            if len(_TRIPLE.findall(line)) % 2:
                in_docstring = not in_docstring
            index += 1
            continue
        start = side.offset_of(index) + field.end()
        end = statement_end(side.text, start)
        last = max(index, side.line_at(end - 1))
        annotation, value = split_assignment(side.text[start:end])
        class_variable = annotation.split("[", 1)[0].endswith("ClassVar")
        if len(annotation) <= 300 and not class_variable and _ANNOTATION.match(annotation):
            name = field.group(1)
            touched = side.touched(index, last)
            yield Seen(ImpactKind.ENGINE_ARG, (current or "", name), name, value, path, touched, scope=current or "")
        index = last + 1


def _starts_in_docstring(lines: tuple[str, ...]) -> bool:
    """Whether a hunk starts inside a docstring: its first line with an odd number of triple
    quotes has text before them (it closes one)."""
    for line in lines:
        if len(_TRIPLE.findall(line)) % 2:
            return not line.lstrip().startswith(('"""', "'''"))
    return False
