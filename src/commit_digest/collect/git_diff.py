"""A commit's changed files from three ``git show`` outputs of one diff: ``--name-status -z``,
``--numstat -z`` and ``--patch``, joined into the FileChange list the GitHub source would give
(GitHub's status words, the patch without its ``diff --git``/``---``/``+++`` header, no patch for
a binary file). Pure: git's bytes in, records out.
"""

from __future__ import annotations

from collections.abc import Sequence

from commit_digest.collect.git_process import text
from commit_digest.models import FileChange, FileStatus

# The same diff for every view of a commit, so their entries line up one to one.
DIFF_OPTIONS = ("--format=", "-M", "--diff-merges=first-parent", "--no-color", "--no-ext-diff")

_STATUS_LETTERS: dict[str, FileStatus] = {
    "A": FileStatus.ADDED,
    "M": FileStatus.MODIFIED,
    "D": FileStatus.REMOVED,
    "R": FileStatus.RENAMED,
    "C": FileStatus.COPIED,
    "T": FileStatus.CHANGED,
}


def file_changes(name_status: bytes, numstat: bytes, patch: bytes) -> list[FileChange]:
    """The files of one commit, from ``git show DIFF_OPTIONS`` with ``-z --name-status``,
    ``-z --numstat`` and ``--patch`` (empty when patches are not collected)."""
    return _joined(_fields(name_status), _fields(numstat), _split_patches(patch))


def _fields(output: bytes) -> list[str]:
    return [text(field) for field in output.split(b"\0")]


def _joined(statuses: Sequence[str], counts: Sequence[str], patches: Sequence[str | None]) -> list[FileChange]:
    """Joins ``--name-status -z`` and ``--numstat -z`` output (same diff, same order) and the patches."""
    changes: list[FileChange] = []
    status_at = 0
    count_at = 0
    while status_at < len(statuses) and statuses[status_at]:
        letters = statuses[status_at]
        status = _STATUS_LETTERS.get(letters[0], FileStatus.CHANGED)
        if letters[0] in "RC":
            previous_path, path = statuses[status_at + 1], statuses[status_at + 2]
            status_at += 3
        else:
            previous_path, path = None, statuses[status_at + 1]
            status_at += 2
        added, deleted, counted_path = counts[count_at].split("\t", 2)
        # numstat -z writes a rename as "added\tdeleted\t" followed by two path fields.
        count_at += 3 if counted_path == "" else 1
        patch = patches[len(changes)] if len(changes) < len(patches) else None
        changes.append(
            FileChange(
                path=path,
                status=status,
                additions=int(added) if added.isdigit() else 0,  # "-" for binary files
                deletions=int(deleted) if deleted.isdigit() else 0,
                previous_path=previous_path,
                patch=patch,
            )
        )
    return changes


def _split_patches(output: bytes) -> list[str | None]:
    """The hunks of each file of ``git show --patch``, in order; None for a file with no
    hunks (binary, a pure rename, a mode change)."""
    patches: list[str | None] = []
    current: list[str] | None = None
    for line in text(output).split("\n"):
        if line.startswith("diff --git "):
            if current is not None:
                patches.append(_hunks(current))
            current = []
        elif current is not None:
            current.append(line)
    if current is not None:
        patches.append(_hunks(current))
    return patches


def _hunks(lines: list[str]) -> str | None:
    for index, line in enumerate(lines):
        if line.startswith("@@"):
            # GitHub's patch field ends without the final newline.
            return "\n".join(lines[index:]).rstrip("\n") or None
    return None
