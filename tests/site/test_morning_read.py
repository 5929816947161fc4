"""The morning read in a real headless chromium, on the demo site (the embedded vLLM sample):
nothing scrolls sideways at 1280 px or 390 px, the day filter works (and the page is the plain
list without JavaScript), the home page opens the reader's platform. Screenshots of the main
pages go to screenshots/ (ignored by git) for a person to look at."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from benchmarks.browser import serve
from playwright.sync_api import Browser, Page

from commit_digest.cli import main
from tests.site.conftest import PROJECT

pytestmark = pytest.mark.browser

SCREENSHOTS = PROJECT / "screenshots"
WIDTHS = (1280, 390)
DAY = "days/2026-01-15/"  # 30 commits, 10 of them on ROCm
SCROLLING_BOXES = """
[...document.querySelectorAll("article *")]
  // A chart's table of numbers (closed under its chart) scrolls inside itself, as data tables do on a phone.
  .filter(box => !box.closest("pre, .digest-chart__data"))
  .filter(box => ["auto", "scroll"].includes(getComputedStyle(box).overflowX))
  .filter(box => box.scrollWidth > box.clientWidth + 1)
  .map(box => box.tagName + "." + box.className)
"""
PAGES = {
    "home": "",
    "day": DAY,
    "commit": "commits/{commit}/",
    "platform": "platforms/rocm/",
    "platform-month": "platforms/cuda/2026-01/",
    "platforms": "platforms/",
    "subsystems": "subsystems/",
    "archive-month": "archive/2026-01/",
    "archive": "archive/",
    "weeks": "weeks/",
    "week": "weeks/2026-W02/",
    "subscribe": "subscribe/",
    "search": "search/",
}


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo")
    shutil.copy(PROJECT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(PROJECT / "docs", root / "docs")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["demo", "--site-dir", str(root / "out")]) == 0
    return root / "out"


@pytest.fixture(scope="module")
def site_url(demo_site: Path) -> Iterator[str]:
    with serve(demo_site) as url:
        yield url


def _a_commit_with_files(demo_site: Path) -> str:
    day = (demo_site / DAY / "index.html").read_text(encoding="utf-8")
    start = day.index('href="../../commits/') + len('href="../../commits/')
    return day[start : day.index("/", start)]


def _visible_entries(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        ".digest-entry:not([hidden])", "entries => entries.map(entry => entry.dataset.platforms)"
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways_and_each_is_photographed(
    browser: Browser, site_url: str, demo_site: Path, width: int
) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": width, "height": 900})
    commit = _a_commit_with_files(demo_site)
    wide = []
    for name, path in PAGES.items():
        page.goto(site_url + path.format(commit=commit))
        page.wait_for_load_state("load")
        if page.evaluate("document.documentElement.scrollWidth") > width:
            wide.append(name)
        # Nor a box inside the page (material wraps tables in one); code blocks may, as on GitHub.
        if page.evaluate(SCROLLING_BOXES):
            wide.append(f"{name}: {page.evaluate(SCROLLING_BOXES)}")
        if name in {"home", "day", "commit", "platform"}:
            page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"))
    page.close()
    assert wide == []


def test_the_day_filter_shows_one_platform_keeps_it_in_the_url_and_clears(browser: Browser, site_url: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(site_url + DAY)
    assert page.is_visible("[data-digest-filter]")
    everything = _visible_entries(page)
    assert len(everything) == 30
    page.click('[data-filter-kind="platforms"] [data-filter-value="rocm"]')
    rocm = _visible_entries(page)
    assert len(rocm) == 10 and all("rocm" in platforms.split() for platforms in rocm)
    assert page.url.endswith("?platform=rocm")
    assert page.text_content(".digest-filter__status") == "显示 10 / 30 个提交"
    # Groups left empty are hidden; the counts in the headings follow the filter.
    counts = page.eval_on_selector_all(
        "[data-digest-group]:not([hidden]) .digest-group__count", "spans => spans.map(span => span.textContent)"
    )
    assert sum(int(count) for count in counts) == 10

    page.click('[data-filter-kind="subsystems"] [data-filter-value="attention"]')
    both = _visible_entries(page)
    assert 0 < len(both) < 10 and "subsystem=attention" in page.url

    # The same URL opens the same view.
    page.goto(page.url)
    assert len(_visible_entries(page)) == len(both)
    page.click('[data-filter-kind="platforms"] [data-filter-value=""]')
    page.click('[data-filter-kind="subsystems"] [data-filter-value=""]')
    assert len(_visible_entries(page)) == 30 and "?" not in page.url
    page.close()


def test_without_javascript_the_day_is_the_plain_list(browser: Browser, site_url: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + DAY + "?platform=rocm")
    assert not page.is_visible("[data-digest-filter]")
    assert page.locator(".digest-entry").count() == 30
    assert all(page.locator(".digest-entry").nth(index).is_visible() for index in range(30))
    context.close()


def test_the_home_page_opens_the_readers_platform_on_every_day_and_remembers_it(
    browser: Browser, site_url: str
) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(site_url)
    assert page.eval_on_selector_all("details.digest-platform[open]", "found => found.length") == 0
    page.select_option("#digest-myplatform", "rocm")
    opened = page.eval_on_selector_all(
        "details.digest-platform[open]", "found => found.map(details => details.dataset.platform)"
    )
    assert opened and set(opened) == {"rocm"}
    rocm_titles = page.eval_on_selector_all(
        'section.digest-day:first-of-type details[data-platform="rocm"] li', "items => items.length"
    )
    assert rocm_titles == 10  # the ROCm engineer sees all ten ROCm commits of 2026-01-15
    page.goto(site_url)  # kept in this browser
    assert set(
        page.eval_on_selector_all("details.digest-platform[open]", "found => found.map(d => d.dataset.platform)")
    ) == {"rocm"}
    context.close()
