"""Running git in a local clone: one process per call, its output as bytes, a failure as the
last line git wrote to stderr, and git's bytes read as text.

Separate from ``GitSource`` so the source holds what it asks git, and this module how a git
process is started (quoted paths off, no shell) and what a missing git becomes.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from commit_digest.collect.errors import SourceError


def run_git(git_dir: Path, *arguments: str, input: bytes | None = None) -> bytes:
    """The stdout of ``git -C git_dir arguments``; raises CalledProcessError when git fails,
    SourceError when there is no git to run."""
    try:
        completed = subprocess.run(
            ["git", "-C", str(git_dir), "-c", "core.quotepath=off", *arguments],
            capture_output=True,
            check=True,
            input=input,
        )
    except FileNotFoundError:
        raise SourceError("git is not installed (needed by --source git)") from None
    return completed.stdout


def stderr_line(error: subprocess.CalledProcessError) -> str:
    """What a failed git said last (its reason), or its exit status when it said nothing."""
    lines = text(error.stderr or b"").strip().splitlines()
    return lines[-1] if lines else f"exit status {error.returncode}"


def text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
