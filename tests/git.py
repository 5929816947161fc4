"""Real git repositories made in a test: git run with no user or system configuration."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def run_git(folder: Path, *arguments: str, env: dict[str, str] | None = None) -> str:
    """``git -C folder arguments``' output; HOME is the folder, so no global config applies."""
    base = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(folder)}
    completed = subprocess.run(
        ["git", "-C", str(folder), *arguments],
        env={**os.environ, **base, **(env or {})},
        check=True,
        capture_output=True,
        text=True,
    )
    return completed.stdout.strip()
