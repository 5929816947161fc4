"""``commit-digest fetch``: bring the commits of a repository into the store.

    commit-digest fetch --repo OWNER/NAME [--branch B] [--since DATE] [--until DATE] [--days N]
                        [--tz ZONE] [--source github|git] [--git-dir PATH] [--github-url URL]
                        [--no-pr] [--no-patch] [--no-releases] [--cache DIR] [-f mkdocs.yml]

After the commits, the repository's releases are brought up to date (``release_fetch``): new
release tags become releases and stored commits are placed in the first release that carries
them. That step failing (a rate limit, the network) is reported and keeps every stored commit.

Exit status: 0 every listed commit is stored and the releases are up to date, 1 some failed or a
rate limit stopped the run (what was fetched is kept; run again later), or a commit was found that
can never be stored (no date places it on a day, a field the store refuses): it is skipped with a
warning naming it, and later runs neither read it again nor count it, so they exit 0. 2 the run
could not start (bad option, wrong repository, bad token).
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from commit_digest import environment, stopping
from commit_digest.collect.base import CommitSource
from commit_digest.collect.errors import SourceError
from commit_digest.collect.fetch import FetchReport, fetch_commits, window_for_run
from commit_digest.collect.release_fetch import ReleaseReport, ReleaseSource, update_releases
from commit_digest.collect.window import parse_day, requested_window
from commit_digest.errors import InputError
from commit_digest.settings import DigestSettings
from commit_digest.store.analysis_store import AnalysisStore

from .common import add_common_options, open_store, repository_runs, run_each_repository, settings_from_args

EXIT_OK = 0
EXIT_PARTIAL = 1


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "fetch",
        help="collect commits from the GitHub API or a local clone into the store",
        description=(
            "Collect the commits landed on a branch into the store. Without dates, continue from "
            "the newest stored commit (the last --days days when none is stored)."
        ),
    )
    add_common_options(parser, repository=True)
    add = parser.add_argument
    add("--branch", default=None, help="the branch (default: the repository's default branch)")
    add("--since", default=None, metavar="DATE", help="first day, YYYY-MM-DD in --tz (inclusive)")
    add("--until", default=None, metavar="DATE", help="last day, YYYY-MM-DD in --tz (inclusive)")
    add("--days", type=int, default=None, metavar="N", help="number of days (default: settings, 2)")
    add("--tz", default=None, metavar="ZONE", help="IANA time zone of the days (default: settings, UTC)")
    add("--source", choices=("github", "git"), default="github", help="where to read commits")
    add(
        "--git-dir",
        type=Path,
        default=None,
        metavar="PATH",
        help="the top folder of a local clone of --repo, checked by its remote or root commits (--source git)",
    )
    add(
        "--github-url",
        default=None,
        metavar="URL",
        help="REST API base URL (default: $GITHUB_API_URL, then settings, then https://api.github.com)",
    )
    add("--no-pr", action="store_true", help="do not fetch pull request descriptions and labels")
    add("--no-patch", action="store_true", help="keep no patches (files marked not-collected)")
    add("--no-releases", action="store_true", help="do not update the releases (tags) after the commits")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Fetches --repo, or every repository of the site in turn."""
    runs = repository_runs(args)
    if args.git_dir is not None and len(runs) > 1:
        raise InputError("--git-dir is a clone of one repository: say which with --repo")
    return run_each_repository(runs, _run_one, Console(stderr=True))


def _run_one(args: argparse.Namespace) -> int:
    if stopping.stop_requested():
        return EXIT_OK  # the next repository's turn came after a stop: cli says what was kept
    github_overrides = {
        key: value for key, value in (("branch", args.branch), ("api_url", args.github_url)) if value is not None
    }
    settings = settings_from_args(args, timezone=args.tz, github=github_overrides or None)
    stopping.set_grace(settings.stop_grace_seconds)
    zone = settings.zone
    default_days = settings.github.default_days
    now = datetime.now(UTC)
    requested = requested_window(
        parse_day(args.since, option="--since") if args.since is not None else None,
        parse_day(args.until, option="--until") if args.until is not None else None,
        args.days,
        today=now.astimezone(zone).date(),
        zone=zone,
        default_days=default_days,
    )
    source = _source(args, settings)
    console = Console(stderr=True)
    with open_store(settings) as store:
        window = window_for_run(store, settings.repository, requested, now=now, zone=zone, default_days=default_days)
        with ProgressDisplay(console) as progress:
            report = fetch_commits(
                source,
                store,
                window,
                branch=settings.github.branch,
                with_pull_requests=settings.github.fetch_pull_requests and not args.no_pr,
                observer=progress,
            )
        code = _finish(report)
        if not args.no_releases and not _releases(source, store, settings, report):
            code = max(code, EXIT_PARTIAL)
    return code


