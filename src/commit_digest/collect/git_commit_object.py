"""A commit object as ``git cat-file --batch`` prints it, parsed without git: its headers, the
author and committer identities, the message re-encoded from its ``encoding`` header, and git's
Unix times turned into the dates the product can place on a day.

Read from the object rather than from ``git show --format``: git prints an empty name and a
literal ``%aI`` for an author line holding a NUL, and no ISO date outside years 0..9999, where
the object still holds both. Pure (bytes in, values out), so hand-made objects can be tested
byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from commit_digest.collect.git_process import text
from commit_digest.fields import EARLIEST_DATE, LATEST_DATE


@dataclass(frozen=True)
class Ident:
    """An author or committer line of a commit object: the name, and the time as written."""

    name: str
    seconds: str  # digits when git wrote it; anything at all in a hand-made object


@dataclass(frozen=True)
class RawCommit:
    sha: str
    author: Ident
    committer: Ident
    message: str


def parse_commit(batch: bytes) -> RawCommit | None:
    """The commit ``git cat-file --batch`` printed, None when the object is not a commit."""
    first, _, rest = batch.partition(b"\n")
    described = first.split()
    if len(described) != 3 or described[1] != b"commit" or not described[2].isdigit():
        return None
    content = rest[: int(described[2])]
    head, _, message = content.partition(b"\n\n")
    headers: dict[bytes, bytes] = {}
    for line in head.split(b"\n"):
        if not line.startswith(b" "):  # a space continues a multi-line header (a signature)
            key, _, value = line.partition(b" ")
            headers.setdefault(key, value)
    encoding = headers.get(b"encoding")
    return RawCommit(
        sha=text(described[0]),
        author=_ident(headers.get(b"author", b""), encoding),
        committer=_ident(headers.get(b"committer", b""), encoding),
        message=_decoded(message, encoding),
    )


def _ident(line: bytes, encoding: bytes | None) -> Ident:
    """``Name <email> seconds zone``, read the way git does: the name ends at the first ``<``,
    the time follows the last ``>``."""
    name, _, rest = line.partition(b"<")
    when = rest.rpartition(b">")[2].split()
    # A hand-made object's name may hold a NUL or an escape: the store removes them, as from any text.
    return Ident(_decoded(name, encoding).strip(), text(when[0]) if when else "")


def _decoded(data: bytes, encoding: bytes | None) -> str:
    """Text of the commit object as git shows it: re-encoded from its ``encoding`` header."""
    if encoding:
        try:
            return data.decode(text(encoding).strip(), errors="replace")
        except (LookupError, ValueError):
            pass  # an encoding Python does not know: git would print the bytes as they are
    return text(data)


_EARLIEST_SECONDS = int(EARLIEST_DATE.timestamp())
_LATEST_SECONDS = int(LATEST_DATE.timestamp())


def moment(seconds: str) -> datetime | None:
    """The UTC time of git's Unix ``seconds``, None when it is none of the dates the product places
    on a day (git prints nothing for a negative time; Python holds no year past 9999)."""
    if not (seconds.isascii() and seconds.isdigit()):
        return None
    value = int(seconds)
    if not _EARLIEST_SECONDS <= value <= _LATEST_SECONDS:
        return None
    return datetime.fromtimestamp(value, UTC)


def refused_seconds(seconds: str) -> str:
    """A time that ``moment`` refused, for a message (a hand-made object may hold anything)."""
    shown = f"{seconds[:24]!r} seconds since 1970" if seconds else "missing"
    return f"({shown}) is outside {EARLIEST_DATE:%Y-%m-%d} .. {LATEST_DATE:%Y-%m-%d} UTC"
