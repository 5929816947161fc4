"""Errors of the commit sources. Each source converts its library's or tool's errors into
these once, so the pipeline and the CLI never see a GithubException or a CalledProcessError."""

from __future__ import annotations

from datetime import datetime

from commit_digest.errors import CommitDigestError


class SourceError(CommitDigestError):
    """The source cannot be used at all (wrong repository, bad token, missing clone): stop the run."""


class CommitFetchError(SourceError):
    """One commit could not be read (after retries); the others can still be fetched."""

    def __init__(self, sha: str, reason: str) -> None:
        super().__init__(f"commit {sha[:12]}: {reason}")
        self.sha = sha
        self.reason = reason


class UnusableCommitError(CommitFetchError):
    """One commit was read but cannot make a record (no date places it on a day, a field the
    model refuses): reading it again gives the same answer, so it is skipped for good."""


class RateLimitError(SourceError):
    """The API refuses more requests for longer than the run may wait: stop cleanly, retry later."""

    def __init__(self, message: str, *, retry_at: datetime | None) -> None:
        when = f"; retry after {retry_at:%Y-%m-%d %H:%M:%S} UTC" if retry_at is not None else ""
        super().__init__(f"{message}{when}")
        self.retry_at = retry_at
