"""A day's brief on a page that must stay small, rebuilt when it changes, and read in a browser:
its bytes come out of the day's budget for analyses; a changed brief renders its day page, home
and feeds again (the rest is reused, and equals a cold build); the day filter shows the chosen
platform's brief in place of the whole day's; axe-core finds nothing on the pages that show one."""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

import pytest
from axe_playwright_python.sync_playwright import Axe
from benchmarks.browser import serve
from playwright.sync_api import Browser

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.site.model.briefs import site_briefs
from commit_digest.site.model.index import build_index
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.budget import size
from commit_digest.site.views.days import DAY_ENTRIES_LIMIT
from commit_digest.site.views.registry import generate_pages
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.briefs import MAX_CITED, MAX_SENTENCES, SENTENCE_CAP
from tests.site.brief_factories import ROCM, SAMPLE_DAY, WRITTEN, make_brief, sample_briefs, store_briefs
from tests.site.conftest import PROJECT, BuiltSite, build_site
from tests.site.factories import sample_records
from tests.site.test_incremental import Project, inode
from tests.site.test_page_sizes import DAY, _entries, _long_day

TAXONOMY = load_taxonomy()
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}


def _longest_brief(day: date, platform: str | None, seeds: list[str]) -> object:
    """A brief at every cap: six sentences of 400 characters (Chinese: 1,200 bytes), each citing 12 commits."""
    sentence = ("长句" * SENTENCE_CAP)[:SENTENCE_CAP]
    cited = tuple(seeds[:MAX_CITED])
    return make_brief(day, platform, {"zh": [(sentence, cited)] * MAX_SENTENCES})


def _long_day_html(with_briefs: bool) -> tuple[str, int]:
    """The day page of 120 long analyses (test_page_sizes), and its brief section's bytes."""
    records = _long_day(120)
    index = build_index(records, repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=TAXONOMY)
    if with_briefs:
        seeds = [f"long-{number}" for number in range(120)]
        briefs = [_longest_brief(DAY.date(), platform, seeds) for platform in (None, "cuda")]
        days = {day.date: day.commits for day in index.days}
        index = dataclasses.replace(index, briefs=site_briefs(briefs, days, "zh", ("zh",)))  # type: ignore[arg-type]
    [spec] = [spec for spec in generate_pages(index, TAXONOMY, SiteOptions()) if spec.src_uri.startswith("days/")]
    html = spec.render().html
    found = re.search(r'<section class="digest-brief".*?</section>', html, re.S)
    return html, size(found.group(0)) if found else 0


def test_a_long_brief_comes_out_of_the_days_budget_not_on_top_of_it() -> None:
    plain, _ = _long_day_html(with_briefs=False)
    html, brief = _long_day_html(with_briefs=True)
    assert brief > 20_000  # the whole day's and CUDA's, each at every cap
    entries = _entries(html)
    assert len(entries) == 120  # every commit keeps its line
    assert sum(size(entry) for entry in entries) + brief <= DAY_ENTRIES_LIMIT
    # The analyses gave way to it: shorter than without the brief, the page as small as ever.
    assert sum(size(entry) for entry in entries) < sum(size(entry) for entry in _entries(plain))
    assert size(html) < 125_000


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    root = tmp_path_factory.mktemp("brief-incremental")
    shutil.copytree(PROJECT / "docs", root / "docs")
    with AnalysisStore(root / "cache") as store:
        for record in sample_records():
            store.put(record)
    store_briefs(root, sample_briefs())
    project = Project(root, {"workers": 1})
    project.configure()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        project.build()
        yield project


@pytest.mark.slow
def test_a_rewritten_brief_renders_its_day_again_and_reuses_the_other_days(project: Project) -> None:
    day = project.site / "days" / "2026-01-15" / "index.html"
    other_day = project.site / "days" / "2026-01-16" / "index.html"
    commit = project.commit_page("high-1")
    untouched = inode(other_day), inode(commit)
    rewritten = {"zh": [("重写后的 ROCm 简报：请升级。", ("high-1",))], "en": ROCM["en"]}
    with project.store() as store:
        store.put_brief(make_brief(SAMPLE_DAY, "rocm", rewritten, written=WRITTEN + timedelta(hours=2)))
    project.assert_incremental_equals_cold()
    assert "重写后的 ROCm 简报：请升级。" in day.read_text(encoding="utf-8")
    assert "重写后的 ROCm 简报：请升级。" in (project.site / "index.html").read_text(encoding="utf-8")
    assert "重写后的 ROCm 简报：请升级。" in (project.site / "feeds/platforms/rocm.xml").read_text(encoding="utf-8")
    assert (inode(other_day), inode(commit)) == untouched


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    sites: dict[str, BuiltSite] = {}
    for language in ("zh", "en"):
        root = tmp_path_factory.mktemp(f"brief-browser-{language}")
        store_briefs(root, sample_briefs())
        sites[language] = build_site(root, sample_records(), language=language)
    with serve(sites["zh"].site) as zh, serve(sites["en"].site) as en:
        yield {"zh": zh, "en": en}


