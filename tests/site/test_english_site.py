"""The English demo, as a new user builds it: `commit-digest demo --language en --site-dir DIR`.
No page shows Chinese text: generated pages, analyses (the offline ones are worded in English at
build time from the same store), hand-written pages, the site name, navigation and theme."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from commit_digest.cli import main
from tests.site.conftest import PROJECT
from tests.site.html import visible_text

pytestmark = pytest.mark.slow

# CJK ideographs and the full-width punctuation that goes with them.
CHINESE = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]+")
SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b.*?</\1>", re.S)


def _shown_text(page: str) -> str:
    """What a reader sees: the body without scripts, styles and attribute values."""
    body = page[page.index("<body") :]
    return visible_text(SCRIPT_OR_STYLE.sub(" ", body))


@pytest.fixture(scope="module")
def english_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("english-demo")
    shutil.copy(PROJECT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(PROJECT / "docs", root / "docs")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["demo", "--language", "en", "--site-dir", str(root / "en-site")]) == 0
    return root / "en-site"


def test_no_page_of_the_english_demo_shows_chinese(english_demo: Path) -> None:
    pages = sorted(english_demo.rglob("*.html"))
    assert len(pages) > 200
    chinese = {}
    for path in pages:
        page = path.read_text(encoding="utf-8")
        assert '<html lang="en"' in page, path
        found = CHINESE.findall(_shown_text(page))
        if found:
            chinese[str(path.relative_to(english_demo))] = found[:5]
    assert chinese == {}


def test_the_english_demo_has_the_analyses_in_english(english_demo: Path) -> None:
    day = _shown_text((english_demo / "days" / "2026-01-15" / "index.html").read_text(encoding="utf-8"))
    assert "Commits of 2026-01-15" in day and "30 commits" in day
    assert "Changes 3 files" in day  # the offline gist, worded in English from the stored facts
