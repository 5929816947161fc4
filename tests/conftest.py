"""Suite-wide fixtures: every test gets its own store directory and never touches ./cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from commit_digest.store import AnalysisStore


@pytest.fixture(autouse=True)
def _isolated_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands default to ./mkdocs.yml and ./cache: run each test in an empty folder."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for secret in ("OPENAI_API_KEY", "GITHUB_TOKEN", "OPENAI_BASE_URL", "GITHUB_API_URL"):
        monkeypatch.delenv(secret, raising=False)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[AnalysisStore]:
    with AnalysisStore(tmp_path / "store") as opened:
        yield opened

