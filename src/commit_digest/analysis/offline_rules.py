"""The offline analyzer's judgements, as pure functions of a commit's facts.

Each returns its answer with the rule that gave it, so the analysis can say why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import pathspec

from commit_digest.models import ChangeType, Commit, FileStatus, Importance
from commit_digest.taxonomy import title_tags

_DOC_PATHS = pathspec.GitIgnoreSpec.from_lines(["docs/", "*.md", "*.rst", "examples/", "mkdocs.yaml"])
_TEST_PATHS = pathspec.GitIgnoreSpec.from_lines(["tests/", "test/", "test_*.py", "*_test.py", "conftest.py"])
_CI_PATHS = pathspec.GitIgnoreSpec.from_lines(
    [
        ".buildkite/",
        ".github/",
        "docker/",
        "Dockerfile*",
        "tools/",
        ".pre-commit-config.yaml",
        "cmake/",
        "CMakeLists.txt",
        "setup.py",
        "pyproject.toml",
    ]
)
_DEPENDENCY_PATHS = pathspec.GitIgnoreSpec.from_lines(["requirements/", "requirements*.txt", "uv.lock"])
_CORE_PATHS = pathspec.GitIgnoreSpec.from_lines(
    [
        "vllm/v1/core/",
        "vllm/v1/engine/",
        "vllm/engine/",
        "vllm/v1/worker/",
        "vllm/config/",
        "vllm/v1/attention/",
        "vllm/attention/",
        "vllm/distributed/",
        "vllm/v1/executor/",
        "vllm/forward_context.py",
        "vllm/envs.py",
    ]
)
_NEW_MODEL_FILE = pathspec.GitIgnoreSpec.from_lines(["vllm/model_executor/models/*.py"])

_TAG_TYPES: tuple[tuple[ChangeType, frozenset[str]], ...] = (
    (ChangeType.REVERT, frozenset({"revert"})),
    (ChangeType.BUGFIX, frozenset({"bugfix", "bug", "fix", "hotfix", "bug fix", "ci failure"})),
    (ChangeType.PERFORMANCE, frozenset({"perf", "performance", "optimization", "speedup"})),
    (ChangeType.DEPRECATION, frozenset({"deprecation", "deprecate", "removal", "remove"})),
    (ChangeType.DOCS, frozenset({"doc", "docs", "documentation", "readme"})),
    (ChangeType.TEST, frozenset({"test", "tests", "testing"})),
    (ChangeType.CI_BUILD, frozenset({"ci", "ci/build", "build", "docker", "release", "ci/cd", "pre-commit"})),
    (ChangeType.DEPENDENCY, frozenset({"deps", "dependency", "dependencies", "requirements"})),
    (ChangeType.CONFIG, frozenset({"config", "configuration"})),
    (ChangeType.REFACTOR, frozenset({"refactor", "chore", "cleanup", "code clean", "clean up", "be", "moe refactor"})),
    (ChangeType.FEATURE, frozenset({"feature", "feat", "new model", "model support"})),
)
_WORD_TYPES: tuple[tuple[ChangeType, re.Pattern[str]], ...] = (
    (ChangeType.REVERT, re.compile(r"^\s*revert\b", re.IGNORECASE)),
    (ChangeType.BUGFIX, re.compile(r"\b(fix|fixes|fixed|bugfix|bug|crash|regression|incorrect|wrong)\b", re.I)),
    (ChangeType.PERFORMANCE, re.compile(r"\b(speed[- ]?up|faster|optimi[sz]e[ds]?|perf|throughput|latency)\b", re.I)),
    (ChangeType.DEPRECATION, re.compile(r"\b(deprecat\w*|remove[sd]? (support|the|deprecated)|drop support)\b", re.I)),
    (ChangeType.DEPENDENCY, re.compile(r"\b(bump|upgrade|pin|unpin)\b.*\b(version|to \d|==|>=)", re.I)),
    (
        ChangeType.REFACTOR,
        re.compile(
            r"\b(refactor\w*|clean ?up|cleanup|rename|move|migrate|simplify|standardi[sz]e"
            r"|remove (redundant|unused|dead|duplicate)\w*)\b",
            re.I,
        ),
    ),
    (
        ChangeType.CONFIG,
        re.compile(
            r"\b(env(ironment)? var(iable)?s?|config option|configurable|the default|by default|as default)\b", re.I
        ),
    ),
    (
        ChangeType.FEATURE,
        re.compile(r"\b(add|adds|added|support|supports|enable|enables|implement|introduce|new)\b", re.I),
    ),
)
_DEFAULT_CHANGE = re.compile(
    r"\b(by default|the default|as default|default to|change default|make .{1,60} default)\b", re.I
)
_SECURITY = re.compile(r"\b(security|CVE-\d{4}|vulnerab\w*|leak(ing|s)?|sanitiz\w*|injection)\b", re.I)
_NEW_MODEL = re.compile(r"\b(add|support|enable)\b.{0,80}\bmodels?\b|\bnew model\b", re.I)

LARGE_CORE_CHANGE_LINES = 500
SMALL_CHANGE_LINES = 20


T = TypeVar("T")


@dataclass(frozen=True)
class Judgement(Generic[T]):
    """An answer with the rule that gave it: a key the analyzer words in the output language."""

    value: T
    rule: str
    details: dict[str, object] = field(default_factory=dict)


def only(paths: Sequence[str], spec: pathspec.PathSpec) -> bool:
    return bool(paths) and all(spec.match_file(path) for path in paths)


def infer_change_type(commit: Commit) -> Judgement[ChangeType]:
    tags = set(title_tags(commit.title))
    for change_type, tag_names in _TAG_TYPES:
        matched = tags & tag_names
        if matched:
            return Judgement(change_type, f"tag [{sorted(matched)[0]}]")
    paths = [change.path for change in commit.files]
    for change_type, spec in (
        (ChangeType.DOCS, _DOC_PATHS),
        (ChangeType.TEST, _TEST_PATHS),
        (ChangeType.DEPENDENCY, _DEPENDENCY_PATHS),
        (ChangeType.CI_BUILD, _CI_PATHS),
    ):
        if only(paths, spec):
            return Judgement(change_type, f"every changed file is {change_type.value}")
    title = bare_title(commit.title)
    for change_type, pattern in _WORD_TYPES:
        match = pattern.search(title)
        if match:
            return Judgement(change_type, f"word “{match.group(0).strip()}” in the title")
    return Judgement(ChangeType.OTHER, "no tag, path or word rule matched")


def infer_importance(commit: Commit, change_type: ChangeType) -> Judgement[Importance]:
    paths = [change.path for change in commit.files]
    lines = commit.additions + commit.deletions
    text = f"{commit.title}\n{commit.body}"
    if change_type in (ChangeType.DOCS, ChangeType.TEST, ChangeType.CI_BUILD) or only(
        paths, pathspec.GitIgnoreSpec(_DOC_PATHS.patterns + _TEST_PATHS.patterns + _CI_PATHS.patterns)
    ):
        return Judgement(Importance.LOW, "docs_test_ci")
    if _SECURITY.search(text):
        return Judgement(Importance.HIGH, "security")
    if change_type is ChangeType.DEPRECATION:
        return Judgement(Importance.HIGH, "removal")
    if _DEFAULT_CHANGE.search(commit.title):
        return Judgement(Importance.HIGH, "default")
    added_model_files = [
        change.path
        for change in commit.files
        if change.status is FileStatus.ADDED and _NEW_MODEL_FILE.match_file(change.path)
    ]
    if added_model_files or (
        change_type is ChangeType.FEATURE
        and _NEW_MODEL.search(commit.title)
        and "model" in " ".join(title_tags(commit.title))
    ):
        return Judgement(Importance.HIGH, "new_model")
    core_lines = sum(
        change.additions + change.deletions for change in commit.files if _CORE_PATHS.match_file(change.path)
    )
    if core_lines >= LARGE_CORE_CHANGE_LINES:
        return Judgement(Importance.HIGH, "large_core", {"lines": core_lines})
    if change_type is ChangeType.REVERT:
        return Judgement(Importance.MEDIUM, "revert")
    if change_type in (ChangeType.REFACTOR, ChangeType.OTHER, ChangeType.CONFIG) and lines < 100:
        return Judgement(Importance.LOW, "small_kind", {"kind": change_type, "lines": lines})
    if lines and lines < SMALL_CHANGE_LINES and change_type not in (ChangeType.BUGFIX, ChangeType.DEPENDENCY):
        return Judgement(Importance.LOW, "small", {"lines": lines})
    return Judgement(Importance.MEDIUM, "product", {"kind": change_type})


_TAG_PREFIX = re.compile(r"^\s*(?:\[[^\]\n]{1,60}\]\s*:?\s*)+")
_CONVENTIONAL_PREFIX = re.compile(r"^\s*[A-Za-z]+(?:\([^)\n]{1,40}\))?!?:\s*")
_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")


def bare_title(title: str) -> str:
    """The title without its tags, conventional prefix and PR number."""
    bare = _PR_SUFFIX.sub("", _CONVENTIONAL_PREFIX.sub("", _TAG_PREFIX.sub("", title)))
    return bare.strip() or title.strip()
