"""`analyze`: LLM analyses for every stored commit that lacks a current one (``--offline``:
offline analyses for every commit without an ok one).

Exit status 0 when every selected commit got an ok analysis, 1 when some failed, were
refused or are pending (they are stored so and picked up by the next run), 2 on errors.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console

from commit_digest import stopping
from commit_digest.analysis.selection import Selection
from commit_digest.commands.common import (
    add_common_options,
    add_llm_options,
    llm_overrides,
    open_store,
    print_lines,
    repository_runs,
    run_each_repository,
    settings_from_args,
)
from commit_digest.errors import InputError
from commit_digest.meaning.taxonomy import Taxonomy, load_taxonomy
from commit_digest.models import LANGUAGE_CODES, AnalysisStatus
from commit_digest.settings import DigestSettings


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "analyze",
        help="analyse stored commits with an LLM (OPENAI_API_KEY, OPENAI_BASE_URL)",
        description="Analyses every stored commit that has no successful LLM analysis for the current "
        "prompt and schema version, through any OpenAI-compatible endpoint. Results are cached in the "
        "store: a second run sends nothing.",
    )
    add_common_options(parser, repository=True)
    parser.add_argument("--language", choices=LANGUAGE_CODES, default=None, help="language of the analyses")
    add_llm_options(parser, what="analyse")
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
    """Analyses the commits of --repo, or of every repository of the site in turn."""
    return run_each_repository(repository_runs(args), _analyze_one, Console(stderr=True))


def _analyze_one(args: argparse.Namespace) -> int:
    if stopping.stop_requested():
        return 0  # the next repository's turn came after a stop: cli says what was kept
    if args.offline and args.batch is not None:
        raise InputError("--offline and --batch do not go together: the offline analyzer sends no request")
    settings = settings_from_args(args, llm=llm_overrides(args), language=args.language)
    stopping.set_grace(settings.stop_grace_seconds)
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



def _run_offline(args: argparse.Namespace, settings: DigestSettings, taxonomy: Taxonomy, console: Console) -> int:
    from commit_digest.analysis.offline_pass import analyse_offline
    from commit_digest.meaning.offline import OfflineAnalyzer

    with open_store(settings) as store:
        analyzer = OfflineAnalyzer(taxonomy, settings.language)
        summary = analyse_offline(store, analyzer, _selection(args, settings), console=console)
    print_lines(console, summary.lines())
    return 0 if summary.all_ok else 1


def _offline_beside_failures(store: Any, settings: DigestSettings, taxonomy: Taxonomy, name: str) -> None:
    from commit_digest.analysis.fallback import offline_beside_failures
    from commit_digest.meaning.offline import OfflineAnalyzer

    offline_beside_failures(store, OfflineAnalyzer(taxonomy, settings.language), name, settings.repository)


def _run_llm(args: argparse.Namespace, settings: DigestSettings, taxonomy: Taxonomy, console: Console) -> int:
    # The openai SDK takes a third of a second to import: only the commands that call it pay.
    from commit_digest.analysis import batches
    from commit_digest.analysis.analyze_task import LlmAnalyzeTask
    from commit_digest.analysis.llm_analyzer import LlmAnalyzer
    from commit_digest.analysis.llm_client import LlmClient
    from commit_digest.analysis.llm_pass import analyse_with_llm, records_for_llm
    from commit_digest.analysis.selection import current_for

    selection = _selection(args, settings)
    client = LlmClient(settings.llm)
    try:
        analyzer = LlmAnalyzer(client, settings, taxonomy)
        with open_store(settings) as store:
            if args.batch == "collect":
                report = batches.collect(store, LlmAnalyzeTask(analyzer, current_for(analyzer.name)), client)
                print_lines(console, [*report.lines(), *client.suspect_lines()])
                return 0 if not report.by_status or set(report.by_status) == {AnalysisStatus.OK} else 1
            if args.batch == "submit":
                task = LlmAnalyzeTask(analyzer, current_for(analyzer.name))
                report = batches.submit(store, task, client, records_for_llm(store, analyzer, selection))
                print_lines(console, report.lines())
                return 0
            summary = analyse_with_llm(store, analyzer, settings.llm, selection, console=console)
            if summary.failed:
                _offline_beside_failures(store, settings, taxonomy, analyzer.name)
    finally:
        client.close()
    print_lines(console, [*summary.lines(), *client.suspect_lines()])
    return 0 if summary.all_ok else 1
