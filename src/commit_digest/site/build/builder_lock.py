"""One builder per site folder and store: an exclusive lock held for a build, and by ``nightly``
for the whole night.

The lock is ``fcntl.flock`` on a small file beside what it guards (``.site.lock`` beside
``site/``, in the folder where a build stages its output; ``.cache.lock`` beside the store). The
kernel releases it when its holder ends, however it ends, so a killed build never leaves a lock
behind; the holder writes who it is into the file, so a builder that finds it taken can say.
Whoever holds the lock removes the file before letting go; one that locked a file another holder
has just removed tries again on the file now at that path. Within one process the lock is
re-entrant: ``nightly`` holds it for the night and its build step takes it again.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from commit_digest.errors import CommitDigestError
from commit_digest.site import paths

logger = logging.getLogger("mkdocs.plugins.commit_digest.lock")

# How often a waiting builder asks again (the kernel has no flock with a time limit).
_POLL_SECONDS = 0.1


class BuilderBusyError(CommitDigestError):
    """Another build or night holds the site folder or the store, and this one did not wait for it."""


@dataclass(frozen=True)
class Guarded:
    """A lock file and what it guards, in words ("the site folder /srv/site")."""

    lock: Path
    what: str


def site_workspace(site: Path) -> Path:
    """Where a build of ``site`` stages its output, retires the old one and keeps its journal and
    lock: beside the folder, on its file system (renames, not copies). A mount point cannot be
    renamed, and its parent is another file system: a build stages inside it, in the folder of
    the build's own state, which is never published."""
    return site / paths.STATE_DIR if os.path.ismount(site) else site.parent


def site_lock(site: Path) -> Guarded:
    return Guarded(site_workspace(site) / f".{site.name}.lock", f"the site folder {site}")


def store_lock(store: Path) -> Guarded:
    return Guarded(store.parent / f".{store.name}.lock", f"the store {store}")


# Locks this process holds: by the lock file's device and inode, with how many times taken.
_held: dict[tuple[int, int], list[int]] = {}


@contextmanager
def holding(guarded: Sequence[Guarded], *, wait: float = 0.0, purpose: str = "build") -> Iterator[None]:
    """Holds every lock of ``guarded`` (in one order for every caller, so two never wait on each
    other), waiting up to ``wait`` seconds for each; raises BuilderBusyError when one is taken."""
    deadline = time.monotonic() + max(wait, 0.0)
    with ExitStack() as stack:
        for one in sorted(set(guarded), key=lambda item: str(item.lock)):
            stack.enter_context(_holding(one, deadline=deadline, wait=wait, purpose=purpose))
        yield


@contextmanager
def _holding(guarded: Guarded, *, deadline: float, wait: float, purpose: str) -> Iterator[None]:
    fd = _acquire(guarded, deadline=deadline, wait=wait, purpose=purpose)
    identity = _identity(fd)
    entry = _held.setdefault(identity, [fd, 0])
    if entry[0] != fd:  # taken again by this process: the first holder's descriptor keeps it
        os.close(fd)
    entry[1] += 1
    try:
        yield
    finally:
        entry[1] -= 1
        if entry[1] == 0:
            del _held[identity]
            _release(guarded.lock, entry[0])


def _acquire(guarded: Guarded, *, deadline: float, wait: float, purpose: str) -> int:
    announced = False
    while True:
        fd = _open(guarded)
        if _identity(fd) in _held:
            return fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            if time.monotonic() >= deadline:
                waited = f"waited {wait:g} s; " if wait > 0 else ""
                raise BuilderBusyError(
                    f"{holder} holds {guarded.what} ({guarded.lock}): this {purpose} did not start; "
                    f"{waited}pass --wait SECONDS to wait for it"
                ) from None
            if not announced:
                logger.info("commit-digest: %s holds %s; waiting up to %g s for it", holder, guarded.what, wait)
                announced = True
            time.sleep(_POLL_SECONDS)
            continue
        if _still_there(guarded.lock, fd):
            _write_holder(fd, purpose)
            return fd
        os.close(fd)  # its last holder removed it as we locked it: lock the file now at that path


def _open(guarded: Guarded) -> int:
    try:
        guarded.lock.parent.mkdir(parents=True, exist_ok=True)
        return os.open(guarded.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError as error:
        raise BuilderBusyError(f"cannot lock {guarded.what}: {guarded.lock}: {error.strerror}") from error


def _identity(fd: int) -> tuple[int, int]:
    status = os.fstat(fd)
    return status.st_dev, status.st_ino


def _still_there(path: Path, fd: int) -> bool:
    try:
        status = path.stat()
    except FileNotFoundError:
        return False
    return (status.st_dev, status.st_ino) == _identity(fd)


def _write_holder(fd: int, purpose: str) -> None:
    since = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    command = " ".join(Path(word).name if index == 0 else word for index, word in enumerate(sys.argv[:2]))
    text = f"the {purpose} of process {os.getpid()} ({command}, since {since})"
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, text.encode("utf-8", "replace"), 0)
    except OSError:  # a full disk: the lock holds all the same, only its holder goes unnamed
        logger.debug("commit-digest: could not name the holder in its lock file", exc_info=True)


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return text if text.startswith("the ") else "another build"


def _release(path: Path, fd: int) -> None:
    try:
        path.unlink(missing_ok=True)  # while still held: no one can lock this file after us
    except OSError:
        logger.debug("commit-digest: could not remove the lock file %s", path, exc_info=True)
    finally:
        os.close(fd)
