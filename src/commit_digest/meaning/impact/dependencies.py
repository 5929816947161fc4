"""Dependencies a commit adds, removes or moves to another version: requirement files,
quoted requirements in ``pyproject.toml``, ``setup.py`` and ``setup.cfg``, and a Dockerfile's
version ``ARG``s, ``FROM`` images and ``pip install`` lines. Matched per file (the same package
in two requirement files is two dependencies), by canonical name and marker."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from commit_digest.meaning.impact.diff import Side
from commit_digest.meaning.impact.findings import ImpactKind, Seen

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


def dependencies(side: Side, path: str) -> Iterator[Seen]:
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


def _requirement(text: str, path: str, detail: str) -> Seen | None:
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
    return Seen(ImpactKind.DEPENDENCY, key, requirement.name, spec, path, False, detail=detail or marker, same=same)


def _dockerfile(side: Side, path: str) -> Iterator[Seen]:
    """``ARG X_VERSION=1``, ``FROM image:tag`` and ``pip install "pkg==1"``, per logical line
    (a line ending in a backslash goes on)."""
    for first, last, line in _logical_lines(side.lines):
        touched = side.touched(first, last)
        argument = _ARG.match(line)
        if argument and _VERSION_ARG.search(argument.group(1)):
            name, value = argument.group(1), argument.group(2)
            same = value.strip("\"'")
            yield Seen(ImpactKind.DEPENDENCY, ("arg", name), name, value, path, touched, detail="ARG", same=same)
        image = _FROM.match(line)
        if image:
            reference = image.group(1)
            at = reference.find("@")
            colon = reference.rfind(":")
            cut = at if at > 0 else colon if colon > reference.rfind("/") else -1
            if cut > 0 and not reference.startswith("$"):
                name, tag = reference[:cut], reference[cut + 1 :]
                key = ("image", name.lower())
                yield Seen(ImpactKind.DEPENDENCY, key, name, tag, path, touched, detail="FROM", same=tag)
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
