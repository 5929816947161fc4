"""The site's chrome in a real headless chromium: no request leaves the site's origin, the
palette toggle, the localized 404 page, the header search box and the footer's status with its
stale-data notice. Plus the pure parts: the status document, the chrome's data, the fetch's
record of its last success.

Playwright drives Debian's chromium (``executable_path``); ``playwright install`` never runs.
The sites are served on 127.0.0.1 by a server that answers unknown paths with 404.html, as
GitHub Pages does.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml
from benchmarks.browser import serve
from mkdocs.config import load_config
from playwright.sync_api import Browser, Page

from commit_digest.collect.base import CommitRef
from commit_digest.collect.errors import CommitFetchError
from commit_digest.collect.fetch import fetch_commits, last_fetch_key
from commit_digest.collect.window import FetchWindow
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import Commit
from commit_digest.site.build.output import write_status
from commit_digest.site.build.status import STATUS_FILE, is_stale, status_document, status_facts
from commit_digest.site.model.index import build_index
from commit_digest.site.rendering.chrome import chrome_context, config_script
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest_mkdocs.build import run_build
from commit_digest_mkdocs.navigation import _self_hosts_fonts
from tests.site.conftest import PROJECT, BuiltSite, project_config
from tests.site.factories import REPOSITORY, make_commit, sample_records, sha_for

NEWEST_DAY = "2026-01-17"  # the newest day of sample_records()
LAST_FETCH = datetime(2026, 1, 18, 6, 30, tzinfo=UTC)
# A title word of one sample commit ("[ROCm][Perf] Enable shuffle kv cache layout (#29887)").
TITLE_WORD = "shuffle"


# -- the sites --------------------------------------------------------------------------------


def _build(root: Path, *, language: str) -> BuiltSite:
    """The sample records with a recorded last fetch, built as conftest.build_site does but from
    the demo's mkdocs.yml minus ``theme.font: false``: the plugin turns the fonts off itself."""
    root.mkdir(parents=True, exist_ok=True)
    with AnalysisStore(root / "cache") as store:
        for record in sample_records():
            store.put(record)
        store.set_meta(last_fetch_key(REPOSITORY), LAST_FETCH.isoformat())
    shutil.copytree(PROJECT / "docs", root / "docs")
    config = project_config(cache_dir="cache", language=language)
    assert config["theme"].pop("font") is False
    config_file = root / "mkdocs.yml"
    config_file.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)  # gen-files runs its scripts from here, as `mkdocs build` does
        return BuiltSite(root, run_build(config_file, site_dir=root / "site", strict=True))


