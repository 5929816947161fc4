"""`nightly`: the whole night in one command, as the workflow runs it.

restore the store from its durable form → fetch since the last stored commit → update the
releases (new release tags, the commits each released first) → analyse what is not analysed →
narrate the completed weeks that have no narrative, and brief the completed days whose analyses
changed (LLM only) → save the durable form →
`mkdocs build --strict` → notify the channels of ``notify:`` of each new day (after a built site
only: a failed channel marks the night partial and leaves the site as built).

A step that fails (rate limit, LLM outage, GitHub down) is reported and the night goes on:
what is stored is still published. Not the restore: a durable form it could not restore whole
ends the night there (exit 2), before anything is paid for or saved over it. Exit status 0:
complete; 1: partial (published, but something is pending and the next night retries it); 2:
nothing could be published — the restore did not complete, the build failed, or the site passes
its ``site_size_limit`` (then the published site stays the previous one).

A stop signal (SIGTERM, SIGINT) starts no new step and no new request: the requests in flight
land and are stored, the save step still runs (so the durable form holds every answer paid for),
and the night ends there, without build or notify (the next night does them); a signal during the
build cuts it (the published site stays the previous one), and one during notify lets the post in
flight finish. Exit status 143 or 130 (``cli``).
"""

from __future__ import annotations

import argparse
import logging
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from commit_digest import environment, stopping
from commit_digest.analysis.offline_pass import analyse_offline
from commit_digest.analysis.selection import Selection
from commit_digest.collect.base import CommitSource
from commit_digest.commands.build import add_build_guard_options, site_folder
from commit_digest.commands.common import (
    add_common_options,
    add_durable_dir_option,
    open_store,
    print_lines,
    repository_runs,
    settings_from_args,
    site_settings_from_args,
)
from commit_digest.commands.night_checks import check_night, choose_repository
from commit_digest.commands.night_steps import NightReport, StepReport, step
from commit_digest.commands.restore import release_patterns
from commit_digest.errors import CommitDigestError, InputError, StoreError
from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.meaning.taxonomy import Taxonomy, load_taxonomy
from commit_digest.settings import DigestSettings
from commit_digest.site.build.size_guard import SiteTooLargeError
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import restore_durable, save_durable
from commit_digest.store.durable_files import DurableFormDamaged, check_folder
from commit_digest.store.durable_kinds import KINDS, RECORDS, RELEASES
from commit_digest.words import counted

logger = logging.getLogger("mkdocs.plugins.commit_digest.nightly")

EXIT_COMPLETE = 0
EXIT_PARTIAL = 1
EXIT_FAILED = 2


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "nightly",
        help="restore, fetch, analyse, narrate, brief, save and build: the whole nightly run",
        description="Restores the store from its durable form when needed, fetches the commits since the "
        "last stored one, analyses what is not analysed (LLM when OPENAI_API_KEY is set), writes the "
        "narratives of the completed weeks that lack one (LLM only), saves the durable form and runs "
        "`mkdocs build --strict`. A failed step still publishes what is stored.",
    )
    add_common_options(parser, repository=True)
    parser.add_argument("--site-dir", type=Path, default=None, metavar="DIR", help="default: site_dir of mkdocs.yml")
    add_durable_dir_option(parser)
    parser.add_argument("--git-dir", type=Path, default=None, metavar="PATH", help="fetch from a local clone")
    parser.add_argument("--github-url", default=None, metavar="URL", help="REST API base URL (GitHub Enterprise)")
    parser.add_argument("--offline", action="store_true", help="no LLM: offline analyses only, on purpose")
    parser.add_argument("--no-fetch", action="store_true", help="skip fetching (rebuild what is stored)")
    parser.add_argument("--full", action="store_true", help="render every page instead of reusing unchanged ones")
    parser.add_argument(
        "--prune",
        action="store_true",
        help="let the durable form lose what the store lacks (damaged or unknown files included): its intact "
        "files are restored, then it is saved as the store is",
    )
    add_build_guard_options(parser)
    parser.set_defaults(handler=run_locked_night)


