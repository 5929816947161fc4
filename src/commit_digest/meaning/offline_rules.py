"""The offline analyzer's judgements, as pure functions of a commit's facts.

Each returns its answer with the rule that gave it, so the analysis can say why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import pathspec

from commit_digest.meaning.taxonomy import title_tags
from commit_digest.models import ChangeType, Commit, FileStatus, Importance

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
    # Removing the *use* of something deprecated is internal cleanup, not a removal users notice.
    (
        ChangeType.REFACTOR,
        re.compile(
            r"\b(remov\w*|drop\w*|replac\w*|migrat\w*|avoid\w*|stop)\s+(the\s+)?(use|uses|usages?|using|calls?)"
            r"\s+(of\s+)?(the\s+)?deprecated\b",
            re.I,
        ),
    ),
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
# A default that changes (in a title only: messages describe a new option's default all the
# time, "disabled by default", without changing any). "default" alone is not enough.
_DEFAULT_CHANGE = re.compile(
    r"\b(?:change[sd]?|changing|switch(?:es|ed|ing)?|flip(?:s|ped)?|update[sd]?|set(?:s|ting)?|raise[sd]?"
    r"|lower(?:s|ed)?|increase[sd]?|decrease[sd]?|reduce[sd]?|bump(?:s|ed)?)\s+(?:\S+\s+){0,3}?defaults?\b"
    r"|\bmakes?\s+(?!(?:the\s+|a\s+)?defaults?\b)\S.{0,60}?\s(?:the\s+)?default\b"
    r"|\b(?:use[sd]?|using|enable[sd]?|enabling|disable[sd]?|disabling|turn(?:s|ed)?\s+(?:on|off))\s.{1,60}?"
    r"\s(?:by|as(?:\s+the)?)\s+default\b"
    r"|\bdefault\s+to\b|\bnew\s+defaults?\b|\bas\s+(?:the\s+)?default\b",
    re.IGNORECASE,
)
# Security words; a memory leak is not one, a leaked token or key is.
_SECURITY = re.compile(
    r"\b(?:security|CVE-\d{4}|GHSA-\w{4}|vulnerab\w*|(?-i:RCE)|remote\s+code\s+execution"
    r"|arbitrary\s+(?:code|file|command)|(?:path|directory)\s+traversal|(?-i:SSRF|XSS)|denial[- ]of[- ]service"
    r"|sanitiz(?:e|es|ed|ing|ation)|(?<!dependency\s)injection|unsafe\s+(?:deserializ\w*|pickle|unpickling|eval)"
    r"|(?:token|secret|credential|password|api[- ]?key|information)s?\s+leak\w*"
    r"|leak\w*\s+(?:of\s+)?(?:the\s+)?(?:tokens?|secrets?|credentials?|passwords?|api[- ]?keys?|keys?|information))\b",
    re.IGNORECASE,
)
# Failures a user cannot work around, by the rule that words them. "hang" must not match
# "change", "corrupted videos" are an input, a "crash log" is a log.
_SEVERE_FAILURES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("hang", re.compile(r"\b(?:hang|hangs|hanging|hung|deadlock(?:s|ed|ing)?|livelock(?:s|ed)?|stuck)\b", re.I)),
    (
        "crash",
        re.compile(
            r"\b(?:crash(?:es|ed|ing)?\b(?!\s+(?:logs?|reports?|handlers?|dumps?|messages?)\b)|segfault(?:s|ed|ing)?"
            r"|segmentation\s+faults?|core\s*dump(?:s|ed)?|(?-i:SIGSEGV|SIGABRT|SIGBUS|IMA)"
            r"|illegal\s+(?:memory\s+)?(?:access|address|instruction)|(?:CUDA|HIP|NCCL|HCCL|ACL)\s+error"
            r"|device[- ]side\s+assert\w*)\b",
            re.I,
        ),
    ),
    (
        "wrong_output",
        re.compile(
            r"\b(?:(?:data|memory|cache|kv[- ]?cache|output|weights?|state)\s+corruption"
            r"|corrupt(?:s|ed|ing)?\s+(?:the\s+)?(?:data|memory|kv[- ]?cache|cache|outputs?|results?|weights?|state)"
            r"|(?:wrong|incorrect|garbled|corrupted|nonsensical)\s+(?:model\s+)?(?:outputs?|results?|answers?"
            r"|generations?|responses?|text|tokens?|logits|logprobs)|garbled|gibberish|(?-i:NaNs?)"
            r"|accuracy\s+(?:regression|drop|loss|degradation|issues?|problems?|bugs?|errors?)|precision\s+loss"
            r"|silent(?:ly)?\s+(?:\S+\s+){0,3}?(?:wrong|incorrect|accuracy|corrupt\w*))\b",
            re.I,
        ),
    ),
)
# Changes that cannot alter behaviour: typos, comments, formatting, lint and type hints.
_TRIVIAL = re.compile(
    r"\b(?:typos?|misspell\w*|spelling|whitespaces?|trailing\s+spaces?|reformat\w*|formatting|format\s+code"
    r"|code\s+format\w*|lint(?:ing|er|s)?|pre-?commit|mypy|ruff|typing|type\s+(?:hints?|annotations?|coverage))\b"
    r"|^(?:fix|update|add|improve|clarify|correct|remove|clean\s?up|tweak|reword|polish)\w*\s+(?:\S+\s+){0,3}?"
    r"(?:code\s+)?(?:comments?|docstrings?)\b",
    re.IGNORECASE,
)
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
    """The kind of change: from the title's tags, else from what the changed files are, else
    from the title's words."""
    tagged = _tagged_type(commit.title)
    if tagged:
        return tagged
    paths = [change.path for change in commit.files]
    for change_type, spec in (
        (ChangeType.DOCS, _DOC_PATHS),
        (ChangeType.TEST, _TEST_PATHS),
        (ChangeType.DEPENDENCY, _DEPENDENCY_PATHS),
        (ChangeType.CI_BUILD, _CI_PATHS),
    ):
        if only(paths, spec):
            return Judgement(change_type, f"every changed file is {change_type.value}")
    return _worded_type(commit.title)


