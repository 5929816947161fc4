"""Recall, ranking and download size of the site's search, measured in headless chromium (not a test).

    .venv/bin/python -m benchmarks.search_recall --site site/ --cache cache/ [--repo OWNER/NAME] [--term T]
    .venv/bin/python -m benchmarks.search_recall --synthetic 15000 [--keep DIR] [--term T]
    .venv/bin/python -m benchmarks.search_recall --synthetic 6000 --against-pagefind

The first form measures a built site and the store it was built from; the second fills a store
with N synthetic commits (benchmarks/synthetic.py), builds the project's site from it
(``commit-digest build --strict``, as benchmarks/scale.py does) in a temporary folder, or in
DIR/nN with ``--keep``, and measures that.

Every query runs through the site's own client in a fresh context of headless chromium
(benchmarks/search_client.py): the bytes fetched until the header box's first five results
(``digestSearchFirst(q, 5)``, manifest included) and until the search page's first 20 (with
excerpts), then every match, ranked.

- Terms (the built-in Chinese and English ones, or each ``--term``): expected matches are counted
  by plain substring (after NFKC and lowercasing, as the search normalises) over each commit's
  searchable text; recall = expected commits found / expected commits.
- Known items (unless ``--term`` is given): 30 commits spread over the archive, from its oldest
  commit to its newest, each looked for by its sha's first 8 digits, its ``#PR``, its title whole,
  without its "(#PR)", without its tags too, and its distinctive words (its rarest title words,
  rarest first, until at most three titles hold them all). A title query that more than three
  titles answer as well names no one commit and is left out (the synthetic archive's titles come
  from a small vocabulary). Found = among the first three of the first results.
- Topics (unless ``--term``): the first five results of ROCm, fused_moe, 量化 and 推测解码 with their
  days, to show how relevance and recency order them.
- No-hit queries (unless ``--term``): nonsense the filter files should rule out everywhere.

``--against-pagefind`` also indexes the site's commit pages with Pagefind 1.5.2 (installed with
pip when missing: benchmarks/pagefind_client.py) and prints both engines side by side: index on
disk, code, bytes until the first five results, known items in the top 3, and recall of the exact
terms and of synonym queries, both judged against the commit pages' own text.

The summary gives the median and largest bytes until the first results, and compares the figures
with issue 15's limits: recall of Chinese and of English terms >= 95%, the search page's first
results after <= 2 MB downloaded.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks.search_client import QueryRun, open_client
from benchmarks.steps import run_step, write_project

from commit_digest.models import Commit
from commit_digest.search.titles import title_tokens
from commit_digest.search.tokens import is_cjk, normalise

CHINESE_TERMS = (
    "缓存", "显存", "量化", "内存", "算子", "内核", "调度", "并行", "推理", "精度",
    "注意力", "吞吐量", "兼容性", "专家路由", "张量并行", "前缀缓存", "投机解码", "数值精度",
    "FP8量化", "MoE层",
)  # fmt: skip
ENGLISH_TERMS = ("FlashInfer", "fused_moe", "MI300")
NO_HIT_QUERIES = ("quokkaplatypus", "鸭嘴兽量子", "zzqx 不存在的词")
# Each query of a group should find the pages holding any of the group's words (--against-pagefind).
SYNONYM_GROUPS = (("投机解码", "推测解码", "speculative decoding"), ("注意力", "attention"), ("量化", "quantization"))
# Topics whose first results show how relevance and recency share the order.
TOPICS = ("ROCm", "fused_moe", "量化", "推测解码")
SHA, PULL_REQUEST, TITLE, BARE_TITLE, UNTAGGED_TITLE, WORDS = (
    "sha8", "#PR", "title", "title, no (#PR)", "title, no tags", "distinctive words",
)  # fmt: skip
KINDS = (SHA, PULL_REQUEST, TITLE, BARE_TITLE, UNTAGGED_TITLE, WORDS)
AMBIGUOUS = 3  # a title query that more titles answer as well names no one commit: left out
TOP = 3  # a known item is found when it is among the first TOP results
SAMPLE_SIZE = 30  # commits looked for as known items, spread from the oldest to the newest
SAMPLE_SEED = 15
RECALL_TARGET = 0.95
FIRST_PAGE_LIMIT = 2 * 1024 * 1024
_PULL_REQUEST_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
_TAGS = re.compile(r"^(\[[^\]]*\]\s*)+")


# ---- results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TermResult:
    term: str
    results: int  # what the client found
    expected: int  # texts holding the term as a substring
    found_expected: int
    first_page_bytes: int  # fetched until the search page showed its first 20, with excerpts
    all_bytes: int  # fetched to list every match
    first_bytes: int = 0  # fetched for the header box's first five results (digestSearchFirst)

    @property
    def recall(self) -> float:
        return self.found_expected / self.expected if self.expected else 1.0

    @property
    def chinese(self) -> bool:
        return any(is_cjk(char) for char in self.term)

    def __str__(self) -> str:
        return (
            f"{self.term:<12} recall {self.recall:6.1%} ({self.found_expected}/{self.expected})"
            f"  results {self.results:>5}  first 5 {kb(self.first_bytes):>9}  page {kb(self.first_page_bytes):>9}"
            f"  all {kb(self.all_bytes):>9}"
        )


@dataclass(frozen=True)
class KnownItem:
    kind: str  # one of KINDS
    query: str
    sha12: str  # the commit the query should find first
    day: str  # the commit's day
    titles_holding: int  # commits whose title answers the query as well (1: only the target)


@dataclass(frozen=True)
class KnownItemResult:
    item: KnownItem
    first_rank: int | None  # the target's place in the first results (digestSearchFirst, 5)
    rank: int | None  # 1 = first among every match; None when the target is not among them
    results: int
    first_bytes: int  # fetched for the first results

    @property
    def reciprocal_rank(self) -> float:
        return 1 / self.rank if self.rank else 0.0

    @property
    def found(self) -> bool:
        return self.first_rank is not None and self.first_rank <= TOP

    def __str__(self) -> str:
        where = f"first results #{self.first_rank}" if self.first_rank else "not in the first results"
        return (
            f"{self.item.kind:<18} {self.item.query!r} ({self.item.day}): {where}, rank {self.rank} of"
            f" {self.results} ({self.item.titles_holding} titles answer it; target {self.item.sha12})"
        )


@dataclass(frozen=True)
class KindSummary:
    kind: str
    queries: int
    mean_reciprocal_rank: float
    top: int  # queries whose target was among the first TOP results
    median_first_bytes: int
    largest_first_bytes: int
    largest_query: str

    def __str__(self) -> str:
        return (
            f"  {self.kind:<18} top {TOP} of the first results {self.top}/{self.queries}"
            f"  MRR {self.mean_reciprocal_rank:5.3f}  median {kb(self.median_first_bytes):>9}"
            f"  largest {kb(self.largest_first_bytes):>9} ({self.largest_query!r})"
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
        first_bytes=run.first_bytes,
    )


def normalised_texts(texts_by_sha: Mapping[str, str]) -> dict[str, str]:
    return {sha[:12]: normalise(text) for sha, text in texts_by_sha.items()}


# ---- known items: ranking ------------------------------------------------------------------------


def bare(title: str) -> str:
    return _PULL_REQUEST_SUFFIX.sub("", title)


def untagged(title: str) -> str:
    return _TAGS.sub("", bare(title))


def spread(commits: Sequence[Commit], size: int, seed: int) -> list[Commit]:
    """``size`` commits from the oldest to the newest, evenly spaced in time order (each moved
    at random within its step, the oldest and the newest kept)."""
    ordered = sorted(commits, key=lambda commit: (commit.committed_at, commit.sha))
    if len(ordered) <= size:
        return ordered
    rng = random.Random(seed)
    step = (len(ordered) - 1) / (size - 1)
    chosen = [ordered[0], ordered[-1]]
    for i in range(1, size - 1):
        chosen.append(ordered[min(len(ordered) - 2, int(i * step + rng.random() * step / 2))])
    return sorted(set(chosen), key=lambda commit: commit.committed_at)


def distinctive_words(title: str, holders: Mapping[str, set[int]]) -> tuple[str, int] | None:
    """The title's rarest words (its tags left out), in the title's order, added rarest first
    until at most AMBIGUOUS titles (tags included) hold them all, and how many do; None when the
    whole title is not that rare."""
    words = list(dict.fromkeys(title_tokens(untagged(title))))
    held: set[int] | None = None
    chosen: list[str] = []
    for word in sorted(words, key=lambda word: len(holders.get(word, ()))):
        chosen.append(word)
        held = set(holders.get(word, set())) if held is None else held & holders.get(word, set())
        if len(held) <= AMBIGUOUS:
            return " ".join(word for word in words if word in chosen), len(held)
    return None


def known_items(commits: Sequence[Commit], texts: Mapping[str, str], size: int, seed: int) -> list[KnownItem]:
    """For ``size`` commits spread over the archive: a sha prefix, its #PR, its title whole,
    without its "(#PR)", without its tags, and its distinctive words; a title query that more
    than AMBIGUOUS titles answer as well is left out (it names no one commit)."""
    indexed = [commit for commit in commits if commit.sha[:12] in texts]
    holders: dict[str, set[int]] = {}
    for number, commit in enumerate(indexed):
        for token in set(title_tokens(bare(commit.title))):  # the tags are title words too
            holders.setdefault(token, set()).add(number)
    same_bare = Counter(normalise(bare(commit.title)) for commit in indexed)
    same_untagged = Counter(normalise(untagged(commit.title)) for commit in indexed)
    items: list[KnownItem] = []
    for commit in spread(indexed, size, seed):
        sha12, day = commit.sha[:12], commit.committed_at.date().isoformat()

        def item(kind: str, query: str, holding: int, sha12: str = sha12, day: str = day) -> KnownItem:
            return KnownItem(kind, query, sha12, day, holding)

        items.append(item(SHA, commit.sha[:8], 1))
        if commit.pr_number is not None:
            items.append(item(PULL_REQUEST, f"#{commit.pr_number}", 1))
        items.append(item(TITLE, commit.title, 1))
        for kind, query, holding in (
            (BARE_TITLE, bare(commit.title), same_bare[normalise(bare(commit.title))]),
            (UNTAGGED_TITLE, untagged(commit.title), same_untagged[normalise(untagged(commit.title))]),
        ):
            if holding <= AMBIGUOUS:
                items.append(item(kind, query, holding))
        words = distinctive_words(commit.title, holders)
        if words is not None:
            items.append(item(WORDS, *words))
    return items


def known_item_result(item: KnownItem, run: QueryRun) -> KnownItemResult:
    rank = run.ids.index(item.sha12) + 1 if item.sha12 in run.ids else None
    first = [sha for sha, _day, _title in run.first]
    first_rank = first.index(item.sha12) + 1 if item.sha12 in first else None
    return KnownItemResult(item, first_rank, rank, len(run.ids), run.first_bytes)


def summarise_kind(kind: str, results: Sequence[KnownItemResult]) -> KindSummary:
    largest = max(results, key=lambda result: result.first_bytes)
    return KindSummary(
        kind=kind,
        queries=len(results),
        mean_reciprocal_rank=sum(result.reciprocal_rank for result in results) / len(results),
        top=sum(result.found for result in results),
        median_first_bytes=int(statistics.median(result.first_bytes for result in results)),
        largest_first_bytes=largest.first_bytes,
        largest_query=largest.item.query,
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
    """The bytes every query fetched before the header box's first results, and the query, most first."""
    pages = [(result.first_bytes, f"term {result.term!r}") for result in terms]
    pages += [(result.first_bytes, f"{result.item.kind} {result.item.query!r}") for result in known]
    pages += [(run.first_bytes, f"no-hit {run.query!r}") for run in no_hits]
    return sorted(pages, reverse=True)