def _releases(source: CommitSource, store: AnalysisStore, settings: DigestSettings, fetched: FetchReport) -> bool:
    """Updates the releases after the fetch and prints what changed; False when they are not up to date."""
    if fetched.stopped is not None or fetched.interrupted:
        print("releases: not updated (the fetch was stopped); the next run updates them", file=sys.stderr)
        return False
    outcome = releases_after_fetch(source, store, settings)
    if isinstance(outcome, SourceError):
        print(f"releases: failed: {outcome}; every fetched commit is kept", file=sys.stderr)
        return False
    print(outcome.summary())
    return outcome.complete


def releases_after_fetch(
    source: CommitSource, store: AnalysisStore, settings: DigestSettings
) -> ReleaseReport | SourceError:
    """The release update of ``settings.repository`` after its commits were fetched from ``source``,
    or the SourceError (a rate limit, the network, git) that stopped it with nothing stored."""
    if not isinstance(source, ReleaseSource):
        raise TypeError(f"{type(source).__name__} cannot list release tags")
    pattern = settings.repository_settings(settings.repository).release_tags
    try:
        return update_releases(source, store, pattern=pattern, branch=settings.github.branch)
    except SourceError as error:
        return error


def _source(args: argparse.Namespace, settings: DigestSettings) -> CommitSource:
    if args.source == "git" and args.git_dir is None:
        raise InputError("--source git needs --git-dir PATH (a local clone)")
    if args.source != "git" and args.git_dir is not None:
        raise InputError("--git-dir is only read with --source git")
    return make_source(
        settings,
        git_dir=args.git_dir if args.source == "git" else None,
        github_url=args.github_url,
        collect_patches=not args.no_patch,
    )


def make_source(
    settings: DigestSettings, *, git_dir: Path | None, github_url: str | None, collect_patches: bool
) -> CommitSource:
    """The local clone when ``git_dir`` is given, else the GitHub API (token from GITHUB_TOKEN)."""
    # Imported here: PyGithub is slow to import and most commands never talk to GitHub.
    from commit_digest.collect.git import GitSource
    from commit_digest.collect.github import GithubSource

    if git_dir is not None:
        return GitSource(
            settings.repository,
            git_dir.expanduser(),
            patch_cap_bytes=settings.github.patch_cap_bytes if collect_patches else None,
        )
    api_url = github_url or environment.value(environment.GITHUB_API_URL) or settings.github.api_url
    token = environment.value(environment.GITHUB_TOKEN)
    return GithubSource(
        settings.repository,
        settings=settings.github,
        token=token,
        api_url=api_url,
        sleep=stopping.sleep,  # a rate-limit wait ends at a stop signal
        clock=lambda: datetime.now(UTC),
        collect_patches=collect_patches,
    )


def _finish(report: FetchReport) -> int:
    print(report.summary())
    for failure in report.failed:
        print(f"failed: {failure}", file=sys.stderr)
    if report.stopped is not None:
        print(f"stopped early: {report.stopped}; the next run continues from here", file=sys.stderr)
    return EXIT_OK if report.complete else EXIT_PARTIAL


class ProgressDisplay:
    """A rich progress bar of commits listed and detailed; silent when stderr is not a terminal."""

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            disable=not console.is_terminal,
            transient=False,
        )
        self._listed: TaskID = self._progress.add_task("listed", total=None)
        self._detailed: TaskID | None = None

    def __enter__(self) -> Self:
        self._progress.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._progress.stop()

    def on_listed(self, count: int) -> None:
        self._progress.update(self._listed, completed=count)

    def on_detail_start(self, total: int) -> None:
        self._progress.update(self._listed, total=self._progress.tasks[0].completed)
        self._detailed = self._progress.add_task("detailed", total=total)

    def on_detailed(self, sha: str, outcome: str) -> None:
        if self._detailed is not None:
            self._progress.advance(self._detailed)
