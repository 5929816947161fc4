"""Recall, ranking and download size of the site's search, measured in headless chromium (not a test).

    .venv/bin/python -m benchmarks.search_recall --site site/ --cache cache/ [--repo OWNER/NAME] [--term T]
    .venv/bin/python -m benchmarks.search_recall --synthetic 15000 [--keep DIR] [--term T]

The first form measures a built site and the store it was built from; the second fills a store
with N synthetic commits (benchmarks/synthetic.py), builds the project's site from it
(``commit-digest build --strict``, as benchmarks/scale.py does) in a temporary folder, or in
DIR/nN with ``--keep``, and measures that.

Every query runs through the site's own client in a fresh context of headless chromium
(benchmarks/search_client.py): the bytes fetched until the first results showed (manifest
included), then every match, ranked.

- Terms (the built-in Chinese and English ones, or each ``--term``): expected matches are counted
  by plain substring (after NFKC and lowercasing, as the search normalises) over each commit's
  searchable text; recall = expected commits found / expected commits.
- Known items (unless ``--term`` is given): a seeded sample of commits, each looked for by its
  sha's first 8 digits, its ``#PR`` number, its exact title and its title's rarest word (of four
  characters or more, held by the fewest commits' texts); the target's rank among the matches
  gives each kind's mean reciprocal rank and its share found first.
- No-hit queries (unless ``--term``): nonsense the filter files should rule out everywhere.

The summary compares the figures with issue 15's limits: recall of Chinese and of English
terms >= 95%, the first results of every query after <= 2 MB downloaded.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks.search_client import QueryRun, open_client
from benchmarks.steps import run_step, write_project

from commit_digest.models import Commit
from commit_digest.search.tokens import is_cjk, normalise, runs

CHINESE_TERMS = (
    "缓存", "显存", "量化", "内存", "算子", "内核", "调度", "并行", "推理", "精度",
    "注意力", "吞吐量", "兼容性", "专家路由", "张量并行", "前缀缓存", "投机解码", "数值精度",
    "FP8量化", "MoE层",
)  # fmt: skip
ENGLISH_TERMS = ("FlashInfer", "fused_moe", "MI300")
NO_HIT_QUERIES = ("quokkaplatypus", "鸭嘴兽量子", "zzqx 不存在的词")
SHA, PULL_REQUEST, TITLE, RAREST_WORD = "sha8", "#PR", "title", "rarest word"
RARE_TITLES = 3  # a title's rarest word is a known-item query when at most this many titles hold it
KINDS = (SHA, PULL_REQUEST, TITLE, RAREST_WORD)
SAMPLE_SIZE = 40  # commits looked for as known items
SAMPLE_SEED = 15
SHORTEST_WORD = 4  # characters of a title word worth searching for alone
RECALL_TARGET = 0.95
FIRST_PAGE_LIMIT = 2 * 1024 * 1024
_PULL_REQUEST_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")


# ---- results -----------------------------------------------------------------------------------


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

    @property
    def chinese(self) -> bool:
        return any(is_cjk(char) for char in self.term)

    def __str__(self) -> str:
        return (
            f"{self.term:<12} recall {self.recall:6.1%} ({self.found_expected}/{self.expected})"
            f"  results {self.results:>5}  first page {kb(self.first_page_bytes):>9}  all {kb(self.all_bytes):>9}"
        )


@dataclass(frozen=True)
class KnownItem:
    kind: str  # one of KINDS
    query: str
    sha12: str  # the commit the query should find first
    titles_holding: int  # commits whose title holds the query: more than one, and the target may tie


@dataclass(frozen=True)
class KnownItemResult:
    item: KnownItem
    rank: int | None  # 1 = first; None when the target is not among the matches
    results: int
    first_page_bytes: int

    @property
    def reciprocal_rank(self) -> float:
        return 1 / self.rank if self.rank else 0.0

    def __str__(self) -> str:
        where = f"rank {self.rank}" if self.rank else "not found"
        return (
            f"{self.item.kind:<12} {self.item.query!r}: {where} of {self.results}"
            f" ({self.item.titles_holding} titles hold it; target {self.item.sha12})"
        )


@dataclass(frozen=True)
class KindSummary:
    kind: str
    queries: int
    mean_reciprocal_rank: float
    first: int  # queries whose target ranked first
    largest_first_page: int
    largest_query: str
    median_titles_holding: int

    def __str__(self) -> str:
        return (
            f"  {self.kind:<12} MRR {self.mean_reciprocal_rank:5.3f}  rank 1 {self.first / self.queries:6.1%}"
            f" ({self.first}/{self.queries})  largest first page {kb(self.largest_first_page):>9}"
            f" ({self.largest_query!r})  median titles holding the query {self.median_titles_holding}"
        )


def kb(size: int) -> str:
    return f"{size / 1024:.1f} KB"


# ---- terms: recall -------------------------------------------------------------------------------


def term_result(run: QueryRun, texts: Mapping[str, str]) -> TermResult:
    """``texts``: each commit's normalised searchable text by its 12-digit sha."""
    needle = normalise(run.query)
    expected = {sha for sha, text in texts.items() if needle in text}
    found = set(run.ids)
    return TermResult(
        term=run.query,
        results=len(found),
        expected=len(expected),
        found_expected=len(found & expected),
        first_page_bytes=run.first_page_bytes,
        all_bytes=run.all_bytes,
    )


