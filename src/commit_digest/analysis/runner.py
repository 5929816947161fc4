"""Running an analyzer over the store: which commits, how many at once, claims, progress, writes.

Each worker stores its commit's result the moment it has it (diskcache is safe across
threads and processes), so a crash or kill -9 loses at most the requests in flight, and SIGTERM
or Ctrl-C, which let the requests in flight finish, loses none.
Before a paid request a worker claims the commit in the store (a lease, see ``leases``) and
looks again at what is stored: a commit another run is analysing, or has analysed since this
run chose its commits, is skipped, so concurrent runs pay once per commit.

``run_pool`` is the part other paid passes share (``translate_pass``, ``narrative_pass``): a pool
with a progress line that starts no new work after a stop signal (``stopping``); each of them
holds a claim (``claims``) while one item is paid for.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import date
from enum import Enum
from typing import TypeVar
from zoneinfo import ZoneInfo

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from commit_digest import stopping
from commit_digest.analysis.base import Analyzer
from commit_digest.analysis.claims import Claims, claimed
from commit_digest.analysis.prompt import PROMPT_VERSION
from commit_digest.errors import StoreError
from commit_digest.models import SCHEMA_VERSION, Analysis, AnalysisStatus, CommitRecord, TokenUsage
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.leases import lease_name

logger = logging.getLogger("mkdocs.plugins.commit_digest.analysis")

IsDone = Callable[[Analysis | None], bool]
ItemT = TypeVar("ItemT")
ResultT = TypeVar("ResultT")


def is_current(analysis: Analysis | None, analyzer_name: str) -> bool:
    """An ok analysis by this analyzer with the current prompt and schema: nothing to redo."""
    if analysis is None or not analysis.ok:
        return False
    provenance = analysis.provenance
    return (
        provenance.analyzer == analyzer_name
        and provenance.prompt_version == PROMPT_VERSION
        and provenance.schema_version == SCHEMA_VERSION
    )


def current_for(analyzer_name: str) -> IsDone:
    return lambda analysis: is_current(analysis, analyzer_name)


@dataclass(frozen=True)
class Selection:
    """Which stored commits a run considers."""

    zone: ZoneInfo  # the site's, in which commits fall on days
    repository: str | None = None
    since: date | None = None
    until: date | None = None
    limit: int | None = None  # the newest ``limit`` of those that need an analysis
    reanalyze: bool = False


def select_records(
    records: Iterable[CommitRecord],
    *,
    is_done: IsDone,
    selection: Selection,
    exclude: Collection[tuple[str, str]] = (),
) -> list[CommitRecord]:
    """The records to analyse, newest first: not done (or all with ``reanalyze``) within the days.

    ``exclude``: commits waiting in a batch, left out unless reanalysing."""
    since, until, reanalyze = selection.since, selection.until, selection.reanalyze
    chosen = []
    for record in records:
        day = record.commit.day(selection.zone)
        if (since is not None and day < since) or (until is not None and day > until):
            continue
        if record.key in exclude and not reanalyze:
            continue
        if reanalyze or not is_done(record.analysis):
            chosen.append(record)
    chosen.sort(key=lambda record: record.commit.committed_at, reverse=True)
    return chosen[: selection.limit] if selection.limit is not None else chosen


class Skip(Enum):
    CLAIMED = "another run is analysing it"
    DONE = "analysed by another run meanwhile"
    TRANSLATING = "another run is translating it"
    TRANSLATED = "translated by another run meanwhile, or its analysis replaced"


@dataclass(frozen=True)
class Outcome:
    record: CommitRecord
    analysis: Analysis | None = None
    skipped: Skip | None = None


@dataclass
class RunSummary:
    selected: int = 0
    # The first line's words: "analysed 3 of 5 commits" or "translated 3 of 5 analyses".
    verb: str = "analysed"
    unit: str = "commits"
    by_status: dict[AnalysisStatus, int] = field(default_factory=dict)
    skipped: dict[Skip, int] = field(default_factory=dict)
    errors: int = 0  # commits whose analysis raised (a bug): not stored, retried next run
    usage: TokenUsage = field(default_factory=TokenUsage)
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)  # "<sha>: <status>: <reason>", for the end of the run

    def count(self, status: AnalysisStatus) -> int:
        return self.by_status.get(status, 0)

    @property
    def analysed(self) -> int:
        return sum(self.by_status.values())

    @property
    def failed(self) -> int:
        return self.analysed - self.count(AnalysisStatus.OK) + self.errors

    @property
    def all_ok(self) -> bool:
        """Every commit this run did not leave to another run got an ok analysis."""
        return self.failed == 0

    def add(self, outcome: Outcome) -> None:
        if outcome.skipped is not None:
            self.skipped[outcome.skipped] = self.skipped.get(outcome.skipped, 0) + 1
            return
        analysis = outcome.analysis
        assert analysis is not None, "an outcome is an analysis or a skip"
        provenance = analysis.provenance
        self.tally(outcome.record, provenance.status, provenance.usage, provenance.error)

    def tally(self, record: CommitRecord, status: AnalysisStatus, used: TokenUsage | None, error: str | None) -> None:
        """One paid item's result: its status, what it cost, and why when it is not ok."""
        self.by_status[status] = self.count(status) + 1
        self.usage += used or TokenUsage()
        if status is not AnalysisStatus.OK:
            self.problems.append(f"{record.commit.short_sha}: {status.value}: {error}")

    def figures(self) -> tuple[int, int]:
        """(failed, tokens) so far, for a progress line."""
        return self.failed, self.usage.prompt_tokens + self.usage.completion_tokens

    def add_error(self, record: CommitRecord, error: Exception) -> None:
        self.errors += 1
        self.problems.append(f"{record.commit.short_sha}: error: {type(error).__name__}: {error}")

    def lines(self) -> list[str]:
        counts = [f"{status.value} {self.count(status)}" for status in AnalysisStatus if self.count(status)]
        if self.errors:
            counts.append(f"error {self.errors}")
        skipped = [f"{count} skipped: {reason.value}" for reason, count in self.skipped.items()]
        return [
            f"{self.verb} {self.analysed} of {self.selected} {self.unit} in {self.seconds:.1f} s: "
            + (", ".join(counts) or "nothing to do"),
            *skipped,
            f"tokens: prompt {self.usage.prompt_tokens} (cached {self.usage.cached_tokens}), "
            f"completion {self.usage.completion_tokens}",
            *self.problems,
        ]