def _tagged_type(title: str) -> Judgement[ChangeType] | None:
    tags = set(title_tags(title))
    for change_type, tag_names in _TAG_TYPES:
        matched = tags & tag_names
        if matched:
            return Judgement(change_type, f"tag [{sorted(matched)[0]}]")
    return None


def _worded_type(title: str) -> Judgement[ChangeType]:
    bare = bare_title(title)
    for change_type, pattern in _WORD_TYPES:
        match = pattern.search(bare)
        if match:
            return Judgement(change_type, f"word “{match.group(0).strip()}” in the title")
    return Judgement(ChangeType.OTHER, "no tag, path or word rule matched")


def infer_importance(commit: Commit, change_type: ChangeType) -> Judgement[Importance]:
    """How much a reader should care. The message is read without its PR template (the caller
    strips it). Rules go from the surest to the vaguest; the first that holds decides."""
    part = series_part(commit.title)
    if part and change_type is not ChangeType.REVERT:
        # Every part of a series is rated as the series: from its title without the part
        # number, never from the part's own size or files.
        stem = commit.title.replace(part, " ", 1)
        judged = _title_importance(stem, _tagged_type(stem) or _worded_type(stem))
        return Judgement(judged.value, "series", {"part": part_label(part), "series": judged})
    paths = [change.path for change in commit.files]
    lines = commit.additions + commit.deletions
    if change_type in (ChangeType.DOCS, ChangeType.TEST, ChangeType.CI_BUILD) or only(
        paths, pathspec.GitIgnoreSpec(_DOC_PATHS.patterns + _TEST_PATHS.patterns + _CI_PATHS.patterns)
    ):
        return Judgement(Importance.LOW, "docs_test_ci")
    security = _SECURITY.search(f"{commit.title}\n{commit.body}")
    if security:
        return Judgement(Importance.HIGH, "security", {"word": security.group(0)})
    # A bug fix's message says what failed; any other message may name a failure it did not fix.
    failure = severe_failure(commit.title) or (change_type is ChangeType.BUGFIX and severe_failure(commit.body))
    if failure:
        return failure
    trivial = _TRIVIAL.search(bare_title(commit.title))
    if trivial:
        return Judgement(Importance.LOW, "trivial", {"word": trivial.group(0)})
    if change_type is ChangeType.DEPRECATION:
        return Judgement(Importance.HIGH, "removal")
    if changes_default(commit.title):
        return Judgement(Importance.HIGH, "default")
    added_model_files = [
        change.path
        for change in commit.files
        if change.status is FileStatus.ADDED and _NEW_MODEL_FILE.match_file(change.path)
    ]
    if added_model_files or _titled_new_model(commit.title, change_type):
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


