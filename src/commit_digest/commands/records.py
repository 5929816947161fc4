"""`import`, `export` and `show`: the store as JSON Lines, and one commit as text."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any

from commit_digest.commands.common import add_common_options, open_store, settings_from_args
from commit_digest.commands.show import format_record
from commit_digest.errors import InputError
from commit_digest.models import CommitRecord
from commit_digest.store.exchange import InputProblems, input_lines, parse_records, write_records
from commit_digest.words import counted


def register(subparsers: Any) -> None:
    importer = subparsers.add_parser(
        "import",
        help="load JSON Lines (an export, or the embedded sample) into the store",
        description="Validates every line of every file first: a bad file stores nothing.",
    )
    add_common_options(importer)
    importer.add_argument("files", nargs="+", type=Path, metavar="FILE", help="JSON Lines files ('-' for stdin)")
    importer.add_argument("--force", action="store_true", help="let imported analyses replace better stored ones")
    importer.set_defaults(handler=run_import)

    exporter = subparsers.add_parser("export", help="write the whole store as JSON Lines")
    add_common_options(exporter, repository=True)
    exporter.add_argument("-o", "--output", type=Path, default=None, metavar="FILE", help="default: stdout")
    exporter.set_defaults(handler=run_export)

    show = subparsers.add_parser("show", help="print one commit with its analysis")
    add_common_options(show)
    show.add_argument("sha", metavar="SHA", help="the sha or a prefix of at least 4 hex digits")
    show.add_argument("--json", action="store_true", help="print the stored record as JSON")
    show.set_defaults(handler=run_show)


def run_import(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    # Every file is read before anything is stored, and the error lists the problems of all of them.
    problems = InputProblems()
    records: list[CommitRecord] = []
    for path in args.files:
        stdin = str(path) == "-"
        source = "<stdin>" if stdin else str(path)
        with input_lines(None if stdin else path, source=source, problems=problems) as lines:
            records.extend(parse_records(lines, source=source, problems=problems))
    problems.raise_if_any()
    # A commit given twice (in one file or two) is one commit: each line is merged into the store
    # as any import is, so the more valuable analysis is kept (with --force, the later line's).
    commits = len({record.key for record in records})
    with open_store(settings) as store:
        changed = len({record.key for record in records if store.merge(record, force=args.force)})
    repeated = len(records) - commits
    print(
        f"imported {counted(commits, 'record', 'records')} into {settings.cache_dir}: {changed} new or changed, "
        f"{commits - changed} unchanged"
        + (
            f"; {counted(repeated, 'record', 'records')} repeated a commit given before in this import, merged into it"
            if repeated
            else ""
        )
    )
    return 0


def run_export(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    with open_store(settings) as store:
        records = list(store.records(args.repo))
    if args.output is None:
        # Data, not text for a terminal: UTF-8 whatever the locale says (LANG=C, PYTHONIOENCODING).
        _reconfigure_stdout(encoding="utf-8")
        write_records(records, sys.stdout)
        return 0
    temporary = args.output.with_name(args.output.name + ".partial")
    try:
        with temporary.open("w", encoding="utf-8") as out:
            count = write_records(records, out)
        temporary.replace(args.output)  # a reader never sees half an export
    except OSError as error:
        raise InputError(f"cannot write {args.output}: {error.strerror}") from error
    print(f"exported {counted(count, 'record', 'records')} to {args.output}", file=sys.stderr)
    return 0


def run_show(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    with open_store(settings) as store:
        found = store.find(args.sha)
    if not found:
        raise InputError(f"no stored commit has a sha starting with {args.sha!r} in {settings.cache_dir}")
    if len(found) > 1:
        shas = ", ".join(record.commit.sha[:12] for record in found[:5])
        raise InputError(f"{args.sha!r} is ambiguous: {len(found)} commits match ({shas}…); give more digits")
    record = found[0]
    # For a terminal: what its encoding cannot show (a Chinese name under LANG=C) is shown escaped.
    _reconfigure_stdout(errors="backslashreplace")
    print(record.model_dump_json(indent=2) if args.json else format_record(record, settings.zone))
    return 0


def _reconfigure_stdout(**how: str) -> None:
    """Sets the encoding or error handling of standard output (a TextIOWrapper: the console's,
    or a test's capture), flushing what was written before."""
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(**how)  # type: ignore[arg-type]