def _progress(console: Console, doing: str) -> Progress:
    return Progress(
        TextColumn(f"[bold]{doing}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("failed {task.fields[failed]}"),
        TextColumn("tokens {task.fields[tokens]}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


@dataclass(frozen=True)
class _Worker:
    """One commit: claim, look again, analyse, store, let go. Runs on a pool thread."""

    store: AnalysisStore
    analyzer: Analyzer
    is_done: IsDone
    claims: Claims | None
    replace: IsDone | None

    def __call__(self, record: CommitRecord) -> Outcome:
        with claimed(self.store, lease_name(*record.key), self.claims) as taken:
            if not taken:
                return Outcome(record, skipped=Skip.CLAIMED)
            stored = self.store.get(*record.key)
            if stored is not None and self.is_done(stored.analysis) and stored.analysis != record.analysis:
                return Outcome(record, skipped=Skip.DONE)
            commit = stored.commit if stored is not None else record.commit
            analysis = self.analyzer.analyze(commit)
            self.store.merge(CommitRecord(commit=commit, analysis=analysis), replace=self.replace)
            stopping.kept("analyses")
            logger.debug("%s: analysis stored (%s)", commit.short_sha, analysis.provenance.status.value)
            return Outcome(record, analysis=analysis)


def run_pool(
    items: Sequence[ItemT],
    work: Callable[[ItemT], ResultT],
    *,
    concurrency: int,
    console: Console,
    doing: str,
    on_result: Callable[[ItemT, ResultT], None],
    on_error: Callable[[ItemT, Exception], None],
    figures: Callable[[], tuple[int, int]],
) -> None:
    """Runs ``work`` on ``items`` with up to ``concurrency`` at once, a progress line saying
    ``doing``; ``figures`` gives the line's (failed, tokens) so far. ``work`` stores its own
    result; a raising item goes to ``on_error`` (called inside the ``except``) and the rest go on,
    except a StoreError, which stops the pool (every pass alike).

    Items are handed out one at a time as workers free up, so a stop (``stopping``) starts no new
    one: the items in flight get until the stop's deadline to store their answers, and those still
    running then are given up (``stopping.abandon``) without waiting for them."""
    queue = iter(items)
    running: dict[Future[ResultT | _NotStarted], ItemT] = {}
    pool = ThreadPoolExecutor(max_workers=concurrency, initializer=stopping.block_in_this_thread)
    given_up = False

    def fill() -> None:
        while len(running) < concurrency and not stopping.stop_requested():
            item = next(queue, _END)
            if item is _END:
                return
            running[pool.submit(_unless_stopped, work, item)] = item  # type: ignore[arg-type]

    try:
        with _progress(console, doing) as progress:
            task = progress.add_task(doing, total=len(items), failed=0, tokens=0)
            fill()
            while running:
                timeout = stopping.POLL_SECONDS
                if stopping.stop_requested():
                    stopping.take_over()
                    timeout = min(timeout, stopping.deadline() - time.monotonic())
                    if timeout <= 0:
                        given_up = True
                        break
                finished, _ = wait(running, timeout=timeout, return_when=FIRST_COMPLETED)
                for future in finished:
                    item = running.pop(future)
                    try:
                        result = future.result()
                    except StoreError:
                        # The store cannot keep what is paid for (a full disk): no new request
                        # starts, whatever the pass, and the one line says why.
                        raise
                    except Exception as error:  # noqa: BLE001 - one item's bug must not stop the paid work of the rest
                        on_error(item, error)
                    else:
                        if isinstance(result, _NotStarted):
                            continue
                        on_result(item, result)
                    failed, tokens = figures()
                    progress.update(task, advance=1, failed=failed, tokens=tokens)
                fill()
    finally:
        if given_up:
            stopping.abandon(len(running))
        # Given up on: their threads are left to their requests. Otherwise (an exception, Ctrl-C
        # raised here) requests in flight finish and store their answers before the process exits.
        pool.shutdown(wait=not given_up, cancel_futures=True)


class _NotStarted:
    """What a worker returns for an item it was handed after a stop: nothing was sent."""


_END = object()


def _unless_stopped(work: Callable[[ItemT], ResultT], item: ItemT) -> ResultT | _NotStarted:
    return _NotStarted() if stopping.stop_requested() else work(item)


def run_analysis(
    store: AnalysisStore,
    analyzer: Analyzer,
    records: list[CommitRecord],
    *,
    concurrency: int,
    is_done: IsDone,
    claims: Claims | None = None,
    replace: IsDone | None = None,
    console: Console | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> RunSummary:
    """Analyses ``records`` with up to ``concurrency`` in flight; each result is stored by its worker.

    ``is_done`` says whether a stored analysis needs no new one (checked again just before
    each commit's request); ``claims`` None runs without leases (a free analyzer);
    ``replace`` says which stored analyses a new result replaces whatever the merge rule says.
    """
    summary = RunSummary(selected=len(records))
    started = clock()

    def failed(record: CommitRecord, error: Exception) -> None:
        logger.exception("%s: the analysis raised; it is retried next run", record.commit.short_sha)
        summary.add_error(record, error)

    run_pool(
        records,
        _Worker(store, analyzer, is_done, claims, replace),
        concurrency=concurrency,
        console=console or Console(stderr=True),
        doing="analysing",
        on_result=lambda record, outcome: summary.add(outcome),
        on_error=failed,
        figures=summary.figures,
    )
    summary.seconds = clock() - started
    return summary
