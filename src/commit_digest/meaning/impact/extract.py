"""What a commit changes for someone who runs the software: environment variables, CLI flags,
engine-argument fields, dependencies and new deprecation warnings, read from its patches alone.

Each finder lists what it sees on the old and on the new side of every hunk (a name, its default
or version as written, and whether the commit changed the lines it stands on); comparing the two
sides gives added, removed and changed names, so context the commit did not touch reports
nothing. Pure, deterministic and bounded: the site runs it over every commit at build time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from enum import StrEnum

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from pydantic import BaseModel, ConfigDict

from commit_digest.meaning.impact.diff import (
    Hunk,
    Side,
    canonical,
    parse_hunks,
    scan_call,
    split_assignment,
    statement_end,
    string_value,
)
from commit_digest.meaning.impact.rules import FileRoles, ImpactRules
from commit_digest.models import Commit, FileChange, PatchState

NAME_CAP = 200
VALUE_CAP = 200
DETAIL_CAP = 300


class ImpactKind(StrEnum):
    ENV_VAR = "env-var"
    CLI_FLAG = "cli-flag"
    ENGINE_ARG = "engine-arg"
    DEPENDENCY = "dependency"
    DEPRECATION = "deprecation"


class ChangeKind(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    DEFAULT_CHANGED = "default-changed"
    RENAMED = "renamed"
    VERSION_CHANGED = "version-changed"


class OperatorChange(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ImpactKind
    change: ChangeKind
    name: str  # the variable, "--flag", field, package or image; the new name when renamed
    previous_name: str | None = None  # renamed only
    old: str | None = None  # default, version spec or tag as written
    new: str | None = None
    path: str
    # The deprecation message; "EngineArgs --max-model-len" (class and flag) for an engine
    # argument; the marker, "ARG", "FROM" or "pip install" for a dependency.
    detail: str = ""
    platforms: tuple[str, ...] = ()


class OperatorImpact(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    changes: tuple[OperatorChange, ...] = ()
    partial: bool = False  # a file the rules look at had a truncated, unavailable or uncollected patch


_KIND_ORDER = {kind: index for index, kind in enumerate(ImpactKind)}
_UNKNOWN = "\0unknown"  # the compared value of a default the diff does not show


@dataclass(frozen=True, slots=True)
class _Seen:
    """One name on one side of one file's diff."""

    kind: ImpactKind
    key: tuple[str, ...]  # what the two sides are matched on
    name: str  # as written
    value: str | None  # default or version as written
    path: str
    touched: bool  # the commit changed a line it stands on
    rank: int = 0  # env vars: 0 table entry, 1 TYPE_CHECKING declaration, 2 read elsewhere
    scope: str = ""  # the class of an engine-argument field
    detail: str = ""
    same: str | None = None  # the value as compared (None: worked out from ``value``)

    @property
    def compared(self) -> str:
        return self.same if self.same is not None else canonical(self.value)


@dataclass(frozen=True, slots=True)
class _Change:
    kind: ImpactKind
    change: ChangeKind
    name: str
    path: str
    paths: frozenset[str]
    old: str | None = None
    new: str | None = None
    previous_name: str | None = None
    scope: str = ""
    detail: str = ""
    same: str = ""  # the compared value of an added or removed name (renames pair on it)


def operator_impact(commit: Commit, rules: ImpactRules) -> OperatorImpact:
    """Operator-facing changes of ``commit`` in order of (path, kind, name)."""
    if not rules.enabled:
        return OperatorImpact()
    seen: tuple[list[_Seen], list[_Seen]] = ([], [])
    deprecations: list[_Change] = []
    platforms: dict[str, tuple[str, ...]] = {}
    partial = False
    for file in commit.files:
        roles = rules.roles(file.path)
        if not roles.looked_at and file.previous_path:
            roles = rules.roles(file.previous_path)
        if not roles.looked_at:
            continue
        partial = partial or _incomplete(file)
        if file.patch:
            platforms[file.path] = roles.platforms
            _read_file(file.path, file.patch, roles, rules, seen, deprecations)
    changes = [*_renamed(_compared(*seen)), *deprecations]
    made = {_operator_change(change, platforms, rules.platform_order) for change in changes}
    return OperatorImpact(changes=tuple(sorted(made, key=_sort_key)), partial=partial)


