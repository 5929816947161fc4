"""Pagefind 1.5.2 beside our search, on the same built site (benchmarks/search_recall.py
``--against-pagefind``; not a test).

``ensure_pagefind`` installs ``pagefind-bin-extended`` (the build that segments Chinese) from
the package index into this venv with pip when it is missing; ``index_site`` runs it over the
site's commit pages only (``commits/**/*.html``, each page's article as its root, so the
header, navigation and footer every page shares are not indexed) into ``<site>/pagefind/``.
``PagefindClient.run`` asks Pagefind's own JS API in a fresh context of headless chromium, as a
page would: ``pagefind.search(query)``, then the first five results' ``data()``, counting every
byte fetched under ``pagefind/`` until then (its index files; its code apart), then every
result's data for its URL, to judge recall.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.browser import serve
from benchmarks.search_client import FIRST_RESULTS, FLAGS, chromium

PAGEFIND = "pagefind-bin-extended==1.5.2"
GLOB = "commits/**/*.html"
ROOT = "article.md-content__inner"
CODE_SUFFIXES = (".js", ".wasm", ".pagefind")  # the engine, not the index
TIMEOUT_MS = 300_000

_FIRST = """async ([query, count]) => {
  const pagefind = await import(new URL("pagefind/pagefind.js", document.baseURI).href);
  await pagefind.init();
  window.digestPagefind = await pagefind.search(query);
  const first = await Promise.all(window.digestPagefind.results.slice(0, count).map((result) => result.data()));
  return { first: first.map((data) => data.url), count: window.digestPagefind.results.length };
}"""
_EVERY = """async () => {
  const every = await Promise.all(window.digestPagefind.results.map((result) => result.data()));
  return every.map((data) => data.url);
}"""


@dataclass(frozen=True)
class PagefindRun:
    query: str
    first: tuple[str, ...]  # the URLs of the first five results
    results: int
    urls: tuple[str, ...]  # every result's URL (when asked)
    first_bytes: int  # index bytes fetched until the first five results' data
    code_bytes: int  # pagefind.js, its wasm and language files


def ensure_pagefind() -> Path:
    """The pagefind_extended binary, installed from the package index when missing."""
    try:
        module = importlib.import_module("pagefind_bin_extended")
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", PAGEFIND], check=True)
        importlib.invalidate_caches()
        module = importlib.import_module("pagefind_bin_extended")
    return Path(module.get_executable())


def index_site(site: Path) -> tuple[int, int]:
    """Indexes the site's commit pages into ``site/pagefind/``; returns its (bytes, files)."""
    binary = ensure_pagefind()
    command = [str(binary), "--site", str(site), "--glob", GLOB, "--root-selector", ROOT, "--silent"]
    subprocess.run(command, check=True)
    files = [path for path in (site / "pagefind").rglob("*") if path.is_file()]
    return sum(path.stat().st_size for path in files), len(files)


class PagefindClient:
    """Pagefind's JS API on a served site; each query in a fresh browser context (a cold cache)."""

    def __init__(self, browser: Any, url: str) -> None:
        self.browser = browser
        self.url = url

    def run(self, query: str, *, everything: bool = False) -> PagefindRun:
        context = self.browser.new_context()
        sizes: dict[str, int] = {}
        try:
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.on("requestfinished", lambda request: _note(sizes, request))
            page.goto(self.url + "404.html")
            found = page.evaluate(_FIRST, [query, FIRST_RESULTS])
            first = dict(sizes)  # Pagefind fetches from a worker too: the browser's own count
            urls = page.evaluate(_EVERY) if everything else []
        finally:
            context.close()
        index = sum(size for name, size in first.items() if not _is_code(name))
        code = sum(size for name, size in first.items() if _is_code(name))
        return PagefindRun(query, tuple(found["first"]), int(found["count"]), tuple(urls), index, code)


def _is_code(url: str) -> bool:
    name = url.split("?", 1)[0].rsplit("/", 1)[-1]
    return name.endswith(CODE_SUFFIXES) or name.startswith("wasm.")


def _note(sizes: dict[str, int], request: Any) -> None:
    if "/pagefind/" in request.url:
        sizes[request.url] = int(request.sizes()["responseBodySize"])


@contextmanager
def open_pagefind(site_dir: Path) -> Iterator[PagefindClient]:
    """Serves the site (indexed by ``index_site``) and starts headless chromium on it."""
    from playwright.sync_api import sync_playwright  # the benchmark's own dependency (dev extra)

    with serve(Path(site_dir)) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=FLAGS, headless=True)
        try:
            yield PagefindClient(browser, url)
        finally:
            browser.close()
