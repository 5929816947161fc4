"""`import-legacy`: the old script's daily Markdown reports into the store.

Every file is read and mapped before anything is written, so a file that is not such a
report stops the import with one line naming it and the store is left as it was.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from commit_digest.commands.common import add_common_options, open_store, settings_from_args
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.words import counted

if TYPE_CHECKING:
    from commit_digest.legacy.importer import ReportImport


def _zone(text: str) -> ZoneInfo:
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise argparse.ArgumentTypeError(
            f"unknown time zone {text!r}: give an IANA name such as 'Asia/Shanghai'"
        ) from error


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import-legacy",
        help="import the legacy script's daily Markdown reports",
        description="Stores every commit of each report's commit table with the report's analysis "
        "(provenance legacy:<file>); rows without an analysis are stored pending for `analyze`. "
        "Re-importing is a no-op, and an LLM analysis is never replaced unless --force.",
    )
    add_common_options(parser, repository=True)
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="legacy report files (Markdown)")
    parser.add_argument("--force", action="store_true", help="let the legacy analyses replace better stored ones")
    parser.add_argument(
        "--tz",
        type=_zone,
        default=ZoneInfo("UTC"),
        metavar="ZONE",
        help="the time zone of the times in the reports' commit tables (default UTC)",
    )
    parser.set_defaults(handler=run_import_legacy)


def describe(result: ReportImport) -> str:
    unchanged = len(result.records) - result.stored_new - result.stored_updated
    line = (
        f"{result.source_name} ({result.report.day}): {counted(len(result.records), 'commit', 'commits')}, "
        f"{result.analysed} analysed, {result.pending} pending, {result.incomplete} incomplete, "
        f"{counted(result.placeholders, 'placeholder sha', 'placeholder shas')}; stored {result.stored_new} new, "
        f"{result.stored_updated} updated, {unchanged} unchanged"
    )
    if result.unmapped:
        line += f"; kept in the nearest field: {counted(sum(result.unmapped.values()), 'text', 'texts')}"
    return line


def run_import_legacy(args: argparse.Namespace) -> int:
    # markdown-it is imported only by the command that parses Markdown.
    from commit_digest.legacy.importer import import_files, repositories_of
    from commit_digest.legacy.reconcile import reconcile_placeholders

    settings = settings_from_args(args)
    taxonomy = load_taxonomy(settings.taxonomy, settings.taxonomy_file)
    with open_store(settings) as store:
        results = import_files(
            args.files,
            store,
            requested_repository=args.repo,
            default_repository=settings.repository,
            zone=args.tz,
            taxonomy=taxonomy,
            force=args.force,
        )
        # Placeholders of earlier imports whose real commits a fetch has stored since.
        moved = sum(reconcile_placeholders(store, repository) for repository in repositories_of(results))
    for result in results:
        print(describe(result))
    if moved:
        print(f"{counted(moved, 'placeholder commit', 'placeholder commits')} matched their real commits")
    return 0
