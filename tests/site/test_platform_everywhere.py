"""The reader's platform on every page, in a real headless chromium over a real build: chosen on
the home page (or a day page, or given as ?platform=), it narrows the day and week pages opened
afterwards, every count on them follows, a button clears it, the address wins without being
kept, the pages without JavaScript show everything, and a phone's first screen of the home page
is the newest day's news for that platform, above the weeks' chart. axe-core finds nothing on
the narrowed pages.

One site (three days of one week and a day of the week before, their commits spread over ROCm,
CUDA and XPU) and one browser for the module; each test loads each page it needs once.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from axe_playwright_python.sync_playwright import Axe
from benchmarks.browser import serve
from playwright.sync_api import Browser, BrowserContext, Page

from commit_digest.models import CommitRecord, Importance
from tests.site.conftest import BuiltSite, build_site
from tests.site.factories import label, make_commit, ok_analysis

pytestmark = [pytest.mark.browser, pytest.mark.slow]

KEY = "commit-digest:platform"
DAY = "days/2026-01-15/"
WEEK = "weeks/2026-W03/"
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}
HIGH, MEDIUM, LOW = Importance.HIGH, Importance.MEDIUM, Importance.LOW
# (day, importance, platforms, subsystems) per commit. 2026-01-15 has ROCm, CUDA and a commit of
# neither; the newest day, 2026-01-16, leads with ROCm; 2026-01-14 has no ROCm at all.
COMMITS: tuple[tuple[str, Importance, tuple[str, ...], tuple[str, ...]], ...] = (
    ("2026-01-08", MEDIUM, ("rocm",), ("attention",)),
    ("2026-01-08", LOW, ("cuda",), ("core",)),
    ("2026-01-14", HIGH, ("xpu",), ("kernels",)),
    ("2026-01-14", LOW, ("cuda",), ("ci",)),
    ("2026-01-15", HIGH, ("rocm",), ("attention",)),
    ("2026-01-15", MEDIUM, ("rocm",), ("kv-cache",)),
    ("2026-01-15", LOW, ("rocm", "cuda"), ("attention", "quantization")),
    ("2026-01-15", LOW, ("rocm",), ("ci",)),
    ("2026-01-15", HIGH, ("cuda",), ("quantization",)),
    ("2026-01-15", MEDIUM, ("cuda",), ("attention",)),
    ("2026-01-15", MEDIUM, (), ("core",)),
    ("2026-01-16", HIGH, ("rocm",), ("kernels",)),
    ("2026-01-16", MEDIUM, ("rocm",), ("attention",)),
    ("2026-01-16", MEDIUM, ("cuda",), ("core",)),
    ("2026-01-16", LOW, (), ("docs",)),
)


def _records() -> list[CommitRecord]:
    records = []
    for number, (day, importance, platforms, subsystems) in enumerate(COMMITS):
        when = datetime.fromisoformat(day).replace(hour=9, tzinfo=UTC) + timedelta(minutes=number)
        records.append(
            CommitRecord(
                commit=make_commit(
                    f"mine-{number}",
                    f"Tidy the step number {number} (#{50000 + number})",
                    when,
                    paths=(f"misc/step_{number}.txt",),
                ),
                analysis=ok_analysis(
                    importance,
                    summary=(f"What step {number} changes.",),
                    platforms=tuple(label(platform, "named in the analysis") for platform in platforms),
                    subsystems=tuple(label(subsystem, "named in the analysis") for subsystem in subsystems),
                ),
            )
        )
    return records


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    return build_site(tmp_path_factory.mktemp("mine-site"), _records())


@pytest.fixture(scope="module")
def url(site: BuiltSite) -> Iterator[str]:
    with serve(site.site) as served:
        yield served


def _context(browser: Browser, width: int = 1280, height: int = 900, **options: object) -> BrowserContext:
    return browser.new_context(viewport={"width": width, "height": height}, **options)


def _choose_on_home(page: Page, url: str, platform: str) -> None:
    page.goto(url, wait_until="networkidle")
    page.select_option("#digest-myplatform", platform)
    assert page.evaluate(f"localStorage.getItem('{KEY}')") == platform


def _shown_texts(page: Page, selector: str) -> list[str]:
    return page.locator(f"{selector}:visible").all_text_contents()


def _no_axe_violation(page: Page, what: str) -> None:
    violations = Axe().run(page, options=AXE_OPTIONS).response["violations"]
    found = [f"{item['id']}: {[node['target'] for node in item['nodes']]}" for item in violations]
    assert not found, f"{what}: {found}"


# What a day page shows, read from the page itself: the visible entries (their group, platforms and
# subsystems), the stats line, the groups' and the table of contents' counts, each choice's count.
_DAY_STATE = """() => {
  const shown = (element) => element.offsetParent !== null;
  const entries = [...document.querySelectorAll(".digest-entry")].filter(shown).map((entry) => ({
    group: entry.closest("[data-digest-group]").querySelector("h2").id,
    platforms: entry.dataset.platforms.split(" ").filter(Boolean),
    subsystems: entry.dataset.subsystems.split(" ").filter(Boolean),
  }));
  const groups = Object.fromEntries([...document.querySelectorAll("[data-digest-group]")].filter(shown)
    .map((group) => [group.querySelector("h2").id, Number(group.querySelector(".digest-group__count").textContent)]));
  const contents = Object.fromEntries([...document.querySelectorAll(".md-sidebar--secondary a.md-nav__link")]
    .filter(shown)
    .map((link) => [link.hash.slice(1), Number(link.querySelector(".digest-group__count").textContent)]));
  const chips = [...document.querySelectorAll("[data-filter-value]")]
    .filter((chip) => chip.dataset.filterValue && shown(chip))
    .map((chip) => ({
      kind: chip.closest("[data-filter-kind]").dataset.filterKind,
      value: chip.dataset.filterValue,
      count: Number(chip.querySelector(".digest-chip__count").textContent),
      pressed: chip.getAttribute("aria-pressed") === "true",
    }));
  const notice = document.querySelector("[data-digest-mine]");
  return {
    entries, groups, contents, chips,
    stats: document.querySelector(".md-content .digest-stats").textContent,
    notice: notice && shown(notice) ? notice.textContent : "",
  };
}"""
STATS_WORDS = {"high": "高", "medium": "中", "low": "低"}


def _assert_counts_follow(state: dict, chosen: dict[str, str]) -> None:
    """Every count on the day page is the count of the entries it shows."""
    entries = state["entries"]
    per_group = {name: sum(entry["group"] == name for entry in entries) for name in STATS_WORDS}
    by_group = " · ".join(f"{STATS_WORDS[name]} {per_group[name]}" for name in STATS_WORDS)
    assert state["stats"] == f"共 {len(entries)} 个提交 · {by_group}"
    shown_groups = {name: count for name, count in per_group.items() if count}
    assert state["groups"] == shown_groups
    assert state["contents"] == shown_groups  # the table of contents: the same counts, no empty group
    everything = state["everything"]
    for chip in state["chips"]:
        kind, value = chip["kind"], chip["value"]
        others = {other: wanted for other, wanted in chosen.items() if other != kind and wanted}
        expected_count = sum(
            value in entry[kind] and all(wanted in entry[other] for other, wanted in others.items())
            for entry in everything
        )
        assert chip["count"] == expected_count, chip
        assert chip["pressed"] == (chosen.get(kind) == value)


def test_a_platform_chosen_on_home_narrows_a_day_page_opened_directly(browser: Browser, url: str) -> None:
    context = _context(browser)
    try:
        page = context.new_page()
        page.goto(url + DAY, wait_until="networkidle")
        everything = page.evaluate(_DAY_STATE)["entries"]
        assert len(everything) == 7
        _choose_on_home(page, url, "rocm")
        page.goto(url + DAY, wait_until="networkidle")  # opened directly: no ?platform= in the address
        state = page.evaluate(_DAY_STATE) | {"everything": everything}
        assert len(state["entries"]) == 4 and all("rocm" in entry["platforms"] for entry in state["entries"])
        assert state["notice"].startswith("只显示 ROCm（AMD） 的提交。")
        _assert_counts_follow(state, {"platforms": "rocm"})
        assert {chip["value"] for chip in state["chips"] if chip["kind"] == "subsystems"} == {
            "attention",
            "kv-cache",
            "quantization",
            "ci",
        }  # a subsystem none of ROCm's commits has is no choice now
        _no_axe_violation(page, "day with ROCm")

        page.click('[data-filter-kind="subsystems"] [data-filter-value="attention"]')
        state = page.evaluate(_DAY_STATE) | {"everything": everything}
        assert len(state["entries"]) == 2
        _assert_counts_follow(state, {"platforms": "rocm", "subsystems": "attention"})
        # The other platforms' counts are those of the chosen subsystem: CUDA has two with attention.
        assert {chip["value"]: chip["count"] for chip in state["chips"] if chip["kind"] == "platforms"} == {
            "rocm": 2,
            "cuda": 2,
        }
    finally:
        context.close()


def test_the_week_page_follows_the_platform(browser: Browser, url: str) -> None:
    context = _context(browser)
    try:
        page = context.new_page()
        page.add_init_script(f"localStorage.setItem('{KEY}', 'rocm')")
        page.goto(url + WEEK, wait_until="networkidle")
        assert page.is_visible("[data-digest-mine]") and page.input_value("#digest-myplatform") == "rocm"
        # ROCm's week: its stats line and its count against the week before (one then).
        assert _shown_texts(page, ".md-content .digest-stats") == ["共 6 个提交 · 高 2 · 中 2 · 低 2"]
        assert _shown_texts(page, ".digest-week__against") == ["上周 1 个，▲ 5"]
        days = page.eval_on_selector_all(
            ".digest-counts .digest-chip__count", "counts => counts.map((count) => Number(count.textContent))"
        )
        assert days == [0, 4, 2]  # Wednesday had none of ROCm's commits
        lines = page.eval_on_selector_all(
            "ul.digest-lines > li[data-platforms]",
            "lines => lines.filter((line) => line.offsetParent).map((line) => line.dataset.platforms)",
        )
        assert lines and all("rocm" in platforms.split() for platforms in lines)
        sections = page.eval_on_selector_all(
            "[data-digest-section]",
            """sections => sections.filter((s) => s.offsetParent).map((s) => [
              s.querySelector("[id]").id, Number(s.querySelector(".digest-chip__count").textContent)])""",
        )
        assert dict(sections) == {
            "platforms-rocm": 6,
            "subsystems-attention": 3,
            "subsystems-kv-cache": 1,
            "subsystems-quantization": 1,
            "subsystems-kernels": 1,
            "subsystems-ci": 1,
        }
        contents = page.eval_on_selector_all(
            ".md-sidebar--secondary a.md-nav__link .digest-chip__count",
            "counts => counts.filter((count) => count.offsetParent)"
            "  .map((count) => [count.parentNode.hash.slice(1), Number(count.textContent)])",
        )
        assert dict(contents) == dict(sections)
        # A subsystem's facts are the whole week's: hidden, ROCm's own stay; the highlights keep
        # ROCm's high ones.
        assert page.locator(".digest-week__facts:visible").all_text_contents()[0].startswith("6 个提交")
        assert page.locator(".digest-week__facts:visible").count() == 1
        assert len(page.locator("#highlights + ul > li:visible").all()) == 2
        _no_axe_violation(page, "week with ROCm")
    finally:
        context.close()


def test_the_address_wins_on_its_page_and_is_kept_only_when_picked(browser: Browser, url: str) -> None:
    context = _context(browser)
    try:
        page = context.new_page()
        _choose_on_home(page, url, "cuda")
        page.goto(url + DAY + "?platform=rocm", wait_until="networkidle")
        platforms = page.eval_on_selector_all(
            ".digest-entry:not([hidden])", "entries => entries.map((entry) => entry.dataset.platforms)"
        )
        assert len(platforms) == 4 and all("rocm" in found.split() for found in platforms)
        assert page.evaluate(f"localStorage.getItem('{KEY}')") == "cuda"  # a link is not the reader's pick
        page.goto(url + WEEK + "?platform=rocm", wait_until="networkidle")
        assert page.input_value("#digest-myplatform") == "rocm"
        page.goto(url + DAY, wait_until="networkidle")  # without the address: the reader's own
        assert page.eval_on_selector_all(".digest-entry:not([hidden])", "entries => entries.length") == 3
        page.goto(url + DAY + "?platform=rocm", wait_until="networkidle")
        page.click('[data-filter-kind="platforms"] [data-filter-value="rocm"]')  # picked: kept
        assert page.evaluate(f"localStorage.getItem('{KEY}')") == "rocm"
    finally:
        context.close()


def test_the_button_clears_the_platform_from_the_keyboard(browser: Browser, url: str) -> None:
    context = _context(browser)
    try:
        page = context.new_page()
        page.goto(url + DAY, wait_until="networkidle")
        whole = page.text_content(".md-content .digest-stats")
        _choose_on_home(page, url, "rocm")
        page.goto(url + DAY, wait_until="networkidle")
        assert page.eval_on_selector_all(".digest-entry:not([hidden])", "entries => entries.length") == 4
        page.focus(".digest-mine__clear")
        page.keyboard.press("Enter")
        assert page.eval_on_selector_all(".digest-entry:not([hidden])", "entries => entries.length") == 7
        assert page.text_content(".md-content .digest-stats") == whole
        assert not page.is_visible("[data-digest-mine]") and "platform=" not in page.url
        assert page.evaluate(f"localStorage.getItem('{KEY}')") is None
        # The focus stays in the filter, on the choice now pressed.
        assert page.evaluate("document.activeElement.getAttribute('aria-pressed')") == "true"

        page.goto(url + WEEK, wait_until="networkidle")
        page.select_option("#digest-myplatform", "rocm")
        assert page.is_visible("[data-for-platform='rocm']")
        page.focus(".digest-mine__clear")
        page.keyboard.press(" ")
        assert page.is_visible("[data-for-platform='']") and not page.is_visible("[data-for-platform='rocm']")
        assert page.evaluate(f"localStorage.getItem('{KEY}')") is None
        assert page.evaluate("document.activeElement.id") == "digest-myplatform"
    finally:
        context.close()


def test_without_javascript_every_page_shows_everything(browser: Browser, url: str, site: BuiltSite) -> None:
    context = _context(browser, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(url + DAY + "?platform=rocm")
        assert page.locator(".digest-entry:visible").count() == 7
        assert page.text_content(".md-content .digest-stats") == "共 7 个提交 · 高 2 · 中 3 · 低 2"
        assert page.locator("[data-digest-mine]").count() == 1 and not page.is_visible("[data-digest-mine]")
        page.goto(url + WEEK + "?platform=rocm")
        assert _shown_texts(page, ".md-content .digest-stats") == ["共 13 个提交 · 高 4 · 中 5 · 低 4"]
        rocm = page.locator("[data-for-platform='rocm']")
        assert rocm.count() >= 1 and not rocm.first.is_visible()
        assert page.locator("[data-digest-section]:visible").count() == page.locator("[data-digest-section]").count()
        page.goto(url + "?platform=rocm")
        assert page.locator(".digest-day__whole:visible").count() == 4
        assert not page.is_visible("[data-digest-myplatform]")
    finally:
        context.close()


def test_a_phones_first_screen_is_the_newest_days_news_for_the_platform(browser: Browser, url: str) -> None:
    context = _context(browser, 390, 844)
    try:
        page = context.new_page()
        _choose_on_home(page, url, "rocm")
        page.reload(wait_until="networkidle")
        page.wait_for_function("() => document.querySelector('.digest-stale') !== null")  # the old data's notice
        newest = page.locator("section.digest-day").first
        assert newest.locator("h2").get_attribute("id") == "d-2026-01-16"
        first_line = newest.locator("details[data-platform='rocm'][open] li").first
        box, chart = first_line.bounding_box(), page.locator(".digest-chart").bounding_box()
        assert box is not None and chart is not None
        fold = page.evaluate("document.querySelector('.digest-stale').getBoundingClientRect().top")
        assert box["y"] + box["height"] <= fold, (box, fold)
        assert box["y"] < chart["y"]
        assert "高" in first_line.text_content()  # the platform's most important change first
        # A day without the platform says so, in place of its whole-day parts.
        quiet = page.locator("section.digest-day").nth(2)
        assert quiet.locator(".digest-mine__none").text_content() == "当日没有 ROCm（AMD） 的提交。"
        assert not quiet.locator(".digest-day__whole").is_visible()
        wide = page.evaluate("document.documentElement.scrollWidth > document.documentElement.clientWidth + 1")
        assert not wide
        _no_axe_violation(page, "home with ROCm on a phone")
    finally:
        context.close()


def test_the_home_page_tells_the_days_before_the_chart_for_every_reader(site: BuiltSite) -> None:
    home = site.page("")
    assert home.index('id="d-2026-01-16"') < home.index('class="digest-chart"')
    assert home.index('class="digest-chart"') < home.index('class="digest-feedlinks"')
    assert Path(site.site / "index.html").is_file()


SHIFTS = (
    "window.__shifts = [];"
    "new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__shifts.push(e.value); })"
    ".observe({ type: 'layout-shift', buffered: true });"
)


@pytest.mark.parametrize("path", ["", DAY, WEEK], ids=["home", "day", "week"])
def test_a_kept_platform_moves_nothing_as_the_page_opens(browser: Browser, url: str, path: str) -> None:
    context = _context(browser, 390, 844)
    try:
        page = context.new_page()
        page.add_init_script(f"localStorage.setItem('{KEY}', 'rocm');" + SHIFTS)
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})  # a phone: the filter lands after a paint
        page.goto(url + path, wait_until="networkidle")
        assert page.evaluate("window.__shifts") == []
        assert page.evaluate("document.documentElement.hasAttribute('data-digest-choosing')") is False
        assert page.evaluate("getComputedStyle(document.querySelector('.md-content')).visibility") == "visible"
    finally:
        context.close()


def test_a_kept_platform_never_hides_a_page_for_good(browser: Browser, url: str) -> None:
    # digest.js never arrives (blocked, broken): the content waits unseen at most 3 s, then shows.
    # The page's animation clock is held, then run 1000 times faster: no test waits 3 s.
    context = _context(browser, 390, 844)
    try:
        page = context.new_page()
        animations = context.new_cdp_session(page)
        animations.send("Animation.enable")
        animations.send("Animation.setPlaybackRate", {"playbackRate": 0})
        page.add_init_script(f"localStorage.setItem('{KEY}', 'rocm')")
        page.route("**/assets/digest.js", lambda route: route.abort())
        page.goto(url + DAY, wait_until="networkidle")
        visibility = "getComputedStyle(document.querySelector('.md-content')).visibility"
        assert page.evaluate("document.documentElement.hasAttribute('data-digest-choosing')") is True
        assert page.evaluate(visibility) == "hidden"
        animations.send("Animation.setPlaybackRate", {"playbackRate": 1000})
        page.wait_for_function(f"{visibility} === 'visible'", timeout=2000)
        assert page.locator(".digest-entry:visible").count() == len([c for c in COMMITS if c[0] == "2026-01-15"])
    finally:
        context.close()


@pytest.mark.parametrize(
    "given", ['"]<img src=x onerror=alert(1)>', "rocm cuda", "ROCM"], ids=["markup", "two", "case"]
)
def test_an_unknown_platform_in_the_address_or_the_browser_shows_everything(
    browser: Browser, url: str, given: str
) -> None:
    context = _context(browser)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.add_init_script(f"localStorage.setItem('{KEY}', {given!r})")
        for path in (DAY, WEEK, ""):
            page.goto(url + path + "?platform=" + quote(given), wait_until="networkidle")
            assert page.evaluate("document.documentElement.hasAttribute('data-digest-choosing')") is False
            assert not page.is_visible("[data-digest-mine]")  # no "Showing … only"
            assert page.locator("img[src=x]").count() == 0
        page.goto(url + DAY, wait_until="networkidle")
        assert page.locator(".digest-entry:visible").count() == len([c for c in COMMITS if c[0] == "2026-01-15"])
        assert errors == []
    finally:
        context.close()
