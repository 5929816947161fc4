"""`demo`: the README's first command — the embedded sample, analysed offline, built into a site.

In a checkout (``./mkdocs.yml``, or ``-f``) it is that site's demo, with its store and site folder.
Anywhere else it builds the demo site shipped inside the package (``data/demo_site``: the
checkout's mkdocs.yml, theme overrides and gen-files script), which is read where it is installed and never written; the
store goes into a temporary folder removed at the end (or ``--cache DIR``, kept), the site into
``--site-dir`` (default ``./site``). Every folder written is named in the output.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from commit_digest.analysis.offline_pass import analyse_offline
from commit_digest.analysis.selection import Selection
from commit_digest.commands.common import (
    DEFAULT_CONFIG,
    add_common_options,
    open_store,
    settings_from_args,
    unwritable_reason,
)
from commit_digest.errors import InputError, StoreError
from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.meaning.releases import Release
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import LANGUAGE_CODES, CommitRecord
from commit_digest.store.exchange import read_all_records
from commit_digest.store.sample_note import SAMPLE_META, load_note_file, note_text
from commit_digest.words import counted

SAMPLE = "data/sample-vllm.jsonl"
# What of the sample is made up, and its days: the site says so on every page.
SAMPLE_NOTE = "data/sample-vllm.note.json"
SAMPLE_RELEASES = "data/sample-vllm.releases.jsonl"  # its invented release, one per line
# The demo site outside a checkout: its mkdocs.yml beside its docs/ (theme overrides and
# the gen-files script), as package data.
DEMO_SITE = "data/demo_site"
DEFAULT_SITE_DIR = Path("site")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="load the embedded vLLM sample, analyse it offline and build the demo site (no network, no keys)",
        description="Without ./mkdocs.yml and -f, builds the demo site shipped with commit-digest: the store "
        "in a temporary folder removed at the end (or --cache DIR), the site into --site-dir (default ./site).",
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
        "--site-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="build into DIR (default: site_dir of mkdocs.yml; ./site without one)",
    )
    parser.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    for folder, flag in ((args.site_dir, "--site-dir"), (args.cache, "--cache")):
        if folder is not None:
            _check_writable(folder, flag)
    if args.config_file is not None or DEFAULT_CONFIG.is_file():
        return _demo(args)
    site_dir = args.site_dir if args.site_dir is not None else DEFAULT_SITE_DIR
    if args.site_dir is None:
        _check_writable(site_dir, "--site-dir")
    with resources.as_file(resources.files("commit_digest").joinpath(DEMO_SITE)) as shipped:
        print(f"no mkdocs.yml here: the demo site shipped with commit-digest ({shipped}; only read)")
        shipped_args = {**vars(args), "config_file": shipped / "mkdocs.yml", "site_dir": site_dir}
        if args.cache is not None:
            return _demo(argparse.Namespace(**shipped_args))
        with _temporary_store() as store:
            print(f"store: a temporary folder, removed when the demo ends: {store}")
            status = _demo(argparse.Namespace(**{**shipped_args, "cache": Path(store)}))
        if Path(store).exists():
            print(f"the temporary store {store} could not be removed entirely; remove it by hand")
        else:
            print(f"removed the temporary store {store}")
        return status


def _demo(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, language=args.language)
    sample = resources.files("commit_digest").joinpath(SAMPLE)
    records = read_all_records(sample.read_text(encoding="utf-8").splitlines(), source=SAMPLE)
    note = load_note_file(
        resources.files("commit_digest").joinpath(SAMPLE_NOTE).read_text(encoding="utf-8"), SAMPLE_NOTE
    )
    # The legacy reports' analyses are in Chinese: a site in another language shows the offline
    # rules' analyses of those commits instead of a language its readers did not choose.
    records = [_in_language(record, settings.language) for record in records]
    analyzer = OfflineAnalyzer(load_taxonomy(settings.taxonomy, settings.taxonomy_file), settings.language)
    with open_store(settings) as store:
        added = store.merge_all(records)
        for release in _sample_releases():
            store.merge_release(release)
        summary = analyse_offline(store, analyzer, Selection(zone=settings.zone))
        stored = list(store.records())
        # The line every page shows says whose analyses the site holds: count them once stored.
        written = sum(1 for record in stored if _model_written(record, settings.language))
        store.set_meta(SAMPLE_META, note_text(note.model_copy(update={"model_analyses": written})))
    days = sorted({record.commit.day(settings.zone) for record in stored})
    print(
        f"sample: {counted(len(records), 'commit', 'commits')} ({added} new) over {counted(len(days), 'day', 'days')} "
        f"({days[0]} … {days[-1]}) in {settings.cache_dir}"
    )
    print(f"offline analysis: {summary.answered} analysed, {len(stored) - summary.answered} already had an analysis")
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


def _sample_releases() -> list[Release]:
    text = resources.files("commit_digest").joinpath(SAMPLE_RELEASES).read_text(encoding="utf-8")
    try:
        return [Release.model_validate_json(line) for line in text.splitlines() if line.strip()]
    except ValidationError as error:
        raise StoreError(f"{SAMPLE_RELEASES}: not a release: {error.errors()[0]['msg']}") from error


def _model_written(record: CommitRecord, language: str) -> bool:
    analysis = record.analysis
    return (
        analysis is not None
        and analysis.ok
        and analysis.provenance.language == language
        and analysis.provenance.analyzer != OfflineAnalyzer.name
    )


def _in_language(record: CommitRecord, language: str) -> CommitRecord:
    analysis = record.analysis
    if analysis is None or analysis.provenance.language == language:
        return record
    return record.model_copy(update={"analysis": None})


def _temporary_store() -> tempfile.TemporaryDirectory[str]:
    try:
        # Removed even when the demo fails or is stopped; a file that cannot go is reported, not raised.
        return tempfile.TemporaryDirectory(prefix="commit-digest-demo-", ignore_cleanup_errors=True)
    except OSError as error:
        raise StoreError(
            f"cannot make a temporary store in {tempfile.gettempdir()}: {error.strerror or error}; "
            "give --cache DIR (or set TMPDIR)"
        ) from error


def _check_writable(folder: Path, flag: str) -> None:
    """One line, before anything is written, when ``folder`` cannot be made or written."""
    reason = unwritable_reason(folder)
    if reason is not None:
        raise InputError(f"{flag} {folder}: {reason}; choose another {flag}")
