"""The protocol every commit source follows, and the record-shaping rules they share, so the
GitHub API and a local clone give identical Commit records for the same facts."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from commit_digest.collect.window import FetchWindow
from commit_digest.models import Commit, FileChange, PatchState

# PullRequestInfo.description is capped by the model; longer descriptions are cut, not rejected.
PULL_REQUEST_DESCRIPTION_LIMIT = 100_000
COMMIT_BODY_LIMIT = 200_000
AUTHOR_NAME_LIMIT = 300
TITLE_LIMIT = 2000


@dataclass(frozen=True)
class CommitRef:
    """A commit as a listing names it: enough to decide whether it needs detailing.

    ``committed_at`` None: the source gives no time that places the commit on a day (git's
    date of a hand-made commit object); its details say whether it can be stored at all.
    """

    sha: str
    committed_at: datetime | None


class CommitSource(Protocol):
    """Lists the commits of one repository's branch and details them one at a time."""

    @property
    def repository(self) -> str: ...

    def list_commits(self, branch: str | None, window: FetchWindow) -> Iterator[CommitRef]:
        """Commits of ``branch`` (the default branch when None) landed inside ``window``, any order,
        and those the source listed for it with no time that places them (``committed_at`` None)."""
        ...

    def detail_commit(self, sha: str, *, with_pull_request: bool) -> Commit:
        """The full record of one commit: files with capped patches, and its pull request if asked.

        Raises UnusableCommitError when the commit itself cannot make a record (asking again gives
        the same answer), CommitFetchError when reading it failed and may work later."""
        ...


def split_message(message: str) -> tuple[str, str]:
    """(title, body) of a commit message, the way GitHub and git both show it."""
    title, _, body = message.strip("\n").partition("\n")
    return title.strip()[:TITLE_LIMIT], body.strip()[:COMMIT_BODY_LIMIT]


def as_utc(moment: datetime) -> datetime:
    """Stores times in UTC so both sources serialise a commit identically."""
    return moment.astimezone(UTC)


def cap_patches(files: Sequence[FileChange], cap_bytes: int | None) -> tuple[FileChange, ...]:
    """Keeps patches, in file order, until their UTF-8 size reaches ``cap_bytes`` per commit.

    The file that crosses the cap keeps its first whole lines and is marked truncated; later
    patches are dropped and marked truncated too. Files that never had a patch (binary, too
    large for the API) are marked unavailable. ``cap_bytes`` None: patches are not collected.
    """
    if cap_bytes is None:
        return tuple(
            file.model_copy(update={"patch": None, "patch_state": PatchState.NOT_COLLECTED}) for file in files
        )
    remaining = cap_bytes
    capped: list[FileChange] = []
    for file in files:
        if file.patch is None:
            capped.append(file.model_copy(update={"patch_state": PatchState.UNAVAILABLE}))
            continue
        encoded = file.patch.encode("utf-8")
        if len(encoded) <= remaining:
            remaining -= len(encoded)
            capped.append(file.model_copy(update={"patch_state": PatchState.INCLUDED}))
            continue
        cut = _whole_lines(encoded[:remaining].decode("utf-8", errors="ignore"))
        remaining = 0
        capped.append(
            file.model_copy(update={"patch": cut or None, "patch_state": PatchState.TRUNCATED})
        )
    return tuple(capped)


def _whole_lines(text: str) -> str:
    end = text.rfind("\n")
    return text[: end + 1] if end >= 0 else ""