def run_locked_night(args: argparse.Namespace) -> int:
    """The night, holding its store and its site folder throughout: a second night (or a build
    of the same site) waits up to --wait seconds, else ends with one line and exit 2. Its whole
    configuration is checked first (``night_checks``): a problem ends it before it spends."""
    from commit_digest.site.build.builder_lock import holding, site_lock, store_lock

    # Everything checked before anything is fetched or paid for; the repository settled.
    site = check_night(args, os.environ)
    choice = choose_repository(args, site, os.environ)
    if choice.line is not None:
        print_lines(Console(stderr=True), [choice.line])
    if choice.narrowed_to is not None:
        args = argparse.Namespace(**{**vars(args), "repo": choice.narrowed_to})
    locks = [store_lock(settings_from_args(args).cache_dir), site_lock(site_folder(args.config_file, args.site_dir))]
    with holding(locks, wait=args.wait, purpose="night"):
        return run_nightly(args)


def run_nightly(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    stopping.set_grace(settings.stop_grace_seconds)
    console = Console(stderr=True)
    night = NightReport()
    durable_dir = args.durable_dir.resolve()
    runs = repository_runs(args)
    if args.git_dir is not None and len(runs) > 1:
        raise InputError("--git-dir is a clone of one repository: say which with --repo")
    with open_store(settings) as store:
        patterns = release_patterns(settings)
        step(night, console, "restore", lambda report: _restore(store, durable_dir, patterns, args, report))
        if night.steps[-1].error is not None:
            return EXIT_FAILED  # its one line says what to repair: going on would pay again and save over it
        # Each repository fetched and analysed with its own settings (branch, taxonomy); one build.
        for one in runs:
            own = settings_from_args(one)
            taxonomy = load_taxonomy(own.taxonomy, own.taxonomy_file)
            suffix = f" {own.repository}" if len(runs) > 1 else ""
            if not args.no_fetch:
                fetched: list[CommitSource] = []  # the source of a fetch that ran to its end
                step(
                    night,
                    console,
                    "fetch" + suffix,
                    lambda report, own=own, fetched=fetched: _fetch(store, own, args, report, fetched),
                )
                if fetched:
                    step(
                        night,
                        console,
                        "releases" + suffix,
                        lambda report, own=own, source=fetched[0]: _releases(store, own, source, report),
                    )
            step(
                night,
                console,
                "analyse" + suffix,
                lambda report, own=own, taxonomy=taxonomy: _analyse(store, own, taxonomy, args.offline, report),
            )
        # Once for the whole site: a week's narrative on a platform spans every repository.
        site = site_settings_from_args(args)
        # A store that could not keep an analysis cannot keep a narrative either: none is paid for.
        unpaid = "--offline" if args.offline else None
        if any(isinstance(done.error, StoreError) for done in night.steps):
            unpaid = "the store cannot keep what is paid for"
        step(night, console, "narrate", lambda report: _narrate(store, site, unpaid, report))
        step(night, console, "brief", lambda report: _brief(store, site, unpaid, report))
        saved = step(night, console, "save", lambda report: _save(store, durable_dir, patterns, args.prune, report))
    if stopping.stop_requested():
        print_lines(console, ["nightly: the night ends after the save; the next night builds and notifies"])
        return EXIT_PARTIAL
    with stopping.interruptible():
        built = step(night, console, "build", lambda report: _build(args, settings, report))
    # What is sent is recorded in the durable form: not where it cannot be saved.
    if built and saved and settings.notify:
        step(night, console, "notify", lambda report: _notify(args, durable_dir, report))
    verdict = "complete" if night.complete else "partial"
    if not built:
        too_large = isinstance(night.steps[-1].error, SiteTooLargeError)
        verdict = "failed: " + ("the site is too large to publish" if too_large else "the site was not built")
    print_lines(console, [f"nightly: {verdict}"])
    if not built:
        return EXIT_FAILED
    return EXIT_COMPLETE if night.complete else EXIT_PARTIAL


def _restore(
    store: AnalysisStore, durable_dir: Path, patterns: dict[str, str], args: argparse.Namespace, report: StepReport
) -> None:
    try:
        _restore_or_raise(store, durable_dir, patterns, args.prune, report)
    except CommitDigestError as error:
        stop = "the night stops here: nothing is fetched, analysed, saved, built or notified"
        if isinstance(error, DurableFormDamaged):
            stop += " (nightly --prune goes on from the intact files and drops the rest)"
        raise type(error)(f"{error}; {stop}") from error


def _restore_or_raise(
    store: AnalysisStore, durable_dir: Path, patterns: dict[str, str], prune: bool, report: StepReport
) -> None:
    check_folder(durable_dir)
    if not durable_dir.exists():
        report.lines.append(f"no durable form at {durable_dir} yet: starting from the store as it is")
        return
    if not os.access(durable_dir, os.W_OK):
        # Found before anything is paid for: the night could not save it.
        raise StoreError(f"the durable folder {durable_dir} is read-only: make it writable and run again")
    result = restore_durable(store, durable_dir, release_tags=patterns, partial=prune)
    report.lines.extend(f"left out (--prune drops what only it held): {problem}" for problem in result.left_out)
    report.ok = not result.left_out  # published, but the loss is said: partial
    if result.skipped:
        report.lines.append(f"store already matches {durable_dir} ({RECORDS.counted(len(store))})")
    else:
        merged = RECORDS.counted(result.records)
        report.lines.append(f"merged {merged} from {durable_dir}: {result.changed} new or better")
        for kind in KINDS[1:]:  # after the records: narratives, releases, notification entries, briefs
            restored = result.kind(kind.name)
            if restored.read:
                added = "not in the store" if kind.name == "releases" else "new or newer"
                report.lines.append(f"merged {kind.counted(restored.read)}: {restored.merged} {added}")
        if result.releases_skipped:
            skipped = RELEASES.counted(result.releases_skipped)
            report.lines.append(f"skipped {skipped} whose tags are not release tags")


def _fetch(
    store: AnalysisStore,
    settings: DigestSettings,
    args: argparse.Namespace,
    report: StepReport,
    fetched_from: list[CommitSource],
) -> None:
    from commit_digest.collect.fetch import fetch_commits, window_for_run
    from commit_digest.commands.fetch import make_source
    from commit_digest.legacy.reconcile import reconcile_placeholders

    source = make_source(settings, git_dir=args.git_dir, github_url=args.github_url, collect_patches=True)
    window = window_for_run(
        store,
        settings.repository,
        None,
        now=datetime.now(UTC),
        zone=settings.zone,
        default_days=settings.github.default_days,
    )
    fetched = fetch_commits(
        source,
        store,
        window,
        branch=settings.github.branch,
        with_pull_requests=settings.github.fetch_pull_requests,
        observer=None,
    )
    report.lines.append(fetched.summary())
    report.lines.extend(f"failed: {failure}" for failure in fetched.failed)
    report.lines.extend(f"skipped for good: {skipped}" for skipped in fetched.skipped)
    if fetched.stopped is not None:
        report.lines.append(f"stopped early: {fetched.stopped}")
    reconciled = reconcile_placeholders(store, settings.repository)
    if reconciled:
        matched = counted(reconciled, "legacy placeholder commit", "legacy placeholder commits")
        report.lines.append(f"matched {matched} with their real commits")
    report.ok = fetched.complete
    if fetched.stopped is None:  # a rate limit that stopped the fetch would stop the releases too
        fetched_from.append(source)


def _releases(store: AnalysisStore, settings: DigestSettings, source: CommitSource, report: StepReport) -> None:
    """New release tags and the commits each released first; a failure keeps every stored commit."""
    from commit_digest.commands.fetch import releases_after_fetch

    outcome = releases_after_fetch(source, store, settings)
    if isinstance(outcome, Exception):
        report.ok = False
        report.lines.append(f"failed: {outcome}; the next night retries")
        return
    report.lines.append(outcome.summary())
    report.ok = outcome.complete


def _analyse(
    store: AnalysisStore, settings: DigestSettings, taxonomy: Taxonomy, offline: bool, report: StepReport
) -> None:
    if offline:
        report.lines.append("LLM skipped (--offline)")
    elif not environment.value(environment.OPENAI_API_KEY):
        report.ok = False
        report.lines.append("LLM skipped: OPENAI_API_KEY is not set (pass --offline to mean it)")
    else:
        report.ok = _analyse_with_llm(store, settings, taxonomy, report)
    # Every commit gets at least the offline analysis, so a new day reads well even when the
    # LLM is down; the failed or pending LLM attempt stays visible next to it.
    summary = analyse_offline(store, OfflineAnalyzer(taxonomy, settings.language), _selection(settings))
    report.lines.append(f"offline analysis for {counted(summary.answered, 'commit', 'commits')} without an analysis")


def _selection(settings: DigestSettings) -> Selection:
    return Selection(zone=settings.zone, repository=settings.repository)


def _analyse_with_llm(store: AnalysisStore, settings: DigestSettings, taxonomy: Taxonomy, report: StepReport) -> bool:
    from commit_digest.analysis.llm_analyzer import LlmAnalyzer
    from commit_digest.analysis.llm_client import LlmClient
    from commit_digest.analysis.llm_pass import analyse_with_llm

    client = LlmClient(settings.llm)
    try:
        analyzer = LlmAnalyzer(client, settings, taxonomy)
        summary = analyse_with_llm(store, analyzer, settings.llm, _selection(settings))
    finally:
        client.close()
    report.lines.extend([*summary.lines(), *client.suspect_lines()])
    return summary.all_ok


def _narrate(store: AnalysisStore, settings: DigestSettings, skipped: str | None, report: StepReport) -> None:
    """The narratives of the last completed weeks that lack one. Without an LLM the step is skipped
    and the night is not the worse for it: the week pages show the analyses."""
    from commit_digest.analysis.narration import NarrativeWriter
    from commit_digest.plans.weeks import WeekRequest, narrate_site

    def run(client: Any) -> Any:
        return narrate_site(store, NarrativeWriter(client, settings), settings, WeekRequest())

    _written(settings, skipped, report, "week pages show the analyses without a narrative", run)


def _brief(store: AnalysisStore, settings: DigestSettings, skipped: str | None, report: StepReport) -> None:
    """The briefs of the last completed days whose analyses changed since (or that have none).
    Without an LLM the day pages keep the rule-based morning read."""
    from commit_digest.analysis.briefing import BriefWriter
    from commit_digest.plans.days import DayRequest, brief_site

    def run(client: Any) -> Any:
        return brief_site(store, BriefWriter(client, settings), settings, DayRequest())

    _written(settings, skipped, report, "day pages show the rule-based morning read", run)


def _written(settings: DigestSettings, skipped: str | None, report: StepReport, without: str, run: Any) -> None:
    """A step whose pass the LLM writes (``run`` with a client); none when ``skipped`` says why."""
    if skipped is not None:
        report.lines.append(f"skipped ({skipped}): {without}")
        return
    if not environment.value(environment.OPENAI_API_KEY):
        report.lines.append("skipped: OPENAI_API_KEY is not set")
        return
    from commit_digest.analysis.llm_client import LlmClient

    client = LlmClient(settings.llm)
    try:
        summary = run(client)
    finally:
        client.close()
    report.lines.extend([*summary.lines(), *client.suspect_lines()])
    report.ok = summary.all_ok


def _save(store: AnalysisStore, durable_dir: Path, patterns: dict[str, str], prune: bool, report: StepReport) -> None:
    result = save_durable(store, durable_dir, prune=prune, release_tags=patterns)
    kinds = "".join(
        f", {kind.counted(result.saved[kind.name])}"
        for kind in KINDS[1:]
        if kind.name != "notifications" and result.saved.get(kind.name)
    )
    report.lines.append(
        f"{RECORDS.counted(result.records)}{kinds} in {durable_dir}: "
        f"{counted(result.files_written, 'file', 'files')} written, "
        f"{result.files_unchanged} unchanged"
    )


def _build(args: argparse.Namespace, settings: DigestSettings, report: StepReport) -> None:
    from commit_digest.commands.build import build_site

    site = build_site(
        args.config_file,
        cache_dir=settings.cache_dir,
        site_dir=args.site_dir,
        strict=True,
        full=args.full,
        allow_shrink=args.allow_shrink,
    )
    report.lines.append(f"site built into {site}")


def _notify(args: argparse.Namespace, durable_dir: Path, report: StepReport) -> None:
    """Each new day to each channel, at most once: each post's attempt and outcome are recorded in the
    store and the durable form; a post whose outcome is unknown (a night stopped in between) is
    named in the step's lines and makes the night partial, never posted again on its own."""
    from commit_digest.commands.notify import NotifyOptions, notify_site

    settings = site_settings_from_args(args)
    config_file = args.config_file if args.config_file is not None else Path("mkdocs.yml")
    options = NotifyOptions(config_file=config_file, durable_dir=durable_dir)
    with open_store(settings) as store:
        summary = notify_site(store, settings, options, environ=os.environ)
    report.lines.extend(summary.lines)
    report.ok = summary.ok