def _title_importance(title: str, change_type: Judgement[ChangeType]) -> Judgement[Importance]:
    """The importance a title alone deserves: the rules of ``infer_importance`` that read no
    size, file or message. An internal change (refactor, cleanup, other) is low."""
    kind = change_type.value
    if kind in (ChangeType.DOCS, ChangeType.TEST, ChangeType.CI_BUILD):
        return Judgement(Importance.LOW, "docs_test_ci")
    security = _SECURITY.search(title)
    if security:
        return Judgement(Importance.HIGH, "security", {"word": security.group(0)})
    failure = severe_failure(title)
    if failure:
        return failure
    trivial = _TRIVIAL.search(bare_title(title))
    if trivial:
        return Judgement(Importance.LOW, "trivial", {"word": trivial.group(0)})
    if kind is ChangeType.DEPRECATION:
        return Judgement(Importance.HIGH, "removal")
    if changes_default(title):
        return Judgement(Importance.HIGH, "default")
    if _titled_new_model(title, kind):
        return Judgement(Importance.HIGH, "new_model")
    if kind in (ChangeType.REFACTOR, ChangeType.OTHER):
        return Judgement(Importance.LOW, "internal", {"kind": kind})
    return Judgement(Importance.MEDIUM, "kind", {"kind": kind})


def _titled_new_model(title: str, change_type: ChangeType) -> bool:
    return bool(
        change_type is ChangeType.FEATURE and _NEW_MODEL.search(title) and "model" in " ".join(title_tags(title))
    )


def severe_failure(text: str) -> Judgement[Importance] | None:
    """HIGH when ``text`` names a hang, a crash or wrong output, with the words that did."""
    for rule, pattern in _SEVERE_FAILURES:
        match = pattern.search(text)
        if match:
            return Judgement(Importance.HIGH, rule, {"word": " ".join(match.group(0).split())})
    return None


def changes_default(title: str) -> bool:
    return _DEFAULT_CHANGE.search(title) is not None


def mentions_security(text: str) -> bool:
    return _SECURITY.search(text) is not None


_SERIES_PART = re.compile(
    r"\[\s*(?:part\s*)?\d+\s*/\s*(?:\d+|n)\s*\]"  # [2/n], [15/N], [1/3]
    r"|\(\s*(?:part\s*)?\d+\s*(?:/|\s+of\s+)\s*(?:\d+|n)\s*\)"  # (3/4), (2 of 3)
    r"|\bpart\s*\d+(?:\s*(?:/|\s+of\s+)\s*(?:\d+|n))?\b",  # Part 2, part 2/3, Part 2 of 3
    re.IGNORECASE,
)


def part_label(part: str) -> str:
    """ "[2/n]" as "2/n", "(2 of 3)" as "2/3", "Part 2" as "2"."""
    label = re.sub(r"part|[\s\[\]()]", "", part, flags=re.IGNORECASE)
    return label.replace("of", "/")


def series_part(title: str) -> str | None:
    """The part number of a title in a numbered series ("[2/n]", "(3/4)", "Part 2"), as written."""
    match = _SERIES_PART.search(title)
    return match.group(0) if match else None


_TAG_PREFIX = re.compile(r"^\s*(?:\[[^\]\n]{1,60}\]\s*:?\s*)+")
_CONVENTIONAL_PREFIX = re.compile(r"^\s*[A-Za-z]+(?:\([^)\n]{1,40}\))?!?:\s*")
_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")


def bare_title(title: str) -> str:
    """The title without its tags, conventional prefix and PR number."""
    bare = _PR_SUFFIX.sub("", _CONVENTIONAL_PREFIX.sub("", _TAG_PREFIX.sub("", title)))
    return bare.strip() or title.strip()