def _incomplete(file: FileChange) -> bool:
    if file.patch_state is PatchState.UNAVAILABLE:
        # A pure rename or mode change has no hunks and nothing to read.
        return file.additions + file.deletions > 0 or file.patch is not None
    return file.patch_state in (PatchState.TRUNCATED, PatchState.NOT_COLLECTED)


def _read_file(
    path: str,
    patch: str,
    roles: FileRoles,
    rules: ImpactRules,
    seen: tuple[list[_Seen], list[_Seen]],
    deprecations: list[_Change],
) -> None:
    reads = roles.python and not roles.env_table and ("getenv" in patch or "environ" in patch)
    flags = roles.python and "add_argument" in patch
    warns = roles.python and rules.mentions_deprecation(patch)
    if not (roles.env_table or roles.classes or roles.dependency or reads or flags or warns):
        return
    hunks = parse_hunks(patch)
    for hunk in hunks:
        for side, found in ((hunk.old, seen[0]), (hunk.new, seen[1])):
            if roles.env_table:
                found.extend(_env_table(side, path))
            if reads:
                found.extend(_env_reads(side, path, rules.env_name))
            if flags:
                found.extend(_flags(side, path))
            if roles.classes:
                found.extend(_fields(hunk, side, path, roles.classes))
            if roles.dependency:
                found.extend(_dependencies(side, path))
    if warns:
        deprecations.extend(_deprecations(hunks, path, rules))


# -- environment variables ---------------------------------------------------------------------

_ENV_KEY = re.compile(r"""^\s*(["'])([A-Z_][A-Z0-9_]*)\1\s*:""")
_ENV_DECLARATION = re.compile(r"^[ \t]+([A-Z_][A-Z0-9_]*)[ \t]*:(?!=)")
# A call whose first argument is a quoted name: os.getenv("X", ...), env_with_choices("X", ...).
_NAMED_CALL = re.compile(r"""(?<![\w.])([A-Za-z_][\w.]{0,120})\s*(\()\s*(["'])([A-Za-z_][A-Za-z0-9_]{0,200})\3""")
_SUBSCRIPT = re.compile(r"""\benviron\s*\[\s*(["'])([A-Za-z_][A-Za-z0-9_]{0,200})\1\s*\](?!\s*=[^=])""")
_READ = re.compile(r"""\b(?:getenv|environ\.get)\s*(\()\s*(["'])([A-Za-z_][A-Za-z0-9_]{0,200})\2""")
_UPPER = re.compile(r"^[A-Z_][A-Z0-9_]*$")


def _env_table(side: Side, path: str) -> Iterator[_Seen]:
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
        yield _Seen(
            ImpactKind.ENV_VAR, (name,), name, _env_default(text, start, end, name), path, side.touched(first, last)
        )
    for index, line in enumerate(lines):
        declared = _ENV_DECLARATION.match(line)
        if declared and index not in covered:
            annotation, value = split_assignment(line[declared.end() :])
            if annotation and "(" not in annotation:
                name = declared.group(1)
                yield _Seen(ImpactKind.ENV_VAR, (name,), name, value, path, side.changed[index], rank=1)
    for match in _NAMED_CALL.finditer(text):
        name = match.group(4)
        if "env" in match.group(1).lower() and _UPPER.match(name) and side.line_at(match.start()) not in covered:
            call = scan_call(text, match.start(2))
            value = call.positional(1) or call.keyword("default")
            yield _Seen(ImpactKind.ENV_VAR, (name,), name, value, path, side.span_touched(match.start(), call.end))
    for match in _SUBSCRIPT.finditer(text):
        name = match.group(2)
        if _UPPER.match(name) and side.line_at(match.start()) not in covered:
            yield _Seen(ImpactKind.ENV_VAR, (name,), name, None, path, side.span_touched(match.start(), match.end()))


