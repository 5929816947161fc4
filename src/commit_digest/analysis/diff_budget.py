"""Fitting a commit's diff into a token budget (pure functions).

Following the idea of qodo-ai/pr-agent ``pr_processing.get_pr_diff``: generated and lock
files are skipped, the rest is ranked (source before tests before docs, larger changes
first), whole patches are taken while they fit, a patch that does not fit is clipped hunk
by hunk, and every file left out is named with the reason, so the model (and the reader of
the prompt) knows what it did not see. Nothing is dropped silently.

Tokens are estimated, not counted: about four characters per token for ASCII (code and
English under the cl100k/o200k encodings) and one token per non-ASCII character (CJK is
roughly one token per character). The estimate errs high, which only makes prompts smaller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pathspec

from commit_digest.models import FileChange, PatchState

# Files whose diff says nothing a reader needs: lock files, generated and minified code.
GENERATED_PATTERNS: tuple[str, ...] = (
    "*.lock",
    "package-lock.json",
    "pnpm-lock.yaml",
    "go.sum",
    "*.min.js",
    "*.min.css",
    "*.map",
    "*_pb2.py",
    "*_pb2_grpc.py",
    "*_pb2.pyi",
    "*.pb.go",
    "*.pb.cc",
    "*.pb.h",
    "*.svg",
    "*.ipynb",
    "requirements/*.txt.lock",
)
_GENERATED = pathspec.GitIgnoreSpec.from_lines(GENERATED_PATTERNS)
_TESTS = pathspec.GitIgnoreSpec.from_lines(["tests/", "test/", "test_*.py", "*_test.py", "conftest.py"])
_DOCS = pathspec.GitIgnoreSpec.from_lines(["docs/", "*.md", "*.rst", "*.txt", "examples/"])

FILE_HEADER_TOKENS = 12  # "--- path (status, +a -b)" line and separators
MIN_CLIP_TOKENS = 60  # below this a clipped patch shows too little to be worth its header


def estimate_tokens(text: str) -> int:
    ascii_chars = sum(1 for char in text if ord(char) < 128)
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


@dataclass(frozen=True)
class IncludedFile:
    path: str
    status: str
    additions: int
    deletions: int
    patch: str
    clipped_lines: int = 0  # lines of the patch left out to fit the budget


@dataclass(frozen=True)
class OmittedFile:
    path: str
    reason: str


@dataclass(frozen=True)
class FittedDiff:
    included: tuple[IncludedFile, ...] = ()
    omitted: tuple[OmittedFile, ...] = ()
    tokens: int = 0
    budget: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)


def rank(change: FileChange) -> tuple[int, int, str]:
    """Sort key: source files first, then tests, then docs; bigger changes first; then by path."""
    if _DOCS.match_file(change.path):
        group = 2
    elif _TESTS.match_file(change.path):
        group = 1
    else:
        group = 0
    return (group, -(change.additions + change.deletions), change.path)


def split_hunks(patch: str) -> list[str]:
    """A unified diff cut at each ``@@`` header (text before the first header stays with it)."""
    hunks: list[str] = []
    current: list[str] = []
    for line in patch.splitlines():
        if line.startswith("@@") and current and any(existing.startswith("@@") for existing in current):
            hunks.append("\n".join(current))
            current = []
        current.append(line)
    if current:
        hunks.append("\n".join(current))
    return hunks


def clip_patch(patch: str, budget: int) -> tuple[str, int]:
    """The longest prefix of whole hunks (and whole lines of the next one) within ``budget``.

    Returns the clipped text and how many lines were left out.
    """
    kept: list[str] = []
    used = 0
    lines = patch.splitlines()
    for index, line in enumerate(lines):
        cost = estimate_tokens(line) + 1
        if used + cost > budget:
            return "\n".join(kept), len(lines) - index
        kept.append(line)
        used += cost
    return "\n".join(kept), 0


def _omission_reason(change: FileChange) -> str | None:
    if _GENERATED.match_file(change.path):
        return "generated or lock file"
    if change.status.value == "removed" and not change.patch:
        return "file removed"
    if not change.patch:
        if change.patch_state is PatchState.UNAVAILABLE:
            return "no patch (binary or too large)"
        return "patch not collected"
    return None


def fit_diff(files: Sequence[FileChange], budget: int) -> FittedDiff:
    """Chooses what of the diff goes into the prompt within ``budget`` estimated tokens."""
    included: list[IncludedFile] = []
    omitted: list[OmittedFile] = []
    used = 0
    for change in sorted(files, key=rank):
        reason = _omission_reason(change)
        if reason is not None:
            omitted.append(OmittedFile(change.path, reason))
            continue
        patch = change.patch or ""
        cost = estimate_tokens(patch) + FILE_HEADER_TOKENS
        left = budget - used
        if cost <= left:
            clipped_lines = 0
        elif left - FILE_HEADER_TOKENS >= MIN_CLIP_TOKENS:
            patch, clipped_lines = clip_patch(patch, left - FILE_HEADER_TOKENS)
            cost = estimate_tokens(patch) + FILE_HEADER_TOKENS
        else:
            omitted.append(OmittedFile(change.path, "over the diff budget"))
            continue
        if change.patch_state is PatchState.TRUNCATED and not clipped_lines:
            clipped_lines = -1  # cut before it reached us: the count is unknown
        included.append(
            IncludedFile(
                change.path, change.status.value, change.additions, change.deletions, patch, clipped_lines
            )
        )
        used += cost
    return FittedDiff(tuple(included), tuple(omitted), used, budget)
