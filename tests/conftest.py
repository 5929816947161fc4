"""Suite-wide fixtures: every test gets its own store directory and never touches ./cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from commit_digest.store.analysis_store import AnalysisStore

if TYPE_CHECKING:
    from playwright.sync_api import Browser


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


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's headless chromium under Playwright (never a browser download), one per module."""
    from benchmarks.browser import CHROMIUM_FLAGS, chromium_path
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    if executable is None or not executable.exists():
        pytest.fail("chromium is missing: browser tests need Debian's chromium (make test installs it)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(executable), args=list(CHROMIUM_FLAGS))
        yield launched
        launched.close()
