"""Small disks for the tests of a full or read-only disk: a tmpfs mounted where a test needs it
(root only; the test is skipped where mounting is not permitted) and a file that fills it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest


def mount_tmpfs(folder: Path, size: str) -> bool:
    """Mounts a tmpfs of ``size`` (``256k``, ``64m``) at ``folder``; False where that is not permitted."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True, check=False
    )
    return mounted.returncode == 0


def unmount(folder: Path) -> None:
    # Lazily: a background removal or a child process may still hold a file in it open.
    subprocess.run(["umount", "-l", str(folder)], check=False)


@contextmanager
def mounted(path: Path, options: str, source: str = "tmpfs") -> Iterator[Path]:
    """A tmpfs (or a bind mount of ``source``) at ``path``; skips the test where mounting is not permitted."""
    path.mkdir(parents=True, exist_ok=True)
    kind = [] if source != "tmpfs" else ["-t", "tmpfs"]
    done = subprocess.run(["mount", *kind, "-o", options, source, str(path)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield path
    finally:
        unmount(path)


def fill_disk(folder: Path, *, room: int = 0) -> Path:
    """Writes a file until the disk is full, then gives ``room`` bytes back; remove it to make room again."""
    filler = folder / "filler"
    with suppress(OSError), filler.open("wb", buffering=0) as writer:
        while True:
            writer.write(b"\0" * 4096)
    os.truncate(filler, max(0, filler.stat().st_size - room))
    return filler
