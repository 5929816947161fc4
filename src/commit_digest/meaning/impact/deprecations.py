"""New deprecation warnings: warning calls and deprecation decorators a commit adds whose text
matches the rules' deprecation pattern, each named after what it deprecates. Unlike the other
finders these compare nothing across the sides: only the new side's added lines count."""

from __future__ import annotations

import re
from collections.abc import Iterator

from commit_digest.meaning.impact.diff import Hunk, Side, scan_call
from commit_digest.meaning.impact.findings import Change, ChangeKind, ImpactKind
from commit_digest.meaning.impact.rules import ImpactRules

_CALLEE = re.compile(r"(?<![\w.])([A-Za-z_][\w.]{0,120})\s*\(")
# warnings.warn, warn_explicit, logger.warning(_once), print_warning_once, deprecated(...),
# deprecate_kwargs; not filterwarnings or catch_warnings, nor is_deprecated(...).
_WARNING_CALL = re.compile(r"^(?:print_)?warn(?:ing)?(?:_once|_explicit)?$|^_?(?:warn_)?deprecat", re.IGNORECASE)
_LOGGER_CALL = re.compile(r"log\w*\.(?:info|error|critical)(?:_once)?$", re.IGNORECASE)
_DECORATOR = re.compile(r"^[ \t]*@[ \t]*([A-Za-z_][\w.]{0,120})[ \t]*(\()?", re.MULTILINE)
_DEFINITION = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)", re.MULTILINE)
_SUBJECTS = (
    re.compile(r"`([^`\n]{1,80})`"),
    re.compile(r"(?<![\w-])(--[A-Za-z0-9][\w-]{0,80})"),
    re.compile(r"\b([A-Z][A-Z0-9]*_[A-Z0-9_]{1,80})\b"),
    re.compile(r"""'([\w.:/=-]{1,80})'|"([\w.:/=-]{1,80})\""""),
    re.compile(r"([\w.-]{1,80}(?:\(\))?)\s+(?:is|are|has been|have been|was|were|will be)\s+(?:now\s+)?deprecat", re.I),
)
# Words before "is deprecated" that say nothing about what is ("This is deprecated").
_VAGUE = re.compile(
    r"this|it|that|which|usage|option|argument|feature|parameter|flag|field|function|method|class|api|mode"
    r"|behaviou?r|value|setting|support",
    re.IGNORECASE,
)


def added_deprecations(hunks: list[Hunk], path: str, rules: ImpactRules) -> Iterator[Change]:
    """Warning calls and decorators on the new side that touch an added line and whose text
    matches the rules' deprecation pattern; one whose text the old side already had (moved,
    re-indented) is not new."""
    before: str | None = None
    for hunk in hunks:
        side = hunk.new
        if not side.has_changes or not rules.mentions_deprecation(side.text):
            continue
        for start, callee, call_end, message, decorated in _warnings(side):
            if not side.span_touched(start, call_end) or rules.deprecation.search(side.text, start, call_end) is None:
                continue
            if before is None:
                before = " ".join("\n".join(other.old.text for other in hunks).split())
            if " ".join(side.text[start:call_end].split()) in before:
                continue
            name = _subject(message) or decorated or _enclosing(side.text, start, hunk.context) or callee
            yield Change(
                ImpactKind.DEPRECATION, ChangeKind.ADDED, name, path, frozenset((path,)), detail=message or callee
            )


def _warnings(side: Side) -> Iterator[tuple[int, str, int, str, str | None]]:
    """(start, callee, end, message, decorated name) of each warning call and decorator."""
    text = side.text
    for match in _CALLEE.finditer(text):
        callee = match.group(1)
        last = callee.rsplit(".", 1)[-1]
        if not _WARNING_CALL.search(last) and not _LOGGER_CALL.search(callee):
            continue
        if _after_at(text, match.start()):
            continue  # a decorator: below
        call = scan_call(text, match.end() - 1)
        yield match.start(), callee, call.end, _message(call.strings), None
    for match in _DECORATOR.finditer(text):
        if match.group(2):
            call = scan_call(text, match.end() - 1)
            end, message = call.end, _message(call.strings)
        else:
            line_end = text.find("\n", match.end())
            end, message = (len(text) if line_end < 0 else line_end), ""
        definition = _DEFINITION.search(text, end, end + 2_000)
        yield match.start(), "@" + match.group(1), end, message, definition.group(1) if definition else None


def _message(strings: tuple[tuple[int, str], ...]) -> str:
    """The string literals of a call: joined as Python joins adjacent literals, arguments apart."""
    parts: dict[int, str] = {}
    for argument, literal in strings:
        parts[argument] = parts.get(argument, "") + literal
    return " ".join(" ".join(parts.values()).split())


def _subject(message: str) -> str | None:
    """What a deprecation message is about: a `name`, a --flag, an ENV_NAME, a 'quoted' name,
    or the word before "is deprecated" (unless it is a word like "this")."""
    for pattern in _SUBJECTS:
        for found in pattern.finditer(message):
            subject = next(group for group in found.groups() if group).strip()
            if not _VAGUE.fullmatch(subject):
                return subject
    return None


def _after_at(text: str, start: int) -> bool:
    index = start - 1
    while index >= 0 and text[index] in " \t":
        index -= 1
    return index >= 0 and text[index] == "@"


def _enclosing(text: str, start: int, context: str) -> str | None:
    names = _DEFINITION.findall(text, 0, start)
    if names:
        return names[-1]
    found = _DEFINITION.match(context)
    return found.group(1) if found else None
