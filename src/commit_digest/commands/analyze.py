"""`analyze`: LLM analyses for every stored commit that lacks a current one.

Exit status 0 when every selected commit got an ok analysis, 1 when some failed, were
refused or are pending (they are stored so and picked up by the next run), 2 on errors.
"""

from __future__ import annotations

import argparse
from datetime import date
from typing import Any

from rich.console import Console

from commit_digest.commands.common import add_common_options, open_store, settings_from_args
from commit_digest.errors import InputError
from commit_digest.models import AnalysisStatus
from commit_digest.taxonomy import load_taxonomy


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date like 2026-01-08") from error


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "analyze",
        help="analyse stored commits with an LLM (OPENAI_API_KEY, OPENAI_BASE_URL)",
        description="Analyses every stored commit that has no successful LLM analysis for the current "
        "prompt and schema version, through any OpenAI-compatible endpoint. Results are cached in the "
        "store: a second run sends nothing.",
    )
    add_common_options(parser, repository=True)
    parser.add_argument("--model", default=None, help="model name (default: llm.model in mkdocs.yml)")
    parser.add_argument("--language", choices=("zh", "en"), default=None, help="language of the analyses")
    parser.add_argument(
        "--output-mode",
        choices=("json_schema", "json_object", "text"),
        default=None,
        help="structured output: json_schema (default), or a fallback for servers without it",
    )
    parser.add_argument(
        "--concurrency", type=int, default=None, metavar="N", help="requests in flight (default 8)"
    )
    parser.add_argument(
        "--timeout", type=float, default=None, metavar="SECONDS", help="per request (default 120)"
    )
    parser.add_argument(
        "--limit", type=int, default=None, metavar="K", help="analyse at most K commits, newest first"
    )
    parser.add_argument(
        "--since", type=_day, default=None, metavar="YYYY-MM-DD", help="first day (site time zone)"
    )
    parser.add_argument(
        "--until", type=_day, default=None, metavar="YYYY-MM-DD", help="last day (site time zone)"
    )
    parser.add_argument(
        "--reanalyze", action="store_true", help="analyse again even when a current analysis exists"
    )
    parser.add_argument(
        "--batch",
        choices=("submit", "collect"),
        default=None,
        help="use the Batch API: submit the commits, or collect finished batches",
    )
    parser.set_defaults(handler=run_analyze)


def run_analyze(args: argparse.Namespace) -> int:
    # The openai SDK takes a third of a second to import: only the commands that call it pay.
    from commit_digest.analysis import batch
    from commit_digest.analysis.llm_analyzer import LlmAnalyzer
    from commit_digest.analysis.llm_client import LlmClient
    from commit_digest.analysis.runner import run_analysis, select_records

    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    llm = {
        key: value
        for key, value in {
            "model": args.model,
            "concurrency": args.concurrency,
            "timeout_seconds": args.timeout,
            "output_mode": args.output_mode,
        }.items()
        if value is not None
    }
    settings = settings_from_args(args, llm=llm or None, language=args.language)
    taxonomy = load_taxonomy(settings.taxonomy, settings.taxonomy_file)
    console = Console(stderr=True)
    client = LlmClient(settings.llm)
    try:
        analyzer = LlmAnalyzer(client, settings, taxonomy)
        with open_store(settings) as store:
            if args.batch == "collect":
                report = batch.collect(store, analyzer, client)
                for line in report.lines():
                    console.print(line, markup=False, highlight=False)
                return 0 if not report.by_status or set(report.by_status) == {AnalysisStatus.OK} else 1
            records = select_records(
                store.records(settings.repository),
                analyzer_name=analyzer.name,
                zone=settings.zone,
                since=args.since,
                until=args.until,
                limit=args.limit,
                reanalyze=args.reanalyze,
                exclude=batch.commits_in_open_batches(store),
            )
            if args.batch == "submit":
                report = batch.submit(store, analyzer, client, records)
                for line in report.lines():
                    console.print(line, markup=False, highlight=False)
                return 0
            summary = run_analysis(
                store, analyzer, records, concurrency=settings.llm.concurrency, console=console
            )
    finally:
        client.close()
    for line in summary.lines():
        console.print(line, markup=False, highlight=False)
    return 0 if summary.all_ok else 1
