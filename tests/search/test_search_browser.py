"""The search page in a real headless chromium: a query finds what the Python reference reader
finds, ranked (known items first, title matches above body matches); results show their badge,
chips and a marked excerpt; filters live in the address; synonyms and unspaced Chinese work; the
keyboard drives it; commit text from the index shows as text.

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
RARE = "zephyrquill"  # a made-up word: in one commit's title, and in a newer commit's body only
# A commit of an older quarter than the sample's (another partition), whose title's words the
# sample's newer commits hold all over their text.
OLD_TITLE = "[Core] Remove prefix caching on CPU (#7001)"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, analysed_sample: list[CommitRecord]) -> BuiltSite:
    hostile = CommitRecord(
        commit=make_commit("search-hostile", HOSTILE_TITLE, datetime(2026, 1, 16, 9, 0, tzinfo=UTC)),
        analysis=ok_analysis(Importance.HIGH, platforms=(label("rocm", "test"),)),
    )
    in_title = CommitRecord(
        commit=make_commit("rare-title", f"[Kernel] Tune the {RARE} path", datetime(2026, 1, 8, 9, 0, tzinfo=UTC)),
        analysis=ok_analysis(Importance.LOW),
    )
    in_body = CommitRecord(
        commit=make_commit(
            "rare-body", "[Misc] Tidy the engine loop", datetime(2026, 1, 16, 9, 0, tzinfo=UTC), body=f"See {RARE}."
        ),
        analysis=ok_analysis(Importance.HIGH),
    )
    old = CommitRecord(
        commit=make_commit("old-known", OLD_TITLE, datetime(2025, 5, 2, 9, 0, tzinfo=UTC)),
        analysis=ok_analysis(Importance.LOW),
    )
    about_rocm = CommitRecord(  # a title all about ROCm, months older than the sample's ROCm commits
        commit=make_commit("old-rocm", "[ROCm] Fix ROCm wheels (#7002)", datetime(2025, 5, 3, 9, 0, tzinfo=UTC)),
        analysis=ok_analysis(Importance.LOW),
    )
    records = [*analysed_sample, hostile, in_title, in_body, old, about_rocm]
    return build_site(tmp_path_factory.mktemp("search-site"), records)


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


def expected(site: BuiltSite, query: str, **filters: object) -> list[str]:
    """What the Python reference reader finds in the same index files (newest first)."""
    return search(lambda path: (site.site / "search" / path).read_bytes(), query, **filters)  # type: ignore[arg-type]


def ranked(page: Page, query: str, **filters: str) -> list[str]:
    """Every match of a query as the client ranks it."""
    return page.evaluate("([query, filters]) => digestSearch(query, filters)", [query, filters])["ids"]


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
    links = page.locator("#digest-search-results a.digest-search__title").evaluate_all(
        "(links) => links.map((a) => a.href)"
    )
    return [re.search(r"commits/([0-9a-f]{12})/", href).group(1) for href in links]


def test_a_chinese_query_shows_every_match_best_first_with_badge_chips_and_excerpt(
    page: Page, site: BuiltSite, site_url: str
) -> None:
    wanted = expected(site, "缓存")
    assert len(wanted) > 5 and sha_for("search-hostile")[:12] in wanted
    shown = type_query(page, site_url, "缓存")
    everything = ranked(page, "缓存")
    assert sorted(everything) == sorted(wanted)  # the client finds what the reference finds
    assert shown == everything[:20]
    assert page.get_attribute("#digest-search-results", "data-count") == str(len(wanted))
    assert "?q=缓存" in unquote(page.url)  # the query is in the address, so a link can carry it
    # Untrusted titles are text: the payload shows as typed, no element is made of it.
    assert page.locator("#digest-search-results img").count() == 0
    assert HOSTILE_TITLE in page.locator("#digest-search-results").inner_text()
    # Each result: its date, importance badge, type and label chips, and an excerpt with the
    # matched words marked.
    first = page.locator(".digest-search__result").first
    assert re.search(r"2026-01-\d\d", first.locator("time").inner_text())
    assert page.locator(".digest-search__result .digest-search__badge--high").count() > 0
    assert page.locator("a.digest-search__chip[href*='platforms/']").count() > 0
    marks = page.locator(".digest-search__result mark").all_inner_texts()
    assert marks and all(mark.lower() in ("缓存", "缓", "存") for mark in marks)
    first.locator("a.digest-search__title").click()
    page.wait_for_url(re.compile(r"/commits/[0-9a-f]{12}/$"))


def test_an_english_identifier_and_the_platform_filter(page: Page, site: BuiltSite, site_url: str) -> None:
    wanted = expected(site, "fused_moe")
    assert wanted
    assert type_query(page, site_url, "fused_moe") == ranked(page, "fused_moe")[:20]
    page.locator("#digest-search-input").fill("kernel")
    kernel = wait_for_results(page)
    assert sorted(ranked(page, "kernel")) == sorted(expected(site, "kernel"))
    page.locator("#digest-search-platform").select_option("rocm")
    narrowed = wait_for_results(page)
    assert sorted(narrowed) == sorted(expected(site, "kernel", platforms=["rocm"])[:20])
    assert narrowed and set(narrowed) < set(expected(site, "kernel"))
    assert kernel
    assert "platform=rocm" in page.url


def test_more_loads_the_next_results(page: Page, site: BuiltSite, site_url: str) -> None:
    wanted = expected(site, "修复")
    assert len(wanted) > 20
    page.goto(site_url + "search/?q=" + "修复")
    everything = ranked(page, "修复")
    assert wait_for_results(page) == everything[:20]
    page.locator("#digest-search-more").click()
    page.wait_for_function("() => document.querySelectorAll('#digest-search-results li').length > 20")
    shown = wait_for_results(page)
    assert len(shown) == min(40, len(wanted)) and len(set(shown)) == len(shown) and set(shown) <= set(wanted)
    result = page.evaluate("digestSearch('修复', {})")
    assert sorted(result["ids"]) == sorted(wanted) and result["bytes"] > 0


def test_the_navigation_links_the_search_page(page: Page, site_url: str) -> None:
    page.goto(site_url)
    page.get_by_role("link", name="搜索").first.click()
    page.wait_for_url(re.compile(r"/search/$"))
    assert page.locator("#digest-search-input").is_visible()


def test_the_more_button_stays_hidden_until_there_are_more_results(page: Page, site_url: str) -> None:
    # material's .md-button sets display, which once showed the hidden button on an empty page.
    page.goto(site_url + "search/")
    assert not page.is_visible("#digest-search-more")


def test_known_items_come_first(page: Page, site: BuiltSite, site_url: str) -> None:
    sha = sha_for("search-hostile")
    assert type_query(page, site_url, sha[:8]) == [sha[:12]]  # a prefix pasted from a log
    # Found through the title index, before any partition is read: other commits' text may
    # still hold those digits, so the count is a lower bound.
    assert page.inner_text("#digest-search-status") == "至少 1 个结果"
    assert ranked(page, sha[:8])[0] == sha[:12]
    assert type_query(page, site_url, sha.upper())[0] == sha[:12]  # a whole sha, any case
    sample = site.page("days/2026-01-15")
    short, title = re.search(r'commits/([0-9a-f]{12})/">([^<]*?\(#\d+\))', sample).group(1, 2)
    pr = re.search(r"\(#(\d+)\)$", title).group(1)
    assert type_query(page, site_url, f"#{pr}")[0] == short
    plain_title = re.sub(r"&[a-z]+;", " ", title)
    if "&" not in title:
        assert type_query(page, site_url, plain_title)[0] == short  # the whole title, pasted
    # A title's rare word: "[NemotronH] Use ReplicatedLinear for fc1_latent_proj (#31807)".
    nemotron = type_query(page, site_url, "ReplicatedLinear")
    rows = page.locator("#digest-search-results a.digest-search__title").all_inner_texts()
    assert nemotron and "ReplicatedLinear" in rows[0]


def test_a_known_item_in_an_old_partition_comes_first_from_the_title_index(page: Page, site_url: str) -> None:
    page.goto(site_url + "search/")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    old = sha_for("old-known")[:12]
    bare = OLD_TITLE.removesuffix(" (#7001)")
    for query in (OLD_TITLE, bare, bare.removeprefix("[Core] "), "#7001", old[:8], "cpu remove prefix caching"):
        found = page.evaluate("(query) => digestSearchFirst(query, 5)", query)
        assert f"/{old}/" in found["results"][0]["url"], (query, found["results"])
    # The header box's answers took the title index, filters and rows: no partition's shard.
    assert requested and not [url for url in requested if "/s/" in url]
    # The search page ranks it first too, and lists every other match after it.
    assert ranked(page, bare)[0] == old
    assert type_query(page, site_url, bare)[0] == old


def test_a_topic_ranks_by_relevance_first_and_recency_breaks_ties(page: Page, site_url: str) -> None:
    page.goto(site_url + "search/")
    first = page.evaluate("digestSearchFirst('rocm', 5)")["results"]
    # The title most about ROCm is first, however old; the others hold ROCm in their titles too.
    assert f"/{sha_for('old-rocm')[:12]}/" in first[0]["url"]
    assert all("rocm" in result["title"].lower() for result in first)
    assert len({result["day"] for result in first}) > 1


def test_title_matches_rank_above_body_matches(page: Page, site_url: str) -> None:
    page.goto(site_url + "search/")
    # The body match is newer (the recency prior favours it) and more important; the title wins.
    assert ranked(page, RARE) == [sha_for("rare-title")[:12], sha_for("rare-body")[:12]]
    # A Chinese word whose English synonym is in a title ranks that title above commits that only
    # carry the label (all hold its name): 注意力 once ranked "[Misc] Remove redundant line" third.
    for query, word in (("kernel", "kernel"), ("注意力", "attention"), ("推测解码", "spec")):
        pages = page.evaluate(
            """(ids) => Promise.all(ids.map((id) => fetch('../commits/' + id + '/').then((r) => r.text())))""",
            ranked(page, query)[:5],
        )
        titles = [re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S).group(1).lower() for html in pages]
        assert all(word in title for title in titles), (query, titles)


def test_an_unspaced_mixed_query_equals_its_spaced_form(page: Page, site_url: str) -> None:
    page.goto(site_url + "search/")
    for unspaced, spaced in (("FP8量化", "FP8 量化"), ("MoE内核", "MoE 内核"), ("rocm注意力", "rocm 注意力")):
        found = ranked(page, unspaced)
        assert found and sorted(found) == sorted(ranked(page, spaced)), unspaced


def test_a_synonym_finds_what_its_label_finds(page: Page, site: BuiltSite, site_url: str) -> None:
    page.goto(site_url + "search/")
    label = set(expected(site, "", subsystems=["spec-decode"]))
    word = set(expected(site, "投机解码"))
    assert label and word
    for synonym in ("推测解码", "投机解码", "speculative decoding", "spec decode"):
        found = set(ranked(page, synonym))
        assert found == set(expected(site, synonym)) and found >= label | word, synonym
    # A narrower word is only itself.
    assert set(ranked(page, "eagle")) == set(expected(site, "eagle")) < set(ranked(page, "推测解码"))


def test_the_address_restores_a_search_with_its_filters(page: Page, site: BuiltSite, site_url: str) -> None:
    query = "search/?q=修复&platform=rocm&importance=medium&from=2026-01-08&to=2026-01-15"
    page.goto(site_url + query)
    page.wait_for_function("() => document.querySelector('#digest-search-results').hasAttribute('data-count')")
    assert page.input_value("#digest-search-input") == "修复"
    assert page.input_value("#digest-search-platform") == "rocm"
    assert page.input_value("#digest-search-importance") == "medium"
    assert page.input_value("#digest-search-from") == "2026-01-08"
    assert page.input_value("#digest-search-to") == "2026-01-15"
    from datetime import date

    wanted = expected(
        site, "修复", platforms=["rocm"], importance="medium", since=date(2026, 1, 8), until=date(2026, 1, 15)
    )
    shown = wait_for_results(page)
    assert wanted and sorted(shown) == sorted(wanted)
    assert set(expected(site, "修复", platforms=["rocm"])) > set(wanted)  # each filter narrows
    days = page.locator(".digest-search__result time").all_inner_texts()
    assert days and all("2026-01-08" <= day <= "2026-01-15" for day in days)


def test_keyboard_slash_focuses_arrows_move_enter_opens(page: Page, site_url: str) -> None:
    page.goto(site_url + "search/")
    page.locator("body").click()
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "digest-search-input"
    page.keyboard.type("缓存")
    shown = wait_for_results(page)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.href").endswith(f"commits/{shown[1]}/")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.id") == "digest-search-input"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(f"/commits/{shown[0]}/$"))


def test_a_query_with_no_match_downloads_no_shard(page: Page, site_url: str) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    assert type_query(page, site_url, "quokkaplatypus 鸭嘴兽") == []
    search_files = [url.split("/search/", 1)[1] for url in requested if "/search/" in url and url.endswith(".bin")]
    # Filters only: bucket files (filter/) or a partition's whole filter (<partition>/filter.bin).
    assert search_files and all(path.startswith("filter/") or path.endswith("/filter.bin") for path in search_files)
    assert int(page.get_attribute("#digest-search-results", "data-bytes") or 0) < 64 * 1024


def test_a_query_of_many_grams_reads_each_partition_filter_in_one_file(page: Page, site_url: str) -> None:
    # "cuda" is a synonym group (nvidia, 英伟达, hopper, h100...): tens of grams, each in its own
    # bucket file. On an archive this small a partition's whole filter is a few KB: one request
    # each instead of tens of 33-byte files, and the same answer.
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    assert type_query(page, site_url, "cuda")
    filters = [url.split("/search/", 1)[1] for url in requested if url.endswith(".bin") and "filter" in url]
    manifest = page.evaluate("fetch('../search/manifest.json').then((response) => response.json())")
    partitions = len(manifest["partitions"])
    assert filters and not [path for path in filters if path.startswith("filter/")], filters
    assert len(filters) == len(set(filters)) <= partitions


# The page's paints: first paint, first contentful paint and each largest paint, with whether the
# painted element is a result (drawn after the index answered).
RECORD_PAINTS = """
window.digestPaints = [];
for (const type of ["paint", "largest-contentful-paint"]) {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const result = !!(entry.element && entry.element.closest("#digest-search-results"));
      window.digestPaints.push([entry.name || type, entry.startTime, result]);
    }
  }).observe({ type, buffered: true });
}
"""


def test_the_index_is_asked_for_after_the_page_is_drawn(page: Page, site_url: str) -> None:
    page.add_init_script(RECORD_PAINTS)
    page.goto(site_url + "search/?q=" + "缓存")
    assert wait_for_results(page)
    paints, asked = page.evaluate(
        """() => [window.digestPaints,
                  performance.getEntriesByType('resource').find((e) => e.name.endsWith('/manifest.json')).startTime]"""
    )
    page_paints = [time for _name, time, result in paints if not result]
    assert "first-contentful-paint" in [name for name, _time, _result in paints]
    assert page_paints and max(page_paints) < asked, (paints, asked)
