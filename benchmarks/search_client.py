"""The site's own search client, driven in headless chromium: what one query finds and downloads.

Every query runs in a fresh context of Debian's chromium (Playwright, never ``playwright
install``): the search page is opened with ``?q=query`` and the bytes the client fetched until
its first page of results showed (20, with excerpts) are read from the page; then the header
box's call, ``digestSearchFirst(query, 5)``, gives the first results and the bytes they take
from a cold start (manifest included); then the client is asked for every match, ranked
(``window.digestSearch``), its fetches queued so that chromium never refuses them. A query that
fails raises QueryFailed naming the requests that failed and why, so a benchmark can print it and
go on. Separate from benchmarks/search_recall.py, which
judges recall and ranking, because benchmarks/scale.py needs only the download figures.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from benchmarks.browser import CHROMIUM_FLAGS, chromium_path, serve

FLAGS = list(CHROMIUM_FLAGS)
FIRST_RESULTS_TIMEOUT_MS = 120_000  # the first results of a common term at 50,000 commits, cold
FIRST_RESULTS = 5  # the header box's first results (digestSearchFirst)
_SHA = re.compile(r"/([0-9a-f]{12})(?:/|\.html)")
SHOWN_FAILURES = 5  # failed requests a QueryFailed names
PARALLEL_FETCHES = 64  # a page's fetches in flight at once (see _FETCH_QUEUE)


@dataclass(frozen=True)
class QueryRun:
    """What the client did for one query."""

    query: str
    ids: tuple[str, ...]  # the 12-digit shas of every match, best first
    first_page_bytes: int  # fetched until the search page's first 20 results showed, with excerpts
    all_bytes: int  # fetched to list and rank every match
    first: tuple[tuple[str, str, str], ...] = ()  # digestSearchFirst(query, 5): (sha12, day, title)
    first_bytes: int = 0  # fetched for those five results from a cold start, manifest included


class QueryFailed(Exception):
    """A query the client could not finish: the browser's error and the requests that failed."""

    def __init__(self, query: str, error: str, failed_requests: list[str]) -> None:
        shown = "; ".join(failed_requests[:SHOWN_FAILURES])
        more = f" (+{len(failed_requests) - SHOWN_FAILURES} more)" if len(failed_requests) > SHOWN_FAILURES else ""
        requests = f"; {len(failed_requests)} failed requests: {shown}{more}" if failed_requests else ""
        super().__init__(f"query {query!r} failed: {error}{requests}")
        self.query = query
        self.failed_requests = failed_requests


def chromium() -> str:
    found = chromium_path()
    if found is None:
        raise SystemExit("no chromium on this machine (apt-get install chromium, or set $CHROMIUM)")
    return str(found)


# digestSearch(query, {}) asks for every row chunk of every match at once: thousands at 50,000
# commits, and chromium fails a page's requests past a few thousand outstanding with
# net::ERR_INSUFFICIENT_RESOURCES ("Failed to fetch"). The benchmark queues the page's fetches
# instead; the bytes are the same, and the search page itself asks for one page of rows at a time.
_FETCH_QUEUE = """(() => {
  const limit = PARALLEL_FETCHES;
  const fetchNow = window.fetch.bind(window);
  const waiting = [];
  let running = 0;
  function next() {
    if (running >= limit || !waiting.length) return;
    const [args, resolve, reject] = waiting.shift();
    running++;
    fetchNow(...args).then(resolve, reject).finally(() => { running--; next(); });
  }
  window.fetch = (...args) => new Promise((resolve, reject) => { waiting.push([args, resolve, reject]); next(); });
})();""".replace("PARALLEL_FETCHES", str(PARALLEL_FETCHES))

_WAIT = """(term) => {
  const list = document.querySelector('#digest-search-results');
  return list && list.hasAttribute('data-count') && list.getAttribute('data-query') === term;
}"""


class Client:
    """The search client of a served site; each query in a fresh browser context (a cold cache)."""

    def __init__(self, browser: Any, url: str) -> None:
        self.browser = browser
        self.url = url

    def run(self, query: str) -> QueryRun:
        from playwright.sync_api import Error  # the benchmark's own dependency (dev extra)

        failed: list[str] = []
        context = self.browser.new_context()
        context.add_init_script(_FETCH_QUEUE)
        try:
            page = context.new_page()
            page.on("requestfailed", lambda request: failed.append(f"{request.url} ({request.failure})"))
            page.goto(self.url + "search/?q=" + quote(query))
            page.wait_for_function(_WAIT, arg=query, timeout=FIRST_RESULTS_TIMEOUT_MS)
            page_bytes = int(page.get_attribute("#digest-search-results", "data-bytes") or 0)
            # Each call counts every file its own search reads, as a cold client would fetch it.
            first = page.evaluate(f"(query) => digestSearchFirst(query, {FIRST_RESULTS})", query)
            everything = page.evaluate("(query) => digestSearch(query, {})", query)
        except Error as error:
            raise QueryFailed(query, error.message.splitlines()[0], failed) from error
        finally:
            context.close()
        shown = tuple(
            (_SHA.search(result["url"]).group(1), result["day"], result["title"]) for result in first["results"]
        )
        return QueryRun(
            query, tuple(everything["ids"]), page_bytes, int(everything["bytes"]), shown, int(first.get("bytes", 0))
        )


@contextmanager
def open_client(site_dir: Path) -> Iterator[Client]:
    """Serves the built site in ``site_dir`` and starts headless chromium on it."""
    from playwright.sync_api import sync_playwright  # the benchmark's own dependency (dev extra)

    with serve(Path(site_dir)) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=FLAGS, headless=True)
        try:
            yield Client(browser, url)
        finally:
            browser.close()