def normalised_texts(texts_by_sha: Mapping[str, str]) -> dict[str, str]:
    return {sha[:12]: normalise(text) for sha, text in texts_by_sha.items()}


# ---- known items: ranking ------------------------------------------------------------------------


class WordCounts:
    """How many commits' texts hold a word as a substring (each word counted once)."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.texts = list(texts)
        self.counts: dict[str, int] = {}

    def __call__(self, word: str) -> int:
        if word not in self.counts:
            self.counts[word] = sum(word in text for text in self.texts)
        return self.counts[word]


def rarest_word(title: str, counts: WordCounts) -> str | None:
    """The title's word (a run of SHORTEST_WORD characters or more, the "(#123)" left out) held
    by the fewest commits; the first such word on a tie."""
    words = [run.text for run in runs(normalise(_PULL_REQUEST_SUFFIX.sub("", title)))]
    words = [word for word in dict.fromkeys(words) if len(word) >= SHORTEST_WORD]
    return min(words, key=counts) if words else None


def known_items(commits: Sequence[Commit], texts: Mapping[str, str], size: int, seed: int) -> list[KnownItem]:
    """For a seeded sample of ``size`` commits: the four queries that should find each first."""
    indexed = sorted((commit for commit in commits if commit.sha[:12] in texts), key=lambda commit: commit.sha)
    counts = WordCounts(texts.values())
    titles = WordCounts(normalise(commit.title) for commit in indexed)
    queries: list[tuple[str, str, str]] = []
    for commit in random.Random(seed).sample(indexed, min(size, len(indexed))):
        sha12 = commit.sha[:12]
        queries.append((SHA, commit.sha[:8], sha12))
        if commit.pr_number is not None:
            queries.append((PULL_REQUEST, f"#{commit.pr_number}", sha12))
        queries.append((TITLE, commit.title, sha12))
        word = rarest_word(commit.title, counts)
        # A known item only when the word is rare among titles: a word in hundreds of titles
        # (the synthetic archive's small vocabulary) ties the target with all of them.
        if word is not None and titles(word) <= RARE_TITLES:
            queries.append((RAREST_WORD, word, sha12))
    return [KnownItem(kind, query, sha12, titles(normalise(query))) for kind, query, sha12 in queries]


def known_item_result(item: KnownItem, run: QueryRun) -> KnownItemResult:
    rank = run.ids.index(item.sha12) + 1 if item.sha12 in run.ids else None
    return KnownItemResult(item, rank, len(run.ids), run.first_page_bytes)


def summarise_kind(kind: str, results: Sequence[KnownItemResult]) -> KindSummary:
    largest = max(results, key=lambda result: result.first_page_bytes)
    return KindSummary(
        kind=kind,
        queries=len(results),
        mean_reciprocal_rank=sum(result.reciprocal_rank for result in results) / len(results),
        first=sum(result.rank == 1 for result in results),
        largest_first_page=largest.first_page_bytes,
        largest_query=largest.item.query,
        median_titles_holding=int(statistics.median(result.item.titles_holding for result in results)),
    )


# ---- the archive and its site --------------------------------------------------------------------


@dataclass(frozen=True)
class Archive:
    commits: tuple[Commit, ...]
    texts: dict[str, str]  # each commit's normalised searchable text, by its 12-digit sha


def load_archive(cache: Path, repository: str) -> Archive:
    """The store's commits and their searchable texts, exactly as the index was built from them."""
    from zoneinfo import ZoneInfo

    from commit_digest.meaning.taxonomy import load_taxonomy
    from commit_digest.search import search_documents
    from commit_digest.site.model.index import build_index
    from commit_digest.store.analysis_store import AnalysisStore

    taxonomy = load_taxonomy()
    with AnalysisStore(cache) as store:
        records = list(store.records(repository))
    index = build_index(records, repository=repository, zone=ZoneInfo("UTC"), taxonomy=taxonomy)
    texts = {document.sha12: normalise(document.text) for document in search_documents(index, taxonomy)}
    return Archive(tuple(record.commit for record in records), texts)


def build_synthetic(n: int, work: Path) -> tuple[Path, Path]:
    """Fills a store with ``n`` synthetic commits and builds the project's site from it, in
    ``work`` (emptied first); returns the site and the store."""
    from benchmarks.synthetic import fill_store

    shutil.rmtree(work, ignore_errors=True)
    cache, project = work / "cache", work / "project"
    fill_store(cache, n)
    config = write_project(project)
    site = project / "site"
    command = [sys.executable, "-m", "commit_digest.cli", "build", "-f", str(config), "--cache", str(cache)]
    step = run_step("build", [*command, "--site-dir", str(site), "--strict"], project)
    print(f"built the site of {n} synthetic commits in {step.seconds:.0f} s ({work})", flush=True)
    return site, cache


