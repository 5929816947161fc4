"""The search page in a real headless chromium: typing a Chinese and an English query shows the
commits that contain them, the platform filter narrows them, "more" pages on, and commit text from
the index shows as text.

Playwright drives Debian's chromium (``executable_path``); ``playwright install`` never runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import unquote

import pytest
from benchmarks.browser import serve
from playwright.sync_api import Browser, Page

from commit_digest.models import CommitRecord, Importance
from commit_digest.search.reader import search
from tests.site.conftest import BuiltSite, build_site
from tests.site.factories import PAYLOADS, label, make_commit, ok_analysis, sha_for

pytestmark = pytest.mark.browser

HOSTILE_TITLE = f"缓存 hostile {PAYLOADS[1]}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, analysed_sample: list[CommitRecord]) -> BuiltSite:
    hostile = CommitRecord(
        commit=make_commit("search-hostile", HOSTILE_TITLE, datetime(2026, 1, 16, 9, 0, tzinfo=UTC)),
        analysis=ok_analysis(Importance.HIGH, platforms=(label("rocm", "test"),)),
    )
    return build_site(tmp_path_factory.mktemp("search-site"), [*analysed_sample, hostile])


@pytest.fixture(scope="module")
def site_url(site: BuiltSite) -> Iterator[str]:
    with serve(site.site) as url:
        yield url


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: errors.append(f"dialog {dialog.message}"))
    yield page
    assert not errors, errors
    assert not page.title().startswith("pwned")
    context.close()


def expected(site: BuiltSite, query: str, **filters: list[str]) -> list[str]:
    """What the Python reference reader finds in the same index files."""
    return search(lambda path: (site.site / "search" / path).read_bytes(), query, **filters)


def type_query(page: Page, site_url: str, query: str) -> list[str]:
    page.goto(site_url + "search/")
    page.locator("#digest-search-input").press_sequentially(query)
    return wait_for_results(page)


def wait_for_results(page: Page) -> list[str]:
    """The commits shown once the results answer what the box and the filters now hold."""
    page.wait_for_function(
        """() => {
          const list = document.querySelector('#digest-search-results');
          return list.hasAttribute('data-count')
            && list.getAttribute('data-query') === document.querySelector('#digest-search-input').value
            && list.getAttribute('data-platform') === document.querySelector('#digest-search-platform').value;
        }"""
    )
    links = page.locator("#digest-search-results a").evaluate_all("(links) => links.map((a) => a.href)")
    return [re.search(r"commits/([0-9a-f]{12})/", href).group(1) for href in links]


def test_typing_a_chinese_query_shows_the_commits_containing_it(page: Page, site: BuiltSite, site_url: str) -> None:
    wanted = expected(site, "缓存")
    assert len(wanted) > 5 and sha_for("search-hostile")[:12] in wanted
    shown = type_query(page, site_url, "缓存")
    assert shown == wanted[:20]
    assert page.get_attribute("#digest-search-results", "data-count") == str(len(wanted))
    assert "?q=缓存" in unquote(page.url)  # the query is in the address, so a link can carry it
    # Untrusted titles are text: the payload shows as typed, no element is made of it.
    assert page.locator("#digest-search-results img").count() == 0
    assert HOSTILE_TITLE in page.locator("#digest-search-results").inner_text()
    # Each result shows its date, importance and type; the link opens the commit page.
    first = page.locator(".digest-search__result").first
    assert re.search(r"2026-01-\d\d", first.inner_text())
    first.locator("a").click()
    page.wait_for_url(re.compile(r"/commits/[0-9a-f]{12}/$"))


def test_typing_an_english_identifier_and_filtering_by_platform(page: Page, site: BuiltSite, site_url: str) -> None:
    wanted = expected(site, "fused_moe")
    assert wanted
    assert type_query(page, site_url, "fused_moe") == wanted[:20]
    page.locator("#digest-search-input").fill("")
    page.locator("#digest-search-input").press_sequentially("FlashInfer")
    everything = wait_for_results(page)
    assert everything == expected(site, "FlashInfer")[:20] and everything
    page.locator("#digest-search-input").fill("kernel")
    kernel = expected(site, "kernel")
    assert wait_for_results(page) == kernel[:20]
    page.locator("#digest-search-platform").select_option("rocm")
    narrowed = wait_for_results(page)
    assert narrowed == expected(site, "kernel", platforms=["rocm"])[:20]
    assert narrowed and set(narrowed) < set(kernel)


def test_more_loads_the_next_results_and_the_url_carries_a_query(page: Page, site: BuiltSite, site_url: str) -> None:
    wanted = expected(site, "修复")
    assert len(wanted) > 20
    page.goto(site_url + "search/?q=" + "修复")
    assert wait_for_results(page) == wanted[:20]
    page.locator("#digest-search-more").click()
    page.wait_for_function("() => document.querySelectorAll('#digest-search-results li').length > 20")
    assert wait_for_results(page) == wanted[:40]
    result = page.evaluate("digestSearch('修复', {})")
    assert result["ids"] == wanted and result["bytes"] > 0


def test_the_navigation_links_the_search_page(page: Page, site_url: str) -> None:
    page.goto(site_url)
    page.get_by_role("link", name="搜索").first.click()
    page.wait_for_url(re.compile(r"/search/$"))
    assert page.locator("#digest-search-input").is_visible()


def test_the_more_button_stays_hidden_until_there_are_more_results(page: Page, site_url: str) -> None:
    # material's .md-button sets display, which once showed the hidden button on an empty page.
    page.goto(site_url + "search/")
    assert not page.is_visible("#digest-search-more")


def test_a_sha_prefix_and_a_pr_number_find_their_commit(page: Page, site: BuiltSite, site_url: str) -> None:
    sha = sha_for("search-hostile")
    assert type_query(page, site_url, sha[:8]) == [sha[:12]]  # a prefix pasted from a log
    sample = site.page("days/2026-01-15")
    pr, short = re.search(r'commits/([0-9a-f]{12})/">[^<]*?\(#(\d+)\)', sample).group(2, 1)
    assert short in type_query(page, site_url, f"#{pr}")