def topic_lines(run: QueryRun) -> list[str]:
    """A topic's first results: day and title, and how many days they span."""
    days = sorted({day for _sha, day, _title in run.first})
    lines = [
        f"{run.query!r}: first {len(run.first)} of {len(run.ids)} from {days[0] if days else '-'} to"
        f" {days[-1] if days else '-'} ({len(days)} days)"
    ]
    lines += [f"    {day}  {title}" for _sha, day, title in run.first]
    return lines


def report(
    commits: int,
    terms: Sequence[TermResult],
    known: Sequence[KnownItemResult],
    no_hits: Sequence[QueryRun],
    topics: Sequence[QueryRun] = (),
) -> None:
    for result in terms:
        print(result)
    for run in no_hits:
        print(f"no hit {run.query!r}: {len(run.ids)} results, first 5 {kb(run.first_bytes)}")
    misses = [result for result in known if not result.found]
    if known:
        print(f"known items not in the top {TOP} of the first results: {len(misses)} of {len(known)}")
    for result in misses:
        print(f"  {result}")
    for run in topics:
        print("\n".join(topic_lines(run)))
    print(f"\n== summary: {commits} commits ==")
    print(recall_line("Chinese", [result for result in terms if result.chinese]))
    print(recall_line("English", [result for result in terms if not result.chinese]))
    pages = first_pages(terms, known, no_hits)
    worst, query = pages[0]
    print(
        f"bytes until the first 5 results: median {kb(int(statistics.median(size for size, _ in pages)))},"
        f" largest {kb(worst)} ({query}), over {len(pages)} queries"
    )
    page_sizes = [result.first_page_bytes for result in terms] + [run.first_page_bytes for run in no_hits]
    if page_sizes:
        largest_page = max(page_sizes)
        print(
            f"search page, first 20 with excerpts: median {kb(int(statistics.median(page_sizes)))},"
            f" largest {kb(largest_page)} = {largest_page / FIRST_PAGE_LIMIT:.2f} x the 2 MB limit:"
            f" {met(largest_page <= FIRST_PAGE_LIMIT)}"
        )
    if no_hits:
        print(f"no-hit queries: largest {kb(max(run.first_bytes for run in no_hits))}")
    if known:
        found = sum(result.found for result in known)
        print(
            f"known items ({len({result.item.sha12 for result in known})} commits from the oldest to the newest,"
            f" seed {SAMPLE_SEED}): {found}/{len(known)} in the top {TOP} of the first results"
        )
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
    parser.add_argument(
        "--against-pagefind", action="store_true", help="also index the site with Pagefind 1.5.2 and compare"
    )
    args = parser.parse_args()
    if args.synthetic is None and (args.site is None or args.cache is None):
        parser.error("give --site and --cache, or --synthetic N")
    with site_and_store(args) as (site, cache):
        archive = load_archive(cache, args.repo)
        terms = args.term or [*CHINESE_TERMS, *ENGLISH_TERMS]
        items = [] if args.term else known_items(archive.commits, archive.texts, SAMPLE_SIZE, SAMPLE_SEED)
        no_hits = [] if args.term else list(NO_HIT_QUERIES)
        extra = [query for group in SYNONYM_GROUPS for query in group] if args.against_pagefind else []
        with open_client(site) as client:
            queries = dict.fromkeys([*terms, *([] if args.term else TOPICS), *extra, *no_hits])
            runs = {query: client.run(query) for query in queries}
            term_results = [term_result(runs[term], archive.texts) for term in terms]
            known_runs = {item.query: client.run(item.query) for item in items}
            known = [known_item_result(item, known_runs[item.query]) for item in items]
            no_hit_runs = [runs[query] for query in no_hits]
        topics = [] if args.term else [runs[topic] for topic in TOPICS]
        report(len(archive.texts), term_results, known, no_hit_runs, topics)
        if args.against_pagefind:
            from benchmarks.search_versus_pagefind import against_pagefind

            measured = {**{query: runs[query] for query in [*terms, *no_hits]}, **known_runs}
            against_pagefind(site, {**measured, **{query: runs[query] for query in extra}}, known)


if __name__ == "__main__":
    main()