@pytest.fixture(scope="module")
def zh(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    return _build(tmp_path_factory.mktemp("chrome-zh"), language="zh")


@pytest.fixture(scope="module")
def en(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    return _build(tmp_path_factory.mktemp("chrome-en"), language="en")


@pytest.fixture(scope="module")
def zh_url(zh: BuiltSite) -> Iterator[str]:
    with serve(zh.site) as url:
        yield url


@pytest.fixture(scope="module")
def en_url(en: BuiltSite) -> Iterator[str]:
    with serve(en.site) as url:
        yield url


class Visit:
    """A browser page that records every request and fails the test on a script error."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.requests: list[str] = []
        self.errors: list[str] = []
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("pageerror", lambda error: self.errors.append(str(error)))


@pytest.fixture
def visit(browser: Browser) -> Iterator[Visit]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    visit = Visit(context.new_page())
    yield visit
    assert not visit.errors, visit.errors
    context.close()


def _status_ready(page: Page) -> None:
    """The footer has read status.json (it shows its text)."""
    page.wait_for_function("() => { const e = document.querySelector('[data-digest-status]'); return e && !e.hidden; }")


# -- no request leaves the origin -------------------------------------------------------------


@pytest.mark.browser
def test_no_request_leaves_the_sites_origin(visit: Visit, zh_url: str) -> None:
    page = visit.page
    for path in ("", f"days/{NEWEST_DAY}/", f"commits/{sha_for('high-1')[:12]}/", "no/such/page/"):
        page.goto(zh_url + path, wait_until="networkidle")
        _status_ready(page)
    page.goto(zh_url + "search/?q=缓存", wait_until="networkidle")
    page.wait_for_function("() => document.querySelector('#digest-search-results').hasAttribute('data-count')")
    # The header box loads the search client on first use: it too stays home.
    page.goto(zh_url + f"days/{NEWEST_DAY}/", wait_until="networkidle")
    page.locator(".digest-hsearch__input").press_sequentially(TITLE_WORD)
    page.wait_for_function(f"() => document.querySelector('.digest-hsearch__results').dataset.query === '{TITLE_WORD}'")
    page.wait_for_load_state("networkidle")
    assert len(visit.requests) > 20
    outside = [url for url in visit.requests if not url.startswith(zh_url)]
    assert outside == []
    assert any(url.endswith("/search/manifest.json") for url in visit.requests)


def test_the_pages_name_no_font_service_and_no_repository_facts_component(zh: BuiltSite, en: BuiltSite) -> None:
    for site in (zh, en):
        for name, text in site.pages():
            assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, name
            assert 'data-md-component="source"' not in text, name
    home = zh.page("")
    assert 'class="md-source"' in home and "https://github.com/vllm-project/vllm" in home  # the link stays


@pytest.mark.parametrize(
    ("plugins", "self_hosted"),
    [
        ([], False),
        (["material/privacy"], True),
        ([{"material/privacy": {"enabled": False}}], False),
        ([{"material/privacy": {"assets_fetch": False}}], False),
    ],
)
def test_theme_fonts_stay_only_when_materials_privacy_plugin_hosts_them(
    tmp_path: Path, plugins: list[object], self_hosted: bool
) -> None:
    (tmp_path / "docs").mkdir()
    config_file = tmp_path / "mkdocs.yml"
    settings = {"site_name": "x", "theme": {"name": "material"}, "plugins": plugins}
    config_file.write_text(yaml.safe_dump(settings), encoding="utf-8")
    assert _self_hosts_fonts(load_config(config_file=str(config_file))) is self_hosted


# -- palette ----------------------------------------------------------------------------------


@pytest.mark.browser
def test_the_palette_toggle_switches_between_light_and_dark(visit: Visit, zh_url: str) -> None:
    page = visit.page
    page.goto(zh_url)
    assert page.get_attribute("body", "data-md-color-scheme") == "default"
    to_dark = page.locator("label[title='切换到深色模式']")
    assert to_dark.is_visible()
    to_dark.click()
    page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
    page.locator("label[title='切换到浅色模式']").click()
    page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'default'")


# -- 404 --------------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.parametrize(
    ("language", "title", "newest", "archive"),
    [
        ("zh", "404 - 页面不存在", f"最新一天的摘要（{NEWEST_DAY}）", "按月份浏览的归档"),
        ("en", "404 - Page not found", f"The newest day's digest ({NEWEST_DAY})", "The archive, by month"),
    ],
)
def test_the_404_page_speaks_the_sites_language_and_leads_back_in(
    visit: Visit, request: pytest.FixtureRequest, language: str, title: str, newest: str, archive: str
) -> None:
    url = request.getfixturevalue(f"{language}_url")
    page = visit.page
    response = page.goto(url + "days/2099-01-01/deeper/still/")  # any depth
    assert response is not None and response.status == 404
    assert page.locator("article h1").inner_text() == title
    assert page.get_attribute("html", "lang") == language
    newest_link = page.locator("[data-digest-link=newest-day]")
    archive_link = page.locator("[data-digest-link=archive]")
    assert newest_link.inner_text() == newest and archive_link.inner_text() == archive
    assert newest_link.evaluate("a => a.href") == url + f"days/{NEWEST_DAY}/"
    assert archive_link.evaluate("a => a.href") == url + "archive/"
    # The search form is a plain GET to the search page, which runs the query.
    box = page.locator(".digest-not-found__search input[name=q]")
    box.fill(TITLE_WORD)
    box.press("Enter")
    page.wait_for_url(re.compile(r"/search/\?q=" + TITLE_WORD + "$"))
    page.wait_for_function("() => document.querySelector('#digest-search-results').hasAttribute('data-count')")
    assert sha_for("high-1")[:12] in page.locator("#digest-search-results").inner_html()
    newest_page = page.request.get(url + f"days/{NEWEST_DAY}/")
    assert newest_page.status == 200


# -- header search ----------------------------------------------------------------------------


@pytest.mark.browser
def test_the_header_search_shows_results_as_you_type_and_enter_opens_the_search_page(visit: Visit, zh_url: str) -> None:
    page = visit.page
    page.goto(zh_url + f"days/{NEWEST_DAY}/")
    box = page.locator(".digest-hsearch__input")
    page.keyboard.press("/")  # focuses the box
    assert box.evaluate("input => input === document.activeElement")
    page.keyboard.type(TITLE_WORD)
    page.wait_for_function(f"() => document.querySelector('.digest-hsearch__results').dataset.query === '{TITLE_WORD}'")
    result = page.locator(".digest-hsearch__link").first
    assert "Enable shuffle kv cache layout" in result.inner_text() and "2026-01-15" in result.inner_text()
    assert result.get_attribute("href").endswith(f"commits/{sha_for('high-1')[:12]}/")
    page.keyboard.press("Escape")
    assert page.locator(".digest-hsearch__panel").is_hidden()
    box.press("Enter")
    page.wait_for_url(re.compile(r"/search/\?q="))
    assert unquote(page.url) == zh_url + f"search/?q={TITLE_WORD}"
    page.wait_for_function(
        f"() => document.querySelector('#digest-search-results').getAttribute('data-query') === '{TITLE_WORD}'"
    )


@pytest.mark.browser
def test_on_a_phone_the_header_search_is_an_icon_that_opens_the_box(browser: Browser, zh_url: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 800})
    page = context.new_page()
    page.goto(zh_url)
    box = page.locator(".digest-hsearch__input")
    assert box.is_hidden()
    page.locator(".digest-hsearch__open").click()
    assert box.is_visible()
    box.press_sequentially("缓存")
    page.wait_for_function("() => document.querySelector('.digest-hsearch__results').dataset.query === '缓存'")
    first = page.locator(".digest-hsearch__link").first
    assert first.is_visible()
    assert first.bounding_box()["width"] > 300  # the dropdown spans the screen
    first.click()
    page.wait_for_url(re.compile(r"/commits/[0-9a-f]{12}/$"))
    context.close()


# -- footer status ----------------------------------------------------------------------------


def _rewrite_status(site: BuiltSite, language: str, built_at: datetime) -> None:
    """status.json as a build at ``built_at`` writes it (the facts are the site's own)."""
    facts = {
        key: value
        for key, value in json.loads((site.site / STATUS_FILE).read_text(encoding="utf-8")).items()
        if key in ("first_day", "last_day", "days", "commits", "last_fetch")
    }
    write_status(site.site, facts, built_at=built_at, language=language)


@pytest.mark.browser
def test_the_footer_shows_the_newest_day_the_last_fetch_and_a_stale_notice(
    visit: Visit, zh: BuiltSite, zh_url: str
) -> None:
    page = visit.page
    _rewrite_status(zh, "zh", datetime(2026, 1, 25, 6, 0, tzinfo=UTC))  # a week after the data
    page.goto(zh_url + f"days/{NEWEST_DAY}/")
    _status_ready(page)
    footer = page.locator("[data-digest-status]").inner_text()
    assert f"至 {NEWEST_DAY}" in footer and "上次成功获取：2026-01-18 06:30 UTC" in footer, footer
    notice = page.locator("body > .digest-stale")  # a bar at the screen's foot: it moves nothing
    notice.wait_for()
    assert notice.get_attribute("role") == "status"
    assert notice.evaluate("element => getComputedStyle(element).position") == "fixed"
    assert (
        notice.inner_text().startswith("⚠️ 数据可能已过期：最新的提交日期是 2026-01-17，")
        and "早 8 天" in notice.inner_text()
    )
    # It can be dismissed, by name, and stays away for the rest of the visit.
    close = notice.get_by_role("button", name="关闭此提示")
    close.click()
    assert page.locator(".digest-stale").count() == 0
    page.goto(zh_url + "weeks/")
    _status_ready(page)
    assert page.locator(".digest-stale").count() == 0


@pytest.mark.browser
def test_no_notice_the_morning_after_a_fetch(visit: Visit, zh: BuiltSite, zh_url: str) -> None:
    # A fresh browser context: status.json rewritten within the same second would be a 304.
    _rewrite_status(zh, "zh", datetime(2026, 1, 19, 6, 0, tzinfo=UTC))
    visit.page.goto(zh_url + f"days/{NEWEST_DAY}/")
    _status_ready(visit.page)
    assert f"至 {NEWEST_DAY}" in visit.page.locator("[data-digest-status]").inner_text()
    assert visit.page.locator(".digest-stale").count() == 0


@pytest.mark.browser
def test_the_stale_notice_in_english(visit: Visit, en: BuiltSite, en_url: str) -> None:
    _rewrite_status(en, "en", datetime(2026, 2, 1, 6, 0, tzinfo=UTC))
    visit.page.goto(en_url)
    notice = visit.page.locator(".digest-stale")
    notice.wait_for()
    assert notice.inner_text().startswith("⚠️ The data may be out of date: its newest day, 2026-01-17, is 15 days")


# -- the pure parts ---------------------------------------------------------------------------


def _index():
    return build_index(sample_records(), repository=REPOSITORY, zone=UTC, taxonomy=load_taxonomy(None, None))


def test_status_facts_carry_the_last_fetch_and_the_document_judges_staleness() -> None:
    facts = status_facts(_index(), last_fetch=LAST_FETCH)
    assert facts["last_day"] == NEWEST_DAY and facts["last_fetch"] == LAST_FETCH.isoformat()
    fresh = status_document(facts, built_at=datetime(2026, 1, 19, 23, 0, tzinfo=UTC), language="en")
    assert fresh["stale"] is False and "notice" not in fresh
    assert fresh["text"].endswith(" · last successful fetch 2026-01-18 06:30 UTC")
    stale = status_document(facts, built_at=datetime(2026, 1, 21, 7, 0, tzinfo=UTC), language="en")
    assert stale["stale"] is True and "is 4 days before this build" in stale["notice"]
    assert stale["dismiss"] == "Dismiss this notice" and "dismiss" not in fresh
    # No fetch recorded (a restored or imported store): the newest day alone decides.
    unknown = status_facts(_index())
    assert "last_fetch" not in unknown
    assert status_document(unknown, built_at=datetime(2026, 1, 19, 8, 0, tzinfo=UTC), language="zh")["stale"] is False
    assert status_document(unknown, built_at=datetime(2026, 1, 20, 8, 0, tzinfo=UTC), language="zh")["stale"] is True


def test_staleness_is_two_days_of_the_build_clock() -> None:
    built = datetime(2026, 1, 20, 9, 0, tzinfo=UTC)
    assert not is_stale(date(2026, 1, 18), None, built)
    assert is_stale(date(2026, 1, 17), None, built)
    # A quiet repository: no commit for days, but the fetch this morning succeeded.
    assert not is_stale(date(2026, 1, 10), built - timedelta(hours=3), built)
    assert is_stale(date(2026, 1, 10), built - timedelta(days=3), built)
    assert is_stale(None, None, built)


def test_the_chrome_data_is_localized_and_its_links_are_site_relative() -> None:
    context = chrome_context(_index(), "en", directory_urls=True)
    assert context["newest_day_url"] == f"days/{NEWEST_DAY}/"
    assert context["archive_url"] == "archive/" and context["search_url"] == "search/"
    assert context["texts"]["title"] == "404 - Page not found"  # type: ignore[index]
    assert chrome_context(_index(), "zh", directory_urls=False)["newest_day_url"] == f"days/{NEWEST_DAY}.html"
    empty = chrome_context(
        build_index([], repository=REPOSITORY, zone=UTC, taxonomy=load_taxonomy(None, None)), "zh", directory_urls=True
    )
    assert empty["newest_day_url"] is None
    script = config_script("zh", directory_urls=False)
    data = json.loads(script.split("window.commitDigest = ", 1)[1].rstrip(";\n"))
    assert data["search"] == "search/index.html" and data["texts"]["placeholder"] == "搜索提交"


# -- the fetch records its last success ----------------------------------------------------------


class _Source:
    """Two commits; ``failing`` names one whose details cannot be read."""

    repository = REPOSITORY

    def __init__(self, failing: str | None = None) -> None:
        when = datetime(2026, 1, 17, 8, 0, tzinfo=UTC)
        self.commits = {c.sha: c for c in (make_commit("f-1", "one", when), make_commit("f-2", "two", when))}
        self.failing = failing

    def list_commits(self, branch: str | None, window: FetchWindow) -> Iterator[CommitRef]:
        for commit in self.commits.values():
            yield CommitRef(sha=commit.sha, committed_at=commit.committed_at)

    def detail_commit(self, sha: str, *, with_pull_request: bool) -> Commit:
        if sha == self.failing:
            raise CommitFetchError(sha, "HTTP 502")
        return self.commits[sha]


def test_a_fetch_records_its_time_only_when_every_commit_was_read(tmp_path: Path) -> None:
    window = FetchWindow(datetime(2026, 1, 17, tzinfo=UTC), datetime(2026, 1, 18, tzinfo=UTC))
    with AnalysisStore(tmp_path / "store") as store:
        fetch_commits(_Source(failing=sha_for("f-2")), store, window, branch=None, with_pull_requests=False)
        assert store.get_meta(last_fetch_key(REPOSITORY)) is None
        before = datetime.now(UTC).replace(microsecond=0)
        report = fetch_commits(_Source(), store, window, branch=None, with_pull_requests=False)
        assert report.complete
        recorded = datetime.fromisoformat(str(store.get_meta(last_fetch_key(REPOSITORY))))
        assert before <= recorded <= datetime.now(UTC)
