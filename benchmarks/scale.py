"""Build time, memory and page sizes of the site at archive scale (not a test; run by hand).

    .venv/bin/python -m benchmarks.scale --n 2000 [--n 8000 --n 15000] [--keep DIR] [--no-reference]
                                         [--languages zh,en]

For each N: fills a store with the synthetic archive (benchmarks/synthetic.py), builds our site
from it with ``commit-digest build --strict``, and builds the reference — the same day and commit
pages as plain Markdown (benchmarks/reference_docs.py) under stock mkdocs-material with its
built-in search and jieba. When Debian's ``hugo`` is installed, the same Markdown pages are also
built by Hugo (benchmarks/hugo_reference.py writes the Hugo site; ``hugo`` alone is timed), the
fastest static site generator in common use. Every step runs as its own process; its peak RSS
comes from wait4.
Prints wall time, pages per second, peak memory per process, site bytes, the largest page, what
a browser downloads for the home page (headless chromium against a byte-counting local server),
the bytes one Chinese and one English query download (benchmarks/search_client.py; a query that
fails prints what failed, and the rest still prints), and the ratios of our build time to the
references' — the figures that count (targets: at most 0.30 of mkdocs-material's time, at most 4
times Hugo's). Then, with or without the references, our site's bytes, files and HTML pages per
language and whole, per commit, the commit count at which the site reaches GitHub Pages' 1 GB
(10**9 bytes), and each language's bytes by top-level folder (benchmarks/site_bytes.py); between
two sizes, the bytes each further commit adds.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import yaml
from benchmarks.browser import chromium_path
from benchmarks.hugo_reference import hugo_available
from benchmarks.search_client import QueryFailed, open_client
from benchmarks.search_recall import normalised_texts, term_result
from benchmarks.site_bytes import SiteBytes, configured_languages, measure_site, report_marginal, report_site
from benchmarks.steps import PROJECT, Step, run_step, write_project

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.search.documents import search_text
from commit_digest.store.analysis_store import AnalysisStore

PAGE_LIMIT = 150 * 1024
QUERIES = ("专家路由", "FlashInfer")  # one Chinese, one English term the synthetic text uses
REFERENCE_CONFIG = {
    "site_name": "reference",
    "site_url": "https://reference.example.org/",
    "theme": {"name": "material", "language": "zh", "features": ["search.suggest", "search.highlight"]},
    "markdown_extensions": ["tables", {"toc": {"permalink": True}}],
    "plugins": [{"search": {"lang": ["zh", "en"], "separator": "[\\s\\u200b\\-]"}}],
    # A small nav, as ours: day and commit pages are reached through links.
    "nav": ["index.md"],
    "not_in_nav": "days/\ncommits/\n",
}


@dataclass
class Result:
    n: int
    steps: list[Step] = field(default_factory=list)
    figures: dict[str, object] = field(default_factory=dict)
    site: SiteBytes | None = None  # our cold build's bytes by language and folder


def site_sizes(site: Path, generated: tuple[str, ...]) -> dict[str, object]:
    total = 0
    largest, largest_name, over = 0, "", 0
    html_pages = 0
    for path in site.rglob("*"):
        if not path.is_file():
            continue
        size = path.stat().st_size
        total += size
        if path.suffix == ".html":
            html_pages += 1
            name = str(path.relative_to(site))
            if name.startswith(generated) or name == "index.html":
                over += size > PAGE_LIMIT
                if size > largest:
                    largest, largest_name = size, name
    return {
        "html_pages": html_pages,
        "site_bytes": total,
        "largest_page": f"{largest_name} ({largest / 1024:.0f} KB)",
        "pages_over_150KB": over,
    }


class _CountingHandler(SimpleHTTPRequestHandler):
    counted: list[int]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def copyfile(self, source, outputfile) -> None:
        data = source.read()
        self.counted.append(len(data))
        outputfile.write(data)


def home_page_bytes(site: Path) -> str:
    """Bytes headless chromium downloads from the site for the home page (HTML, CSS, JS, fonts,
    status.json); requests to other hosts (web fonts) fail offline and are not counted."""
    chromium = chromium_path()
    if chromium is None:
        return "no chromium on this machine; no figure"
    counted: list[int] = []
    handler = type("Handler", (_CountingHandler,), {"counted": counted})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with tempfile.TemporaryDirectory() as profile:
            subprocess.run(
                [
                    chromium,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-component-update",
                    f"--user-data-dir={profile}",
                    "--virtual-time-budget=5000",
                    "--dump-dom",
                    f"http://127.0.0.1:{server.server_address[1]}/",
                ],
                check=True,
                capture_output=True,
                timeout=120,
            )
    except subprocess.CalledProcessError as error:
        return f"FAILED: chromium exited with {error.returncode}: {error.stderr.decode(errors='replace')[-300:]}"
    except subprocess.TimeoutExpired:
        return "FAILED: chromium did not finish the home page in 120 s"
    finally:
        server.shutdown()
    return f"{sum(counted) / 1024:.0f} KB in {len(counted)} files"


def query_bytes(site: Path, cache: Path) -> str:
    """What one Chinese and one English query download; a query that fails says what failed and
    the other is still measured."""
    if chromium_path() is None:
        return "no chromium on this machine; no figure"
    from playwright.sync_api import Error as PlaywrightError  # the benchmark's own dependency (dev extra)

    taxonomy = load_taxonomy()
    with AnalysisStore(cache) as store:
        texts = normalised_texts({record.commit.sha: search_text(record, taxonomy) for record in store.records()})
    figures = []
    try:
        with open_client(site) as client:
            for term in QUERIES:
                try:
                    found = term_result(client.run(term), texts)
                except QueryFailed as failure:
                    figures.append(f"FAILED: {failure}")
                    continue
                figures.append(
                    f"{found.term!r}: first results {found.first_page_bytes / 1024:.0f} KB, all {found.results} "
                    f"matches {found.all_bytes / 1024:.0f} KB (recall {found.found_expected}/{found.expected})"
                )
    except PlaywrightError as error:
        figures.append(f"FAILED: the browser: {error.message.splitlines()[0]}")
    return "; ".join(figures)


def measure(n: int, work: Path, *, seed: int, reference: bool, languages: tuple[str, ...] = ()) -> Result:
    result = Result(n)
    python = sys.executable
    cache = work / "cache"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    result.steps.append(
        run_step(
            "generate store",
            [python, "-m", "benchmarks.synthetic", "--n", str(n), "--seed", str(seed), "--cache", str(cache)],
            PROJECT,
        )
    )
    ours = work / "ours"
    config = write_project(ours, languages)
    build_command = [
        python,
        "-m",
        "commit_digest.cli",
        "build",
        "-f",
        str(config),
        "--cache",
        str(cache),
        "--site-dir",
        str(ours / "site"),
        "--strict",
    ]
    build = run_step("our build (cold)", build_command, ours)
    result.steps.append(build)
    sizes = site_sizes(ours / "site", ("days/", "commits/", "archive/", "platforms/", "subsystems/"))
    result.site = measure_site(ours / "site", configured_languages(config), n)
    # Incremental builds (issue 9): the same command again, with nothing new, then after a new day.
    no_change = run_step("rebuild, nothing new", build_command, ours)
    result.steps.append(no_change)
    result.steps.append(
        run_step(
            "add one day (45)", [python, "-m", "benchmarks.synthetic", "--add-day", "--cache", str(cache)], PROJECT
        )
    )
    one_day = run_step("rebuild, one new day", build_command, ours)
    result.steps.append(one_day)
    result.figures["no_change_to_cold"] = f"{no_change.seconds / build.seconds:.3f} (target <= 0.05)"
    result.figures["one_day_to_cold"] = f"{one_day.seconds / build.seconds:.3f} (target <= 0.05)"
    result.figures.update(sizes)
    result.figures["pages_per_second"] = f"{int(sizes['html_pages']) / build.seconds:.0f}"
    result.figures["home_page_download"] = home_page_bytes(ours / "site")
    result.figures["query_download"] = query_bytes(ours / "site", cache)
    if reference:
        docs = work / "reference" / "docs"
        result.steps.append(
            run_step(
                "reference pages (.md)",
                [python, "-m", "benchmarks.reference_docs", "--cache", str(cache), "--docs", str(docs)],
                PROJECT,
            )
        )
        reference_config = work / "reference" / "mkdocs.yml"
        reference_config.write_text(yaml.safe_dump(REFERENCE_CONFIG, allow_unicode=True), encoding="utf-8")
        reference_build = run_step(
            "reference build", [python, "-m", "mkdocs", "build", "-q", "-f", str(reference_config)], work / "reference"
        )
        result.steps.append(reference_build)
        result.figures["reference_site_bytes"] = site_sizes(work / "reference" / "site", ("days/", "commits/"))[
            "site_bytes"
        ]
        result.figures["ratio_ours_to_reference"] = f"{build.seconds / reference_build.seconds:.2f} (target <= 0.30)"
        hugo = hugo_available()
        if hugo is None:
            result.figures["ratio_ours_to_hugo"] = "hugo is not installed (apt install hugo); no figure"
        else:
            # Writing the Hugo site is its own step, so that only hugo's build is timed against ours.
            hugo_site = work / "hugo"
            result.steps.append(
                run_step(
                    "hugo site (.md)",
                    [python, "-m", "benchmarks.hugo_reference", "--docs", str(docs), "--target", str(hugo_site)],
                    PROJECT,
                )
            )
            hugo_build = run_step(
                "hugo build", [hugo, "--quiet", "--destination", str(hugo_site / "public")], hugo_site
            )
            result.steps.append(hugo_build)
            result.figures["hugo_pages"] = sum(1 for _ in (hugo_site / "public").rglob("*.html"))
            result.figures["ratio_ours_to_hugo"] = f"{build.seconds / hugo_build.seconds:.2f} (target <= 4)"
    return result


def report(result: Result) -> None:
    print(f"\n== N = {result.n} commits ({-(-result.n // 45)} days); {os.cpu_count()} cores, shared ==")
    print(f"{'step':<24}{'wall s':>9}{'peak RSS MB':>14}")
    for step in result.steps:
        print(f"{step.name:<24}{step.seconds:>9.1f}{step.peak_rss_mb:>14.0f}")
    for name, value in result.figures.items():
        print(f"{name:<24}{value}")
    if result.site is not None:
        print("\n".join(report_site(result.site)))
    sys.stdout.flush()


def report_growth(results: list[Result]) -> None:
    for line in report_marginal([result.site for result in results if result.site is not None]):
        print(line)
    report_memory_growth(results)


def report_memory_growth(results: list[Result]) -> None:
    """How the peak memory of our builds grows per commit between the sizes measured (target
    < 15 KB), and the cold build's peak at 50,000 commits at that rate (target <= 1 GB)."""
    ours = ("our build (cold)", "rebuild, nothing new", "rebuild, one new day")
    for smaller, larger in itertools.pairwise(sorted(results, key=lambda result: result.n)):
        print(f"\n== peak memory growth, {smaller.n} -> {larger.n} commits (target < 15 KB per commit) ==")
        for name in ours:
            low = next(step for step in smaller.steps if step.name == name)
            high = next(step for step in larger.steps if step.name == name)
            per_commit = (high.peak_rss_mb - low.peak_rss_mb) * 1024 / (larger.n - smaller.n)
            print(f"{name:<24}{per_commit:>8.1f} KB per commit")
            if name == ours[0]:
                at_50k = high.peak_rss_mb + per_commit * (50_000 - larger.n) / 1024
                print(f"{'  cold at 50,000':<24}{at_50k:>8.0f} MB (projected; target <= 1024)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, action="append", help="commits in the archive (repeatable)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build here and keep the stores and sites")
    parser.add_argument("--no-reference", action="store_true", help="skip the reference builds (mkdocs, Hugo)")
    parser.add_argument(
        "--languages", default="", help="build the site in these languages (e.g. zh,en: the second under en/)"
    )
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="digest-scale-"))
    try:
        results = []
        for n in args.n or [2000]:
            languages = tuple(code for code in args.languages.split(",") if code)
            results.append(
                measure(n, root / f"n{n}", seed=args.seed, reference=not args.no_reference, languages=languages)
            )
            report(results[-1])
        report_growth(results)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
