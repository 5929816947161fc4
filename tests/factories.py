"""Builders of valid test data."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from commit_digest.meaning.releases import BranchPoint, Release
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
        sha=numbered_sha(number),
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


def numbered_sha(number: int) -> str:
    """The sha of ``make_commit(number)``."""
    return f"{number:040x}"


def make_release(
    tag: str,
    tagged_at: datetime,
    *commits: int,
    tagged: int,
    repository: str = REPOSITORY,
    branch_point: bool = False,
) -> Release:
    """A release of ``tag`` on commit number ``tagged`` that first carried commits ``commits``
    (numbered as ``make_commit``'s); with ``branch_point``, the branch point the GitHub source
    records, at the tagged commit."""
    point = BranchPoint(branch="main", sha=numbered_sha(tagged), committed_at=tagged_at) if branch_point else None
    return Release(
        repository=repository,
        tag=tag,
        sha=numbered_sha(tagged),
        tagged_at=tagged_at,
        commits=tuple(numbered_sha(number) for number in commits),
        branch_point=point,
    )
