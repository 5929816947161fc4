"""axe-core (WCAG 2.0/2.1 A and AA rules) in a real headless chromium on every kind of page, in
both languages, both colour schemes and at a desktop and a phone width: no violation.

The sites are the sample records plus enough commits sharing a word that the search page shows
its "more results" button, built once per module and served on 127.0.0.1 (an unknown path gets
404.html, as GitHub Pages does). The search page is audited with results shown, since its chips,
highlights and button exist only then. axe-core comes with the ``axe-playwright-python`` package.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import pytest
import yaml
from axe_playwright_python.sync_playwright import Axe
from benchmarks.browser import serve
from playwright.sync_api import Browser, Page

from commit_digest.models import CommitRecord, Importance
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest_mkdocs.build import run_build
from tests.site.conftest import PROJECT, BuiltSite, project_config
from tests.site.factories import label, make_commit, ok_analysis, sample_records

AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}
WIDTHS = {"desktop": (1350, 900), "phone": (412, 915)}
# The demo palette follows the system's preference until the reader toggles it.
SCHEMES: dict[str, Literal["light", "dark"]] = {"light": "light", "dark": "dark"}
SEARCH_WORD = "scheduler"  # in every sample analysis: more matches than one page of results
EXTRA_COMMITS = 24


def _more_records() -> list[CommitRecord]:
    """Commits of one more day, so that a search fills more than its first page."""
    day = datetime(2026, 1, 16, 9, 0, tzinfo=UTC)
    return [
        CommitRecord(
            commit=make_commit(
                f"a11y-{n}", f"[Core] Tidy the scheduler step {n} (#{40000 + n})", day + timedelta(minutes=n)
            ),
            analysis=ok_analysis(
                (Importance.LOW, Importance.MEDIUM, Importance.HIGH)[n % 3],
                platforms=(label("cuda", "CUDA"),),
                subsystems=(label("scheduler", "scheduler"),),
            ),
        )
        for n in range(EXTRA_COMMITS)
    ]


def _build(root: Path, *, language: str) -> BuiltSite:
    root.mkdir(parents=True, exist_ok=True)
    with AnalysisStore(root / "cache") as store:
        for record in [*sample_records(), *_more_records()]:
            store.put(record)
    shutil.copytree(PROJECT / "docs", root / "docs")
    config_file = root / "mkdocs.yml"
    config = project_config(cache_dir="cache", language=language)
    config_file.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)  # gen-files runs its scripts from here, as `mkdocs build` does
        return BuiltSite(root, run_build(config_file, site_dir=root / "site", strict=True))


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[BuiltSite, str]]]:
    """Each language's built site and the URL it is served at."""
    zh = _build(tmp_path_factory.mktemp("a11y-zh"), language="zh")
    en = _build(tmp_path_factory.mktemp("a11y-en"), language="en")
    with serve(zh.site) as zh_url, serve(en.site) as en_url:
        yield {"zh": (zh, zh_url), "en": (en, en_url)}


def _first(folder: str) -> Callable[[Path], str]:
    """The first page under ``folder`` (its listing page excluded)."""

    def find(site: Path) -> str:
        pages = sorted(path.parent for path in (site / folder).glob("*/index.html"))
        assert pages, f"the site has no page under {folder}/"
        return f"{pages[0].relative_to(site).as_posix()}/"

    return find


PAGE_KINDS: dict[str, Callable[[Path], str]] = {
    "home": lambda site: "",
    "day": _first("days"),
    "commit": _first("commits"),
    "search": lambda site: f"search/?q={SEARCH_WORD}",
    "platform": _first("platforms"),
    "week": _first("weeks"),
    "impact": lambda site: "impact/",
    "release": _first("releases"),
    "404": lambda site: "no/such/page/",
}


def _settled(page: Page, kind: str) -> None:
    """What scripts add is on the page: the footer's status, and the search page's results."""
    page.wait_for_function(
        "() => { const e = document.querySelector('[data-digest-status]'); return !e || !e.hidden; }"
    )
    if kind == "search":
        page.wait_for_function("() => document.querySelector('#digest-search-results').hasAttribute('data-count')")
        assert page.locator("#digest-search-more").is_visible()
        assert page.locator("#digest-search-results mark").count() > 0


def _described(kind: str, language: str, scheme: str, width: str, violations: list[dict[str, Any]]) -> list[str]:
    return [
        f"{kind} {language} {scheme} {width}: {violation['id']} ({violation['impact']}) at {', '.join(node['target'])}"
        f" - {node.get('failureSummary', '').splitlines()[-1].strip() if node.get('failureSummary') else ''}"
        for violation in violations
        for node in violation["nodes"]
    ]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("kind", list(PAGE_KINDS))
def test_axe_finds_no_wcag_violation(
    browser: Browser, sites: dict[str, tuple[BuiltSite, str]], kind: str, language: str, scheme: str, width: str
) -> None:
    site, url = sites[language]
    wide, high = WIDTHS[width]
    context = browser.new_context(viewport={"width": wide, "height": high}, color_scheme=SCHEMES[scheme])
    try:
        page = context.new_page()
        page.goto(url + PAGE_KINDS[kind](site.site), wait_until="networkidle")
        _settled(page, kind)
        expected = "slate" if scheme == "dark" else "default"
        assert page.get_attribute("body", "data-md-color-scheme") == expected
        results = Axe().run(page, options=AXE_OPTIONS)
        found = _described(kind, language, scheme, width, results.response["violations"])
        assert not found, "axe-core found:\n" + "\n".join(found)
    finally:
        context.close()
