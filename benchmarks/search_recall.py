"""Recall and download size of the site's search, measured in headless chromium (not a test).

    .venv/bin/python -m benchmarks.search_recall --site site/ --cache cache/ [--repo OWNER/NAME]

For each term: opens the search page with ``?q=term`` in Debian's chromium (Playwright, never
``playwright install``), records the bytes the client fetched until the first results showed,
then asks the client for every match (``window.digestSearch``). Expected matches are counted by
plain substring (after NFKC and lowercasing, as the search normalises) over the texts given;
recall = expected commits found / expected commits.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from benchmarks.browser import CHROMIUM_FLAGS, chromium_path, serve

from commit_digest.search.tokens import normalise

CHINESE_TERMS = (
    "缓存", "显存", "量化", "内存", "算子", "内核", "调度", "并行", "推理", "精度",
    "注意力", "吞吐量", "兼容性", "专家路由", "张量并行", "前缀缓存", "投机解码", "数值精度",
    "FP8量化", "MoE层",
)  # fmt: skip
ENGLISH_TERMS = ("FlashInfer", "fused_moe", "MI300")
FLAGS = list(CHROMIUM_FLAGS)


@dataclass(frozen=True)
class TermResult:
    term: str
    results: int  # what the client found
    expected: int  # texts holding the term as a substring
    found_expected: int
    first_page_bytes: int  # fetched until the first results showed (manifest, shards, chunks)
    all_bytes: int  # fetched to list every match

    @property
    def recall(self) -> float:
        return self.found_expected / self.expected if self.expected else 1.0

    def __str__(self) -> str:
        return (
            f"{self.term:<12} recall {self.recall:6.1%} ({self.found_expected}/{self.expected})"
            f"  results {self.results:>5}  first page {self.first_page_bytes / 1024:7.1f} KB"
            f"  all {self.all_bytes / 1024:8.1f} KB"
        )


def chromium() -> str:
    found = chromium_path()
    if found is None:
        raise SystemExit("no chromium on this machine (apt-get install chromium, or set $CHROMIUM)")
    return str(found)


_WAIT = """(term) => {
  const list = document.querySelector('#digest-search-results');
  return list && list.hasAttribute('data-count') && list.getAttribute('data-query') === term;
}"""


def measure_queries(site_dir: Path, terms: Sequence[str], texts_by_sha: Mapping[str, str]) -> list[TermResult]:
    """Runs each term through the real client of the built site in ``site_dir``.

    ``texts_by_sha`` maps a commit's sha (full or 12 digits) to its text; a commit is expected
    when its text holds the term.
    """
    from playwright.sync_api import sync_playwright  # the benchmark's own dependency (dev extra)

    texts = {sha[:12]: normalise(text) for sha, text in texts_by_sha.items()}
    results: list[TermResult] = []
    with serve(Path(site_dir)) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=FLAGS, headless=True)
        try:
            for term in terms:
                context = browser.new_context()
                page = context.new_page()
                page.goto(url + "search/?q=" + quote(term))
                page.wait_for_function(_WAIT, arg=term, timeout=60_000)
                first_bytes = int(page.get_attribute("#digest-search-results", "data-bytes") or 0)
                everything = page.evaluate("(term) => digestSearch(term, {})", term)
                context.close()
                found = set(everything["ids"])
                needle = normalise(term)
                expected = {sha for sha, text in texts.items() if needle in text}
                results.append(
                    TermResult(
                        term=term,
                        results=len(found),
                        expected=len(expected),
                        found_expected=len(found & expected),
                        first_page_bytes=first_bytes,
                        all_bytes=int(everything["bytes"]),
                    )
                )
        finally:
            browser.close()
    return results


def store_texts(cache: Path, repository: str) -> dict[str, str]:
    """Each commit's searchable text, exactly as the index was built from it."""
    from zoneinfo import ZoneInfo

    from commit_digest.search import search_documents
    from commit_digest.site import build_index
    from commit_digest.store import AnalysisStore
    from commit_digest.taxonomy import load_taxonomy

    taxonomy = load_taxonomy()
    with AnalysisStore(cache) as store:
        records = list(store.records(repository))
    index = build_index(records, repository=repository, zone=ZoneInfo("UTC"), taxonomy=taxonomy)
    return {document.sha12: document.text for document in search_documents(index, taxonomy)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, required=True, help="a built site (with search/)")
    parser.add_argument("--cache", type=Path, required=True, help="the store the site was built from")
    parser.add_argument("--repo", default="vllm-project/vllm")
    parser.add_argument("--term", action="append", help="a term to measure instead of the built-in 23")
    args = parser.parse_args()
    texts = store_texts(args.cache, args.repo)
    terms = args.term or [*CHINESE_TERMS, *ENGLISH_TERMS]
    results = measure_queries(args.site, terms, texts)
    for result in results:
        print(result)
    measured = [result for result in results if result.expected]
    if measured:
        print(
            f"lowest recall {min(result.recall for result in measured):.1%} over {len(measured)} terms with matches;"
            f" largest first page {max(result.first_page_bytes for result in results) / 1024:.0f} KB"
        )


if __name__ == "__main__":
    main()