def _shown(page: object, selector: str) -> bool:
    return page.locator(selector).is_visible()  # type: ignore[attr-defined]


@pytest.mark.browser
@pytest.mark.slow
def test_the_day_filter_shows_the_chosen_platforms_brief_in_place_of_the_whole_days(
    browser: Browser, served: dict[str, str]
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(served["zh"] + "days/2026-01-15/?platform=rocm", wait_until="networkidle")
        assert _shown(page, "#brief-rocm .digest-brief__text") and not _shown(page, "[data-brief-for='']")
        assert not _shown(page, "#brief-cuda")
        cuda = page.locator("[data-filter-kind='platforms'] [data-filter-value='cuda']")
        cuda.click()
        assert _shown(page, "#brief-cuda .digest-brief__text") and not _shown(page, "#brief-rocm")
        page.locator("[data-filter-kind='platforms'] [data-filter-value='']").click()
        assert _shown(page, "[data-brief-for=''] .digest-brief__text")
        assert not _shown(page, "#brief-rocm") and not _shown(page, "#brief-cuda")
        # A citation's title shows on focus (and names the link for a screen reader).
        cite = page.locator("[data-brief-for=''] .digest-cite").first
        assert cite.locator(".digest-sr").bounding_box()["width"] <= 1  # type: ignore[index]
        cite.hover()
        assert cite.locator(".digest-sr").bounding_box()["width"] > 50  # type: ignore[index]
        page.mouse.move(0, 0)
        page.keyboard.press("Shift")  # focus from the keyboard is what :focus-visible marks
        cite.focus()
        assert cite.locator(".digest-sr").bounding_box()["width"] > 50  # type: ignore[index]
    finally:
        page.close()


@pytest.mark.browser
@pytest.mark.slow
def test_without_javascript_the_whole_days_brief_shows_and_each_platforms_opens(
    browser: Browser, served: dict[str, str]
) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(served["zh"] + "days/2026-01-15/?platform=rocm")
        assert _shown(page, "[data-brief-for=''] .digest-brief__text")
        assert _shown(page, "#brief-rocm > summary") and not _shown(page, "#brief-rocm .digest-brief__text")
        page.locator("#brief-rocm > summary").click()
        assert _shown(page, "#brief-rocm .digest-brief__text")
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_the_home_page_opens_the_readers_platform_with_its_brief(browser: Browser, served: dict[str, str]) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 900})
    try:
        page.goto(served["en"], wait_until="networkidle")
        page.select_option("#digest-myplatform", "rocm")
        rocm = page.locator("#d-2026-01-15 ~ details[data-platform='rocm'] .digest-brief__text")
        assert rocm.is_visible() and "faster decoding" in rocm.inner_text()
        wide = page.evaluate("document.documentElement.scrollWidth > document.documentElement.clientWidth + 1")
        assert not wide
    finally:
        page.close()


@pytest.mark.browser
@pytest.mark.slow
# Each page once, the languages and schemes spread over them (every pair was checked by hand when
# the brief was built; 16 browser runs cost the suite 45 s for what 5 show).
@pytest.mark.parametrize(
    ("path", "language", "scheme"),
    [
        ("", "en", "light"),
        ("days/2026-01-15/", "zh", "light"),
        ("days/2026-01-15/", "en", "dark"),
        ("days/2026-01-15/?platform=rocm", "zh", "dark"),
        ("days/2026-01-16/", "en", "light"),
    ],
)
def test_axe_finds_nothing_on_the_pages_with_a_brief(
    browser: Browser, served: dict[str, str], path: str, language: str, scheme: Literal["light", "dark"]
) -> None:
    for width, height in ((1280, 900), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
        try:
            page = context.new_page()
            page.goto(served[language] + path, wait_until="networkidle")
            violations = Axe().run(page, options=AXE_OPTIONS).response["violations"]
            found = [f"{item['id']}: {[node['target'] for node in item['nodes']]}" for item in violations]
            assert not found, f"{path or 'home'} {language} {scheme} {width}: {found}"
        finally:
            context.close()
