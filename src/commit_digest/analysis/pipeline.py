"""The one loop every paid task runs on (``task.PaidTask``): claim, look again, ask, store at once,
count, stop on a signal, the same for analyses, translations, narratives and briefs.

Each worker stores its item's result the moment it has it (diskcache is safe across threads and
processes), so a crash or kill -9 loses at most the requests in flight, and SIGTERM or Ctrl-C,
which let the requests in flight finish, loses none. Before a paid request a worker claims the item
in the store (a lease, see ``claims``) and asks the task whether the store still wants it: what
another run holds, or has done since this run chose, is skipped, so concurrent runs pay once. A
full store (StoreError) stops the pool whatever the task: no request starts that could not be kept.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from commit_digest import stopping
from commit_digest.analysis.claims import Claims, claimed
from commit_digest.analysis.task import Outcome, PaidTask, Skipped, TaskWords
from commit_digest.errors import StoreError
from commit_digest.models import AnalysisStatus, TokenUsage
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.words import counted, is_one

logger = logging.getLogger("mkdocs.plugins.commit_digest.analysis")

ItemT = TypeVar("ItemT")
ResultT = TypeVar("ResultT")


@dataclass
class PassSummary:
    """What one run of a task did, for its lines at the end and the night's exit status."""

    words: TaskWords
    selected: int = 0
    notes: list[str] = field(default_factory=list)  # what the plan left out and why, after the first line
    by_status: dict[AnalysisStatus, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> items
    errors: int = 0  # items whose asking raised (a bug): nothing stored, retried next run
    usage: TokenUsage = field(default_factory=TokenUsage)
    seconds: float = 0.0
    done: list[str] = field(default_factory=list)  # the task's lines about what it stored
    problems: list[str] = field(default_factory=list)  # "<item>: <status>: <reason>", listed last

    def count(self, status: AnalysisStatus) -> int:
        return self.by_status.get(status, 0)

    @property
    def answered(self) -> int:
        return sum(self.by_status.values())

    @property
    def failed(self) -> int:
        return self.answered - self.count(AnalysisStatus.OK) + self.errors

    @property
    def all_ok(self) -> bool:
        """Every item this run did not leave to another run got an ok result."""
        return self.failed == 0

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def tally(self, name: str, status: AnalysisStatus, used: TokenUsage | None, error: str | None) -> None:
        """One paid item's result: its status, what it cost, and why when it is not ok."""
        self.by_status[status] = self.count(status) + 1
        self.usage += used or TokenUsage()
        if status is not AnalysisStatus.OK:
            self.problems.append(f"{name}: {status.value}: {error}")

    def add_error(self, name: str, error: Exception) -> None:
        self.errors += 1
        self.problems.append(f"{name}: error: {type(error).__name__}: {error}")

    def figures(self) -> tuple[int, int]:
        """(failed, tokens) so far, for a progress line."""
        return self.failed, self.usage.prompt_tokens + self.usage.completion_tokens

    def lines(self) -> list[str]:
        # Each count before what it counts ("2 ok, 1 failed"), as the progress line says it.
        counts = [f"{self.count(status)} {status.value}" for status in AnalysisStatus if self.count(status)]
        if self.errors:
            counts.append(counted(self.errors, "error", "errors"))
        return [
            f"{self.words.verb} {self.answered} of {self.words.units(self.selected)} in {self.seconds:.1f} s: "
            + (", ".join(counts) or "nothing to do"),
            *self.notes,
            *self.done,
            *(f"{count} skipped: {reason}" for reason, count in self.skipped.items()),
            f"tokens: prompt {self.usage.prompt_tokens} (cached {self.usage.cached_tokens}), "
            f"completion {self.usage.completion_tokens}",
            *self.problems,
        ]


@dataclass(frozen=True)
class _Worker(Generic[ItemT, ResultT]):
    """One item: claim, look again, ask, store, let go. Runs on a pool thread."""

    store: AnalysisStore
    task: PaidTask[ItemT, ResultT]
    claims: Claims | None

    def __call__(self, item: ItemT) -> Outcome[ResultT] | Skipped:
        task = self.task
        with claimed(self.store, task.lease_name(item), self.claims) as taken:
            if not taken:
                return Skipped(f"another run is {task.words.doing} it")
            current = task.recheck(self.store, item)
            if isinstance(current, Skipped):
                return current
            outcome = task.ask(current)
            if task.keep(self.store, current, outcome):
                stopping.kept(task.words.one, task.words.kept)
                logger.debug("%s: stored (%s)", task.name_of(current), outcome.status.value)
            if outcome.status is not AnalysisStatus.OK:
                logger.warning(
                    "%s: %s %s: %s", task.name_of(current), task.words.one, outcome.status.value, outcome.error
                )
            return outcome


def run_task(
    store: AnalysisStore,
    task: PaidTask[ItemT, ResultT],
    items: Sequence[ItemT],
    *,
    concurrency: int,
    claims: Claims | None,
    summary: PassSummary | None = None,
    console: Console | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> PassSummary:
    """Runs ``task`` on ``items`` with up to ``concurrency`` in flight; each result is stored by
    its worker. ``claims`` None runs without leases (a free task: nothing is paid for twice)."""
    summary = summary or PassSummary(task.words)
    summary.selected = len(items)
    started = clock()

    def done(item: ItemT, result: Outcome[ResultT] | Skipped) -> None:
        if isinstance(result, Skipped):
            summary.skip(result.reason)
            return
        summary.tally(task.name_of(item), result.status, result.usage, result.error)
        line = task.done_line(item, result) if result.status is AnalysisStatus.OK else None
        if line is not None:
            summary.done.append(line)

    def failed(item: ItemT, error: Exception) -> None:
        logger.exception("%s: asking raised; it is retried next run", task.name_of(item))
        summary.add_error(task.name_of(item), error)

    if items:
        run_pool(
            items,
            _Worker(store, task, claims),
            concurrency=concurrency,
            console=console or Console(stderr=True),
            words=task.words,
            on_result=done,
            on_error=failed,
            figures=summary.figures,
        )
    summary.seconds = clock() - started
    return summary


def _progress(console: Console, words: TaskWords) -> Progress:
    """ "analysing ━━━ 172/172 commits · 0 failed · 0 tokens · 0:00:00": each count before what it
    counts, so no figure reads as the next one's ("172/172 failed 0" read as 172 failed)."""
    return Progress(
        TextColumn(f"[bold]{words.doing}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[unit]} · {task.fields[failed]} failed · {task.fields[tokens]} ·"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def _tokens(count: int) -> str:
    return counted(count, "token", "tokens")


def run_pool(
    items: Sequence[ItemT],
    work: Callable[[ItemT], ResultT],
    *,
    concurrency: int,
    console: Console,
    words: TaskWords,
    on_result: Callable[[ItemT, ResultT], None],
    on_error: Callable[[ItemT, Exception], None],
    figures: Callable[[], tuple[int, int]],
) -> None:
    """Runs ``work`` on ``items`` with up to ``concurrency`` at once, a progress line in ``words``
    (what it is doing, its unit); ``figures`` gives the line's (failed, tokens) so far. ``work`` stores its own
    result; a raising item goes to ``on_error`` (called inside the ``except``) and the rest go on,
    except a StoreError, which stops the pool.

    Items are handed out one at a time as workers free up, so a stop (``stopping``) starts no new
    one: the items in flight get until the stop's deadline to store their answers, and those still
    running then are given up (``stopping.abandon``) without waiting for them."""
    queue = iter(items)
    running: dict[Future[Any], ItemT] = {}
    pool = ThreadPoolExecutor(max_workers=concurrency, initializer=stopping.block_in_this_thread)
    given_up = False

    def fill() -> None:
        while len(running) < concurrency and not stopping.stop_requested():
            item = next(queue, _END)
            if item is _END:
                return
            running[pool.submit(_unless_stopped, work, item)] = item  # type: ignore[arg-type]

    try:
        with _progress(console, words) as progress:
            # The unit follows the total ("1/1 commit", "0/172 commits"), fixed for the run.
            unit = words.unit_one if is_one(len(items)) else words.unit
            bar = progress.add_task(words.doing, total=len(items), unit=unit, failed=0, tokens=_tokens(0))
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
                        # starts, whatever the task, and the one line says why.
                        raise
                    except Exception as error:  # noqa: BLE001 - one item's bug must not stop the paid work of the rest
                        on_error(item, error)
                    else:
                        if isinstance(result, _NotStarted):
                            continue
                        on_result(item, result)
                    failed, tokens = figures()
                    progress.update(bar, advance=1, failed=failed, tokens=_tokens(tokens))
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
