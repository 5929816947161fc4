"""Builders of valid test data."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from commit_digest.models import Commit, FileChange, FileStatus

REPOSITORY = "vllm-project/vllm"


def make_commit(
    number: int,
    *,
    title: str | None = None,
    when: datetime | None = None,
    files: tuple[FileChange, ...] | None = None,
    body: str = "",
) -> Commit:
    """A valid commit whose sha and time follow from ``number``."""
    landed = when or datetime(2026, 1, 8, 12, 0, tzinfo=UTC) + timedelta(minutes=number)
    return Commit(
        repository=REPOSITORY,
        sha=f"{number:040x}",
        author_name=f"Author {number}",
        author_login=f"author{number}",
        authored_at=landed - timedelta(hours=1),
        committed_at=landed,
        title=title or f"[Bugfix] Fix thing number {number} (#{30000 + number})",
        body=body,
        files=files
        if files is not None
        else (
            FileChange(path=f"vllm/v1/core/module_{number}.py", status=FileStatus.MODIFIED, additions=10, deletions=2),
        ),
    )