@contextmanager
def site_and_store(args: argparse.Namespace) -> Iterator[tuple[Path, Path]]:
    """The site and store to measure: the ones given, or a synthetic archive built for the run."""
    if args.synthetic is None:
        yield args.site, args.cache
        return
    if args.keep is not None:
        yield build_synthetic(args.synthetic, args.keep / f"n{args.synthetic}")
        return
    with tempfile.TemporaryDirectory(prefix="digest-recall-") as work:
        yield build_synthetic(args.synthetic, Path(work))


# ---- report ---------------------------------------------------------------------------------------


def met(ok: bool) -> str:
    return "met" if ok else "MISSED"


def recall_line(language: str, results: Sequence[TermResult]) -> str:
    measured = [result for result in results if result.expected]
    if not measured:
        return f"{language} recall: no term with matches"
    lowest = min(measured, key=lambda result: result.recall)
    return (
        f"{language} recall: lowest {lowest.recall:.1%} ({lowest.term!r}) over {len(measured)} terms with matches"
        f" - target >= {RECALL_TARGET:.0%}: {met(lowest.recall >= RECALL_TARGET)}"
    )


def first_pages(
    terms: Sequence[TermResult], known: Sequence[KnownItemResult], no_hits: Sequence[QueryRun]
) -> list[tuple[int, str]]:
    """The bytes every query fetched before its first results, and the query, most first."""
    pages = [(result.first_page_bytes, f"term {result.term!r}") for result in terms]
    pages += [(result.first_page_bytes, f"{result.item.kind} {result.item.query!r}") for result in known]
    pages += [(run.first_page_bytes, f"no-hit {run.query!r}") for run in no_hits]
    return sorted(pages, reverse=True)


def report(
    commits: int, terms: Sequence[TermResult], known: Sequence[KnownItemResult], no_hits: Sequence[QueryRun]
) -> None:
    for result in terms:
        print(result)
    for run in no_hits:
        print(f"no hit {run.query!r}: {len(run.ids)} results, first page {kb(run.first_page_bytes)}")
    misses = [result for result in known if result.rank != 1]
    if known:
        print(f"known items not ranked first: {len(misses)} of {len(known)}")
    for result in misses:
        print(f"  {result}")
    print(f"\n== summary: {commits} commits ==")
    print(recall_line("Chinese", [result for result in terms if result.chinese]))
    print(recall_line("English", [result for result in terms if not result.chinese]))
    pages = first_pages(terms, known, no_hits)
    worst, query = pages[0]
    print(
        f"worst first page {kb(worst)} ({query}) = {worst / FIRST_PAGE_LIMIT:.2f} x the 2 MB limit:"
        f" {met(worst <= FIRST_PAGE_LIMIT)}"
    )
    over = [(size, query) for size, query in pages if size > FIRST_PAGE_LIMIT]
    print(f"queries over the 2 MB limit: {len(over)} of {len(pages)}")
    for size, query in over:
        print(f"  {kb(size):>9}  {query}")
    if no_hits:
        print(f"no-hit queries: largest first page {kb(max(run.first_page_bytes for run in no_hits))}")
    if known:
        print(f"known items ({len({result.item.sha12 for result in known})} commits, seed {SAMPLE_SEED}):")
    for kind in KINDS:
        of_kind = [result for result in known if result.item.kind == kind]
        if of_kind:
            print(summarise_kind(kind, of_kind))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, help="a built site (with search/)")
    parser.add_argument("--cache", type=Path, help="the store the site was built from")
    parser.add_argument("--synthetic", type=int, metavar="N", help="build a synthetic archive of N commits instead")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="with --synthetic: build in DIR/nN and keep it")
    parser.add_argument("--repo", default="vllm-project/vllm")
    parser.add_argument(
        "--term",
        action="append",
        help="measure this term (repeatable) instead of the built-in 23, known items, no-hits",
    )
    args = parser.parse_args()
    if args.synthetic is None and (args.site is None or args.cache is None):
        parser.error("give --site and --cache, or --synthetic N")
    with site_and_store(args) as (site, cache):
        archive = load_archive(cache, args.repo)
        terms = args.term or [*CHINESE_TERMS, *ENGLISH_TERMS]
        items = [] if args.term else known_items(archive.commits, archive.texts, SAMPLE_SIZE, SAMPLE_SEED)
        no_hits = [] if args.term else list(NO_HIT_QUERIES)
        with open_client(site) as client:
            term_results = [term_result(client.run(term), archive.texts) for term in terms]
            known = [known_item_result(item, client.run(item.query)) for item in items]
            no_hit_runs = [client.run(query) for query in no_hits]
    report(len(archive.texts), term_results, known, no_hit_runs)


if __name__ == "__main__":
    main()
