"""Putting a finished build where the old one was without the path ever being absent.

On Linux ``renameat2(RENAME_EXCHANGE)`` swaps two paths in one step: a reader of ``site/`` sees
the old folder or the new one, never none. Where the system or the file system cannot (another
system, NFS, an old kernel), two renames do it: the path is absent between them for a moment.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

from commit_digest.site import paths

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
# What renameat2 answers where it cannot exchange (no such call, no such flag on this file system).
_UNSUPPORTED = frozenset({errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP})


@cache
def _renameat2() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a C library without it (glibc before 2.28, musl before 1.2.?)
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function  # type: ignore[no-any-return]


def exchange(first: Path, second: Path) -> bool:
    """Swaps what two existing paths name, in one step; False (nothing done) where it cannot."""
    function = _renameat2()
    if function is None:
        return False
    if function(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    number = ctypes.get_errno()
    if number in _UNSUPPORTED:
        return False
    raise OSError(number, os.strerror(number), str(first), None, str(second))


def put_in_place(new: Path, old: Path) -> None:
    """``new`` moves to ``old``'s path; what was there is left at ``new``'s path (nothing when
    ``old`` did not exist). ``old``'s path is absent at no moment where ``exchange`` works."""
    if not os.path.lexists(old):
        new.rename(old)
        return
    if exchange(new, old):
        return
    aside = new.with_name(new.name + ".previous")
    old.rename(aside)
    new.rename(old)
    aside.rename(new)


# The folders a build keeps beside its site (in ``builder_lock.site_workspace``), by the site's name.
STAGING = ".{name}.building-"
RETIRED = ".{name}.old-"
DELETING = ".{name}.deleting-"


def publish_whole(staging: Path, target: Path) -> Path | None:
    """Puts the finished build at ``staging`` in place of the site at ``target``; returns the
    folder now holding the previous site, named to be deleted (None when there was none)."""
    if os.path.ismount(target):
        _fill(staging, target)
        return doomed(staging, target)
    if not os.path.lexists(target):
        staging.rename(target)
        return None
    if exchange(staging, target):
        return doomed(staging, target)
    retired = Path(tempfile.mkdtemp(prefix=RETIRED.format(name=target.name), dir=target.parent))
    retired.rmdir()
    target.rename(retired)
    staging.rename(target)
    return doomed(retired, target)


def _fill(staging: Path, target: Path) -> None:
    """A site folder that is a mount point cannot be renamed: each entry of the build (each file
    of its state folder, inside which it was staged) takes the place of the old one in one step,
    and what the build no longer makes moves out to ``staging`` with the old entries."""
    state = paths.STATE_DIR
    made = _names(staging)
    made_state = _names(staging / state) if (staging / state).is_dir() else set()
    (staging / state).mkdir(exist_ok=True)
    (target / state).mkdir(exist_ok=True)
    for name in sorted(made - {state}):
        put_in_place(staging / name, target / name)
    for name in sorted(made_state):
        put_in_place(staging / state / name, target / state / name)
    for name in sorted(_names(target) - made - {state}):
        (target / name).rename(staging / name)
    own = f".{target.name}."  # the staging folders, journal and lock kept in the state folder
    for name in sorted(_names(target / state) - made_state):
        if not name.startswith(own):
            (target / state / name).rename(staging / state / name)


def _names(folder: Path) -> set[str]:
    return {entry.name for entry in folder.iterdir()}


def doomed(folder: Path, target: Path) -> Path:
    """``folder`` (a retired site or a leftover build) renamed to say it is being deleted."""
    renamed = folder.with_name(DELETING.format(name=target.name) + folder.name.rsplit("-", 1)[-1])
    folder.rename(renamed)
    return renamed
