"""`analyze`: LLM analyses for every stored commit that lacks a current one (``--offline``:
offline analyses for every commit without an ok one).

Exit status 0 when every selected commit got an ok analysis, 1 when some failed, were
refused or are pending (they are stored so and picked up by the next run), 2 on errors.
"""

from __future__ import annotations

import argparse
from datetime import date
from typing import Any

from rich.console import Console

from commit_digest.analysis.runner import Selection
from commit_digest.commands.common import add_common_options, open_store, settings_from_args
from commit_digest.errors import InputError
from commit_digest.models import AnalysisStatus
from commit_digest.settings import DigestSettings
from commit_digest.taxonomy import Taxonomy, load_taxonomy


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
    parser.add_argument("--concurrency", type=int, default=None, metavar="N", help="requests in flight (default 8)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="per request (default 120)")
    parser.add_argument("--limit", type=int, default=None, metavar="K", help="analyse at most K commits, newest first")
    parser.add_argument("--since", type=_day, default=None, metavar="YYYY-MM-DD", help="first day (site time zone)")
    parser.add_argument("--until", type=_day, default=None, metavar="YYYY-MM-DD", help="last day (site time zone)")
    parser.add_argument("--reanalyze", action="store_true", help="analyse again even when a current analysis exists")
    parser.add_argument(
        "--offline",
        action="store_true",
        help="the offline rule-based analyzer (no LLM, no key): every commit without an ok analysis; "
        "with --reanalyze, also redo offline analyses",
    )
    parser.add_argument(
        "--batch",
        choices=("submit", "collect"),
        default=None,
        help="use the Batch API: submit the commits, or collect finished batches",
    )
    parser.set_defaults(handler=run_analyze)


def run_analyze(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    if args.offline and args.batch is not None:
        raise InputError("--offline and --batch do not go together: the offline analyzer sends no request")
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
    if args.offline:
        return _run_offline(args, settings, taxonomy, console)
    return _run_llm(args, settings, taxonomy, console)


def _selection(args: argparse.Namespace, settings: DigestSettings) -> Selection:
    return Selection(
        zone=settings.zone,
        repository=settings.repository,
        since=args.since,
        until=args.until,
        limit=args.limit,
        reanalyze=args.reanalyze,
    )


def _report(console: Console, lines: list[str]) -> None:
    for line in lines:
        console.print(line, markup=False, highlight=False)


def _run_offline(args: argparse.Namespace, settings: DigestSettings, taxonomy: Taxonomy, console: Console) -> int:
    from commit_digest.analysis.offline import OfflineAnalyzer
    from commit_digest.analysis.offline_pass import analyse_offline

    with open_store(settings) as store:
        analyzer = OfflineAnalyzer(taxonomy, settings.language)
        summary = analyse_offline(store, analyzer, _selection(args, settings), console=console)
    _report(console, summary.lines())
    return 0 if summary.all_ok else 1


def _run_llm(args: argparse.Namespace, settings: DigestSettings, taxonomy: Taxonomy, console: Console) -> int:
    # The openai SDK takes a third of a second to import: only the commands that call it pay.
    from commit_digest.analysis import batch
    from commit_digest.analysis.llm_analyzer import LlmAnalyzer
    from commit_digest.analysis.llm_client import LlmClient
    from commit_digest.analysis.llm_pass import analyse_with_llm, records_for_llm

    selection = _selection(args, settings)
    client = LlmClient(settings.llm)
    try:
        analyzer = LlmAnalyzer(client, settings, taxonomy)
        with open_store(settings) as store:
            if args.batch == "collect":
                report = batch.collect(store, analyzer, client)
                _report(console, report.lines())
                return 0 if not report.by_status or set(report.by_status) == {AnalysisStatus.OK} else 1
            if args.batch == "submit":
                report = batch.submit(store, analyzer, client, records_for_llm(store, analyzer, selection))
                _report(console, report.lines())
                return 0
            summary = analyse_with_llm(store, analyzer, settings.llm, selection, console=console)
    finally:
        client.close()
    _report(console, summary.lines())
    return 0 if summary.all_ok else 1
