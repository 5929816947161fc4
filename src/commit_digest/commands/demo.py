"""`demo`: the README's first command — the embedded sample, analysed offline, built into a site."""

from __future__ import annotations

import argparse
import time
from importlib import resources
from pathlib import Path
from typing import Any

from commit_digest.analysis.offline import OfflineAnalyzer
from commit_digest.analysis.offline_pass import analyse_offline
from commit_digest.analysis.runner import Selection
from commit_digest.commands.common import add_common_options, open_store, settings_from_args
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import LANGUAGE_CODES
from commit_digest.store.exchange import read_all_records

SAMPLE = "data/sample-vllm.jsonl"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="load the embedded vLLM sample, analyse it offline and build the demo site (no network, no keys)",
    )
    add_common_options(parser)
    parser.add_argument("--no-build", action="store_true", help="stop after loading and analysing")
    parser.add_argument(
        "--language",
        choices=LANGUAGE_CODES,
        default=None,
        help="analyse and build the demo in this one language (default: language of mkdocs.yml)",
    )
    parser.add_argument(
        "--site-dir", type=Path, default=None, metavar="DIR", help="build into DIR (default: site_dir of mkdocs.yml)"
    )
    parser.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, language=args.language)
    sample = resources.files("commit_digest").joinpath(SAMPLE)
    records = read_all_records(sample.read_text(encoding="utf-8").splitlines(), source=SAMPLE)
    analyzer = OfflineAnalyzer(load_taxonomy(settings.taxonomy, settings.taxonomy_file), settings.language)
    with open_store(settings) as store:
        added = store.merge_all(records)
        summary = analyse_offline(store, analyzer, Selection(zone=settings.zone))
        stored = list(store.records())
    days = sorted({record.commit.day(settings.zone) for record in stored})
    print(
        f"sample: {len(records)} commits ({added} new) over {len(days)} days "
        f"({days[0]} … {days[-1]}) in {settings.cache_dir}"
    )
    print(f"offline analysis: {summary.analysed} analysed, {len(stored) - summary.analysed} already had an analysis")
    if args.no_build:
        return 0
    from commit_digest.commands.build import build_site

    started = time.perf_counter()
    site_dir = build_site(
        args.config_file, cache_dir=settings.cache_dir, site_dir=args.site_dir, strict=True, language=args.language
    )
    preview = "mkdocs serve" if args.site_dir is None else f"python -m http.server -d {site_dir}"
    print(f"site built into {site_dir} in {time.perf_counter() - started:.1f} s; preview it with: {preview}")
    return 0
