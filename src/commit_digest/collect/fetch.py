"""The fetch pipeline: window → list → skip what is stored → detail → store, one commit at a time.

Commits are detailed oldest first and each is stored as soon as it is read, so a run that
stops (rate limit, a stop signal, kill) leaves a store whose newest commit marks where the next
run continues, with nothing older missing. After a stop signal (``stopping``) no new request is
started: the commit being read is stored and the run ends. Commits that failed are remembered in
the store's metadata so the next run's window reaches back to them.

A commit the source reads but that cannot make a record (no date places it on a day, a field
the model refuses) is another matter: reading it again gives the same answer. It is skipped
with one warning naming it, remembered with the reason, and never read again, so it neither
blocks the commits after it nor makes every later night partial.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Protocol, runtime_checkable

from pydantic import ValidationError

from commit_digest import stopping
from commit_digest.collect.base import CommitRef, CommitSource
from commit_digest.collect.errors import CommitFetchError, RateLimitError, UnusableCommitError
from commit_digest.collect.window import FetchWindow, continuation_window
from commit_digest.models import Commit, first_problem
from commit_digest.store.analysis_store import AnalysisStore

logger = logging.getLogger("mkdocs.plugins.commit_digest.collect.fetch")


def failed_commits_key(repository: str) -> str:
    return f"fetch/failed/{repository}"


def skipped_commits_key(repository: str) -> str:
    """sha → why: the commits of ``repository`` that can never make a record, not read again."""
    return f"fetch/skipped/{repository}"


def last_fetch_key(repository: str) -> str:
    """When a fetch of ``repository`` last completed without error (ISO time): the site's footer
    shows it, and the data is not stale while it is recent."""
    return f"last-fetch/{repository}"


def last_fetch_time(store: AnalysisStore, repository: str) -> datetime | None:
    """The time ``last_fetch_key`` holds, if a fetch of ``repository`` ever completed."""
    fetched = store.get_meta(last_fetch_key(repository))
    return datetime.fromisoformat(fetched) if isinstance(fetched, str) else None


class FetchObserver(Protocol):
    """Told of progress (a progress bar, a log); the pipeline works without one."""

    def on_listed(self, count: int) -> None: ...

    def on_detail_start(self, total: int) -> None: ...

    def on_detailed(self, sha: str, outcome: str) -> None: ...


@runtime_checkable
class ClaimingSource(Protocol):
    """A source that only claims to be its repository (a local clone) and checks the claim,
    against what the store remembers of the repository, before anything is listed."""

    def check_identity(self, memory: AnalysisStore, branch: str | None) -> None: ...


@dataclass
class FetchReport:
    repository: str
    window: FetchWindow
    listed: int = 0
    new: int = 0
    already_stored: int = 0
    failed: list[CommitFetchError] = field(default_factory=list)
    # Found this run to be unusable: remembered, said once.
    skipped: list[UnusableCommitError] = field(default_factory=list)
    skipped_before: int = 0  # listed again, known unusable since an earlier run: not read
    stopped: RateLimitError | None = None
    interrupted: bool = False  # a stop signal ended the run before every listed commit was read

    @property
    def not_reached(self) -> int:
        """Listed commits the run did not get to (it stopped), or could not list at all."""
        return (
            self.listed
            - self.new
            - self.already_stored
            - len(self.failed)
            - len(self.skipped)
            - self.skipped_before
        )

    @property
    def complete(self) -> bool:
        """Nothing failed, nothing was newly found unusable, nothing was left unread."""
        return not self.failed and not self.skipped and self.stopped is None and not self.interrupted

    @property
    def up_to_date(self) -> bool:
        """The store holds every commit the run listed that can ever be stored."""
        return not self.failed and self.stopped is None and not self.interrupted

    def summary(self) -> str:
        line = (
            f"{self.repository} {self.window.describe()}: {self.listed} listed, {self.new} new, "
            f"{self.already_stored} already stored, {len(self.failed)} failed"
        )
        if self.skipped:
            line += f", {len(self.skipped)} skipped for good"
        if self.skipped_before:
            line += f", {self.skipped_before} skipped by an earlier run"
        if self.stopped is not None:
            line += f", {self.not_reached} not fetched (stopped: {self.stopped})"
        elif self.interrupted:
            line += f", {self.not_reached} not fetched (stopped by a signal)"
        return line


def pending_failures(store: AnalysisStore, repository: str) -> dict[str, str]:
    """sha → committed_at (ISO) of commits that failed to fetch and have not been fetched since."""
    value = store.get_meta(failed_commits_key(repository))
    return dict(value) if isinstance(value, dict) else {}


def skipped_commits(store: AnalysisStore, repository: str) -> dict[str, str]:
    """sha → reason of the commits of ``repository`` found unusable by an earlier run."""
    value = store.get_meta(skipped_commits_key(repository))
    return dict(value) if isinstance(value, dict) else {}


def window_for_run(
    store: AnalysisStore,
    repository: str,
    requested: FetchWindow | None,
    *,
    now: datetime,
    zone: tzinfo,
    default_days: int,
) -> FetchWindow:
    """The requested window, or (no dates given) the continuation of what the store holds."""
    if requested is not None:
        return requested
    failed_times = [datetime.fromisoformat(moment) for moment in pending_failures(store, repository).values()]
    newest = store.newest_commit_time(repository)
    if newest is not None and newest > now:
        # A commit dated ahead (a wrong clock, a hand-made date in year 9000) would start every
        # later window after the commits still to come.
        newest = now
    return continuation_window(
        newest,
        min(failed_times, default=None),
        now=now,
        zone=zone,
        default_days=default_days,
    )


def fetch_commits(
    source: CommitSource,
    store: AnalysisStore,
    window: FetchWindow,
    *,
    branch: str | None,
    with_pull_requests: bool,
    observer: FetchObserver | None = None,
) -> FetchReport:
    """Stores every commit of ``window`` not yet stored. Errors that make the source unusable
    (SourceError: a bad token, a clone that is not the repository) propagate; a commit that
    fails is counted and the others continue; a commit that can never make a record is skipped
    and remembered; a rate limit the run may not wait out ends the run with what was stored kept."""
    repository = source.repository
    if isinstance(source, ClaimingSource):
        # Before the first listing: a clone of another repository must not leave one record behind.
        source.check_identity(store, branch)
    report = FetchReport(repository=repository, window=window)
    refs: dict[str, CommitRef] = {}
    try:
        for ref in source.list_commits(branch, window):
            refs.setdefault(ref.sha, ref)
            if observer is not None:
                observer.on_listed(len(refs))
            if stopping.stop_requested():
                # Nothing is detailed from a list cut short: the next run lists the window again.
                stopping.take_over()
                report.listed, report.interrupted = len(refs), True
                return report
    except RateLimitError as error:
        report.listed = len(refs)
        report.stopped = error
        return report
    report.listed = len(refs)
    missing: list[CommitRef] = []
    for ref in refs.values():
        if (repository, ref.sha) in store:
            report.already_stored += 1
        else:
            missing.append(ref)
    # A commit listed with no time that places it goes first: it is skipped or stored at once.
    missing.sort(key=lambda ref: (ref.committed_at or window.start, ref.sha))
    logger.debug("%s: %s listed, %s to fetch", repository, report.listed, len(missing))
    if observer is not None:
        observer.on_detail_start(len(missing))
    failures = pending_failures(store, repository)
    vanished = [
        sha
        for sha, moment in failures.items()
        if sha not in refs and window.contains(datetime.fromisoformat(moment))
    ]
    if vanished:
        # No longer on the branch (force-pushed away): stop reaching back for them.
        logger.info("%s: %s failed commits are no longer listed; forgetting them", repository, len(vanished))
        for sha in vanished:
            del failures[sha]
        store.set_meta(failed_commits_key(repository), failures)
    # Kept even when no longer listed: a sha is small, and one that left the branch never returns.
    skipped = skipped_commits(store, repository)
    for ref in missing:
        if stopping.stop_requested():
            stopping.take_over()
            report.interrupted = True
            break
        if ref.sha in skipped:
            report.skipped_before += 1
            _observe(observer, ref.sha, "skipped")
            continue
        try:
            commit = _detailed(source, ref.sha, with_pull_request=with_pull_requests)
        except UnusableCommitError as error:
            logger.warning("%s: skipped %s; it is not fetched again", repository, error)
            report.skipped.append(error)
            skipped[ref.sha] = error.reason
            store.set_meta(skipped_commits_key(repository), skipped)
            if failures.pop(ref.sha, None) is not None:
                store.set_meta(failed_commits_key(repository), failures)
            _observe(observer, ref.sha, "skipped")
            continue
        except CommitFetchError as error:
            if stopping.stop_requested():
                # A stop sent to the process group ended git under this commit: not a failure.
                stopping.take_over()
                report.interrupted = True
                break
            logger.warning("%s: %s", repository, error)
            report.failed.append(error)
            failures[ref.sha] = (ref.committed_at or window.start).isoformat()
            store.set_meta(failed_commits_key(repository), failures)
            _observe(observer, ref.sha, "failed")
            continue
        except RateLimitError as error:
            report.stopped = error
            break
        if store.add_commit(commit):
            report.new += 1
            stopping.kept("commit", "commits")
            logger.debug("%s: stored %s", repository, ref.sha)
        else:
            report.already_stored += 1
        if failures.pop(ref.sha, None) is not None:
            store.set_meta(failed_commits_key(repository), failures)
        _observe(observer, ref.sha, "stored")
    if report.up_to_date:
        store.set_meta(last_fetch_key(repository), datetime.now(UTC).isoformat(timespec="seconds"))
    return report


def _detailed(source: CommitSource, sha: str, *, with_pull_request: bool) -> Commit:
    try:
        return source.detail_commit(sha, with_pull_request=with_pull_request)
    except ValidationError as error:
        # The source read the commit and the model refuses what it holds: the same every time.
        raise UnusableCommitError(sha, f"the {error.title} record refuses it: {first_problem(error)}") from None


def _observe(observer: FetchObserver | None, sha: str, outcome: str) -> None:
    if observer is not None:
        observer.on_detailed(sha, outcome)
