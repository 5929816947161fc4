"""Our search and Pagefind 1.5.2 side by side on the same built site (``benchmarks.search_recall
--against-pagefind``; not a test): the figures of issue 40's table, recall judged against the
commit pages' own text (each page's article, what Pagefind indexes), so neither engine's idea of a
document is the yardstick.
"""

from __future__ import annotations

import html
import re
import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from benchmarks.pagefind_client import index_site, open_pagefind
from benchmarks.search_client import QueryRun
from benchmarks.search_recall import (
    CHINESE_TERMS,
    ENGLISH_TERMS,
    NO_HIT_QUERIES,
    SYNONYM_GROUPS,
    TOP,
    KnownItemResult,
    kb,
)

from commit_digest.search.page import QUERY_SCRIPT, SCRIPT
from commit_digest.search.tokens import normalise

_ARTICLE = re.compile(r'<article class="md-content__inner[^"]*">(.*?)</article>', re.S)
# The page's own words around the commit's: section headings, table heads, field names ("兼容性：").
_LABELS = re.compile(r"<(h[2-6]|dt|th)\b[^>]*>.*?</\1>|<strong>[^<]*</strong>[：:]", re.S)
_TAG = re.compile(r"<[^>]+>")
_COMMIT_URL = re.compile(r"/([0-9a-f]{12})(?:/|\.html)")


def page_texts(site: Path) -> dict[str, str]:
    """Each commit page's article as normalised text, by its 12-digit sha (what Pagefind indexes),
    without the words every commit page has (headings, field names)."""
    texts: dict[str, str] = {}
    for page in (site / "commits").glob("*/index.html"):
        found = _ARTICLE.search(page.read_text(encoding="utf-8"))
        if found:
            article = _LABELS.sub(" ", found.group(1))
            texts[page.parent.name] = normalise(html.unescape(_TAG.sub(" ", article)))
    return texts


def folder_size(folder: Path, *, leave_out: str = "") -> tuple[int, int]:
    files = [path for path in folder.rglob("*") if path.is_file() and path.name != leave_out]
    return sum(path.stat().st_size for path in files), len(files)


def recall(found: Iterable[str], texts: Mapping[str, str], words: Sequence[str]) -> float:
    needles = [normalise(word) for word in words]
    expected = {sha for sha, text in texts.items() if any(needle in text for needle in needles)}
    return len(expected & set(found)) / len(expected) if expected else 1.0


def recall_cell(values: Sequence[float]) -> str:
    return f"{min(values):.1%} / {statistics.mean(values):.1%}" if values else "-"


def shas(urls: Iterable[str]) -> list[str]:
    return [found.group(1) for url in urls if (found := _COMMIT_URL.search(url))]


def against_pagefind(site: Path, client_runs: Mapping[str, QueryRun], known: Sequence[KnownItemResult]) -> None:
    """Indexes the site with Pagefind and prints both engines side by side (a Markdown table)."""
    texts = page_texts(site)
    started = time.perf_counter()
    pagefind_size, pagefind_files = index_site(site)
    print(f"Pagefind indexed {len(texts)} commit pages in {time.perf_counter() - started:.0f} s")
    ours_size, ours_files = folder_size(site / "search", leave_out="index.html")
    ours_code = sum((site / name).stat().st_size for name in (QUERY_SCRIPT, SCRIPT))
    exact_terms = [*CHINESE_TERMS, *ENGLISH_TERMS]
    groups = [(query, group) for group in SYNONYM_GROUPS for query in group]
    with open_pagefind(site) as pagefind:
        every = {
            query: pagefind.run(query, everything=True)
            for query in dict.fromkeys([*exact_terms, *(query for query, _group in groups)])
        }
        items = {result.item.query: pagefind.run(result.item.query) for result in known}
        no_hits = [pagefind.run(query) for query in NO_HIT_QUERIES]
    theirs_first = [run.first_bytes for run in [*every.values(), *items.values(), *no_hits]]
    ours_first = [run.first_bytes for run in client_runs.values()]
    theirs_known = sum(result.item.sha12 in shas(items[result.item.query].first)[:TOP] for result in known)
    rows = [
        ("index on disk (commit pages)", f"{kb(ours_size)} in {ours_files} files",
         f"{kb(pagefind_size)} in {pagefind_files} files"),
        ("code a query loads", kb(ours_code), kb(max(run.code_bytes for run in every.values()))),
        ("bytes until the first 5 results, median / max",
         f"{kb(int(statistics.median(ours_first)))} / {kb(max(ours_first))}",
         f"{kb(int(statistics.median(theirs_first)))} / {kb(max(theirs_first))}"),
        (f"known items in the top {TOP}", f"{sum(result.found for result in known)}/{len(known)}",
         f"{theirs_known}/{len(known)}"),
        ("recall of exact terms, lowest / mean",
         recall_cell([recall(client_runs[term].ids, texts, [term]) for term in exact_terms]),
         recall_cell([recall(shas(every[term].urls), texts, [term]) for term in exact_terms])),
        ("recall of synonym queries, lowest / mean",
         recall_cell([recall(client_runs[query].ids, texts, group) for query, group in groups]),
         recall_cell([recall(shas(every[query].urls), texts, group) for query, group in groups])),
        ("no-match queries, largest", kb(max(client_runs[query].first_bytes for query in NO_HIT_QUERIES)),
         kb(max(run.first_bytes for run in no_hits))),
    ]  # fmt: skip
    print(f"\n== ours / Pagefind 1.5.2: {len(texts)} commit pages ==")
    print("| | ours | Pagefind 1.5.2 |\n|---|---|---|")
    for name, ours, theirs in rows:
        print(f"| {name} | {ours} | {theirs} |")
    for query, group in groups:
        print(
            f"  {query!r}: ours {len(client_runs[query].ids)} results, recall"
            f" {recall(client_runs[query].ids, texts, group):.1%}; Pagefind {every[query].results},"
            f" recall {recall(shas(every[query].urls), texts, group):.1%}"
        )