def _ends_entry(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith("}") or (bool(line) and not line[0].isspace() and not line.startswith("#"))


def _env_default(text: str, start: int, end: int, name: str) -> str | None:
    for match in _NAMED_CALL.finditer(text, start, end):
        if match.group(4) == name:
            call = scan_call(text, match.start(2))
            return call.positional(1) or call.keyword("default")
    return None


def _env_reads(side: Side, path: str, names: re.Pattern[str]) -> Iterator[_Seen]:
    text = side.text
    for match in _READ.finditer(text):
        name = match.group(3)
        if names.search(name):
            call = scan_call(text, match.start(1))
            value = call.positional(1) or call.keyword("default")
            touched = side.span_touched(match.start(), call.end)
            yield _Seen(ImpactKind.ENV_VAR, (name,), name, value, path, touched, rank=2)
    for match in _SUBSCRIPT.finditer(text):
        name = match.group(2)
        if names.search(name):
            touched = side.span_touched(match.start(), match.end())
            yield _Seen(ImpactKind.ENV_VAR, (name,), name, None, path, touched, rank=2)


# -- CLI flags and engine arguments ------------------------------------------------------------

_ADD_ARGUMENT = re.compile(r"\badd_argument\s*\(")


def _flags(side: Side, path: str) -> Iterator[_Seen]:
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
        same = _UNKNOWN if hidden else None
        yield _Seen(ImpactKind.CLI_FLAG, (name,), name, default, path, touched, same=same)


_CLASS = re.compile(r"^class\s+([A-Za-z_]\w*)")
_FIELD = re.compile(r"^(?: {4}|\t)([a-z][a-z0-9_]*)[ \t]*:(?!=)")
_TYPE_PART = r"""(?:[A-Za-z_][\w.]*(?:\[.*\])?|"[^"\n]*"|'[^'\n]*')"""
_ANNOTATION = re.compile(rf"^{_TYPE_PART}(?:\s*\|\s*{_TYPE_PART})*$", re.DOTALL)
_TRIPLE = re.compile(r'"""|\'\'\'')


def _fields(hunk: Hunk, side: Side, path: str, classes: tuple[re.Pattern[str], ...]) -> Iterator[_Seen]:
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
            yield _Seen(ImpactKind.ENGINE_ARG, (current or "", name), name, value, path, touched, scope=current or "")
        index = last + 1


def _starts_in_docstring(lines: tuple[str, ...]) -> bool:
    """Whether a hunk starts inside a docstring: its first line with an odd number of triple
    quotes has text before them (it closes one)."""
    for line in lines:
        if len(_TRIPLE.findall(line)) % 2:
            return not line.lstrip().startswith(('"""', "'''"))
    return False


# -- dependencies ------------------------------------------------------------------------------

_QUOTED_REQUIREMENT = re.compile(
    r"""(["'])([A-Za-z0-9][A-Za-z0-9._-]{0,100}(?:\[[^\]"'\n]{0,200}\])?\s*(?:===|==|~=|!=|<=|>=|<|>)[^"'\n]{0,200})\1"""
)
_NAME_AND_EXTRAS = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\s*(?:\[[^\]]*\])?")
_ARG = re.compile(r"^\s*ARG\s+([A-Za-z_]\w*)\s*=\s*(\S.*?)\s*$", re.IGNORECASE)
_VERSION_ARG = re.compile(r"VERSION|_REF$|_TAG$|_BRANCH$|_COMMIT$|_IMAGE$", re.IGNORECASE)
_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)", re.IGNORECASE)
_PIP_INSTALL = re.compile(r"\bpip3?\s+install\b")
_SHELL_TOKEN = re.compile(r""""[^"]*"|'[^']*'|[^\s"']+""")
_SHELL_END = frozenset({"&&", "||", ";", "|", ")"})
_PIP_VALUE_OPTIONS = frozenset(
    {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links"}
    | {"-t", "--target", "--prefix", "--python", "-e", "--editable", "-C", "--config-settings", "--index-strategy"}
)


def _dependencies(side: Side, path: str) -> Iterator[_Seen]:
    base = path.rsplit("/", 1)[-1]
    if base.endswith((".txt", ".in")):
        for index, line in enumerate(side.lines):
            found = _requirement(line.split(" #", 1)[0].strip().removesuffix("\\").strip(), path, "")
            if found is not None:
                yield replace(found, touched=side.changed[index])
    elif base.endswith((".toml", ".py", ".cfg")):
        for index, line in enumerate(side.lines):
            for match in _QUOTED_REQUIREMENT.finditer(line):
                found = _requirement(match.group(2), path, "")
                if found is not None and found.value:
                    yield replace(found, touched=side.changed[index])
    else:
        yield from _dockerfile(side, path)


def _requirement(text: str, path: str, detail: str) -> _Seen | None:
    """``torch==2.6.0; platform_machine == "x86_64"`` as a dependency: the name normalised to match,
    the version spec as written; the marker keeps two lines of one package apart."""
    if not text or not text[0].isalnum():
        return None  # -r, --extra-index-url, a comment
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    head = _NAME_AND_EXTRAS.match(text)
    spec = text[head.end() if head else 0 :].split(";", 1)[0].strip() or None
    marker = str(requirement.marker) if requirement.marker else ""
    same = requirement.url or ",".join(sorted(str(item) for item in requirement.specifier))
    key = ("requirement", canonicalize_name(requirement.name), marker)
    return _Seen(ImpactKind.DEPENDENCY, key, requirement.name, spec, path, False, detail=detail or marker, same=same)


def _dockerfile(side: Side, path: str) -> Iterator[_Seen]:
    """``ARG X_VERSION=1``, ``FROM image:tag`` and ``pip install "pkg==1"``, per logical line
    (a line ending in a backslash goes on)."""
    for first, last, line in _logical_lines(side.lines):
        touched = side.touched(first, last)
        argument = _ARG.match(line)
        if argument and _VERSION_ARG.search(argument.group(1)):
            name, value = argument.group(1), argument.group(2)
            same = value.strip("\"'")
            yield _Seen(ImpactKind.DEPENDENCY, ("arg", name), name, value, path, touched, detail="ARG", same=same)
        image = _FROM.match(line)
        if image:
            reference = image.group(1)
            at = reference.find("@")
            colon = reference.rfind(":")
            cut = at if at > 0 else colon if colon > reference.rfind("/") else -1
            if cut > 0 and not reference.startswith("$"):
                name, tag = reference[:cut], reference[cut + 1 :]
                key = ("image", name.lower())
                yield _Seen(ImpactKind.DEPENDENCY, key, name, tag, path, touched, detail="FROM", same=tag)
        for install in _PIP_INSTALL.finditer(line):
            for token in _pip_packages(line[install.end() :]):
                found = _requirement(token, path, "pip install")
                if found is not None and found.value:
                    yield replace(found, touched=touched, key=("pip", *found.key[1:]))


def _logical_lines(lines: tuple[str, ...]) -> Iterator[tuple[int, int, str]]:
    first, parts = 0, []
    for index, line in enumerate(lines):
        stripped = line.rstrip()
        if stripped.endswith("\\"):
            parts.append(stripped[:-1])
            continue
        parts.append(line)
        yield first, index, " ".join(parts)
        first, parts = index + 1, []
    if parts:
        yield first, len(lines) - 1, " ".join(parts)


def _pip_packages(arguments: str) -> Iterator[str]:
    skip = False
    for match in _SHELL_TOKEN.finditer(arguments):
        token = match.group()
        if token in _SHELL_END or token.startswith(("&&", "||", ";")):
            return
        if skip:
            skip = False
        elif token.startswith("-"):
            skip = token in _PIP_VALUE_OPTIONS
        else:
            yield token.strip("\"'")


# -- deprecations ------------------------------------------------------------------------------

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


def _deprecations(hunks: list[Hunk], path: str, rules: ImpactRules) -> Iterator[_Change]:
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
            yield _Change(
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


# -- comparing the sides -----------------------------------------------------------------------


def _compared(old: list[_Seen], new: list[_Seen]) -> Iterator[_Change]:
    """Names the commit touched, matched across the sides. Env vars, flags and fields are matched
    over the commit (one moved from a file to another is not new), dependencies per file. Only
    files where the commit touched a name count for it: elsewhere it was merely in context."""
    groups: dict[tuple[object, ...], tuple[list[_Seen], list[_Seen]]] = {}
    for side, found in enumerate((old, new)):
        for seen in found:
            group = (seen.kind, seen.path, *seen.key) if seen.kind is ImpactKind.DEPENDENCY else (seen.kind, *seen.key)
            groups.setdefault(group, ([], []))[side].append(seen)
    for before, after in groups.values():
        paths = frozenset(seen.path for seen in (*before, *after) if seen.touched)
        if paths:
            yield from _group_changes(
                [seen for seen in before if seen.path in paths], [seen for seen in after if seen.path in paths], paths
            )


def _group_changes(before: list[_Seen], after: list[_Seen], paths: frozenset[str]) -> Iterator[_Change]:
    if not before or not after:
        best = _best(after or before)
        change = ChangeKind.ADDED if after else ChangeKind.REMOVED
        value = {"new" if after else "old": best.value}
        yield _Change(
            best.kind,
            change,
            best.name,
            best.path,
            paths,
            scope=best.scope,
            detail=best.detail,
            same=best.compared,
            **value,
        )
        return
    before = _ranked(before)
    after = _ranked(after)
    old_values = {seen.compared for seen in before} - {_UNKNOWN}
    new_values = {seen.compared for seen in after} - {_UNKNOWN}
    if not old_values or not new_values:
        return  # a default the diff does not show cannot be said to change
    gone = _unique(before, new_values)
    came = _unique(after, old_values)
    kind = after[0].kind
    pairs = list(zip(gone, came, strict=False))
    for was, now in pairs if kind is ImpactKind.DEPENDENCY else pairs[:1]:
        change = ChangeKind.VERSION_CHANGED if kind is ImpactKind.DEPENDENCY else ChangeKind.DEFAULT_CHANGED
        yield _Change(
            kind, change, now.name, now.path, paths, old=was.value, new=now.value, scope=now.scope, detail=now.detail
        )


def _ranked(found: list[_Seen]) -> list[_Seen]:
    """The entries of the most authoritative rank, those the commit touched first."""
    rank = min(seen.rank for seen in found)
    return sorted((seen for seen in found if seen.rank == rank), key=lambda seen: not seen.touched)


def _best(found: list[_Seen]) -> _Seen:
    return _ranked(found)[0]


def _unique(found: list[_Seen], others: set[str]) -> list[_Seen]:
    """Entries whose value the other side lacks, one per value, in order."""
    kept: dict[str, _Seen] = {}
    for seen in found:
        if seen.compared not in others:
            kept.setdefault(seen.compared, seen)
    return list(kept.values())


def _renamed(changes: Iterable[_Change]) -> list[_Change]:
    """In one file (and class), exactly one name removed and one added with the same default:
    one rename. Dependencies are not renamed."""
    kept = list(changes)
    slots: dict[tuple[object, ...], tuple[list[int], list[int]]] = {}
    for index, change in enumerate(kept):
        if change.kind is not ImpactKind.DEPENDENCY and change.change in (ChangeKind.ADDED, ChangeKind.REMOVED):
            side = 0 if change.change is ChangeKind.REMOVED else 1
            slots.setdefault((change.kind, change.path, change.scope), ([], []))[side].append(index)
    dropped: set[int] = set()
    for removed, added in slots.values():
        if len(removed) == 1 and len(added) == 1 and kept[removed[0]].same == kept[added[0]].same != _UNKNOWN:
            was, now = kept[removed[0]], kept[added[0]]
            kept[added[0]] = replace(
                now, change=ChangeKind.RENAMED, previous_name=was.name, old=was.old, paths=was.paths | now.paths
            )
            dropped.add(removed[0])
    return [change for index, change in enumerate(kept) if index not in dropped]


def _operator_change(change: _Change, platforms: dict[str, tuple[str, ...]], order: dict[str, int]) -> OperatorChange:
    found = {platform for path in change.paths for platform in platforms.get(path, ())}
    detail = change.detail
    if change.kind is ImpactKind.ENGINE_ARG:
        detail = f"{change.scope} --{change.name.replace('_', '-')}".strip()
    return OperatorChange(
        kind=change.kind,
        change=change.change,
        name=_capped(change.name, NAME_CAP) or "?",
        previous_name=_capped(change.previous_name, NAME_CAP),
        old=_capped(_one_line(change.old), VALUE_CAP),
        new=_capped(_one_line(change.new), VALUE_CAP),
        path=change.path,
        detail=_capped(detail, DETAIL_CAP) or "",
        platforms=tuple(sorted(found, key=lambda platform: order.get(platform, len(order)))),
    )


def _one_line(value: str | None) -> str | None:
    """A default written over several lines, on one (spacing inside it does not matter)."""
    return " ".join(value.split()) if value is not None and "\n" in value else value


def _capped(text: str | None, cap: int) -> str | None:
    """Plain text, at most ``cap`` characters, valid UTF-8 (escaping is the page's job)."""
    if text is None:
        return None
    text = text.encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= cap else text[: cap - 1] + "…"


def _sort_key(change: OperatorChange) -> tuple[object, ...]:
    return (
        change.path,
        _KIND_ORDER[change.kind],
        change.name,
        change.change.value,
        change.previous_name or "",
        change.old or "",
        change.new or "",
        change.detail,
    )
