"""A real git repository per test: each ``commit`` writes files, commits them with git and reads
the commit back through ``GitSource``, so patches are the ones git writes (hunk headers with
their function context, three lines of context, cut at the store's cap)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from commit_digest.collect.git import GitSource
from commit_digest.meaning.impact import ImpactRules, OperatorImpact, impact_rules, operator_impact
from commit_digest.models import Commit
from tests.git import run_git

_IDENTITY = {
    "GIT_AUTHOR_NAME": "Ada Lovelace",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada Lovelace",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "GIT_AUTHOR_DATE": "2026-01-07T10:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-07T10:00:00+00:00",
}


class History:
    """A repository that grows one commit per ``commit`` call."""

    def __init__(self, path: Path, repository: str) -> None:
        self.path = path
        self.repository = repository
        self.count = 0
        run_git(path, "init", "-q", "-b", "main")

    def commit(self, files: Mapping[str, str | None], *, patch_cap_bytes: int | None = 400_000) -> Commit:
        """Writes ``files`` (None deletes one), commits them and returns the commit as stored."""
        for name, content in files.items():
            target = self.path / name
            if content is None:
                target.unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(content, encoding="utf-8")
        self.count += 1
        run_git(self.path, "add", "-A")
        run_git(
            self.path,
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            f"Change {self.count} (#{100 + self.count})",
            env=_IDENTITY,
        )
        sha = run_git(self.path, "rev-parse", "HEAD")
        source = GitSource(self.repository, self.path, patch_cap_bytes=patch_cap_bytes)
        return source.detail_commit(sha, with_pull_request=False)

    def impact(
        self, files: Mapping[str, str | None], rules: ImpactRules | None = None, **options: int | None
    ) -> OperatorImpact:
        return operator_impact(self.commit(files, **options), rules or impact_rules(None))


@pytest.fixture
def history(tmp_path: Path) -> History:
    folder = tmp_path / "repository"
    folder.mkdir()
    return History(folder, "vllm-project/vllm")


def rows(impact: OperatorImpact) -> list[tuple[str, ...]]:
    """Each change as (kind, change, name, old, new), the fields most tests check."""
    return [
        (change.kind.value, change.change.value, change.name, change.old or "", change.new or "")
        for change in impact.changes
    ]
