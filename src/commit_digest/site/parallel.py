"""Work over batches in forked worker processes: a build uses every core it is given.

The workers are forked after the caller has everything they need in memory (the site index, the
theme's frames), so nothing is pickled but a batch's number and what it returns. A warning a
worker logs reaches the parent's loggers (MkDocs' strict mode counts it there).
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import multiprocessing.context
import multiprocessing.pool
import os
import pickle
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

Result = TypeVar("Result")

# Fewer pages than this per worker: forking costs more than it saves.
MIN_BATCH = 8


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# The work a forked worker does: set by its initializer from the pool's initargs, which the fork
# start method hands over as memory, never pickled.
_current: Callable[[int], object] | None = None


class _KeptRecords(logging.Handler):
    """A worker's log records, sent back to the parent with its batch's result."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        # Attached to two loggers (MkDocs' does not propagate to the root): a record once.
        if not getattr(record, "_sent_to_parent", False):
            record._sent_to_parent = True  # type: ignore[attr-defined]
            self.records.append((record.name, record.levelno, record.getMessage()))

    def take(self) -> list[tuple[str, int, str]]:
        records, self.records = self.records, []
        return records


_kept = _KeptRecords()


def _start_worker(run: Callable[[int], object]) -> None:
    """In a new worker: the work it does; its records go back to the parent, which prints and
    counts them once; what it inherited is left out of garbage collection (never garbage, and
    not worth scanning: a collection would touch, and so copy, every page of the parent's memory)."""
    global _current
    _current = run
    gc.freeze()
    for logger_name in ("", "mkdocs"):
        found = logging.getLogger(logger_name)
        for handler in list(found.handlers):
            found.removeHandler(handler)
        found.addHandler(_kept)


# The signals a worker is forked with blocked, until it has its own dispositions for them.
_HELD_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT})


def _quiet_signals() -> None:
    """SIGTERM (what the parent's pool sends to stop a worker) ends it at once whatever handler
    the parent had installed; Ctrl-C reaches the whole process group, and the parent, not each
    worker, decides what it stops. A signal that came while they were held (the pool stopped a
    worker still starting) is delivered now, under these dispositions."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD_SIGNALS)


@contextmanager
def _signals_held() -> Iterator[None]:
    """SIGTERM and SIGINT held back in this thread while it forks a worker, which inherits the mask:
    a pool that stops a worker before it has run a line would otherwise have its SIGTERM caught by
    the parent's handler (inherited with the memory: it only notes a stop) and wait for it forever.
    The parent gets whatever came meanwhile when the fork is done."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# Where fork is missing (Windows) no pool is made: any process class will do to define the worker.
_ForkProcess: Any = getattr(multiprocessing.context, "ForkProcess", multiprocessing.Process)


class _Worker(_ForkProcess):  # type: ignore[misc]
    """A pool worker that ends without a word when its parent is gone: a result sent to a parent
    that was killed would otherwise print a BrokenPipeError traceback from every worker. (Not
    SIGPIPE's default: a worker killed while it holds the result pipe's lock would leave the
    other workers waiting for it forever.)"""

    def start(self) -> None:
        # In whichever thread forks it: the pool's own, or its handler's when it replaces a worker.
        with _signals_held():
            super().start()

    def run(self) -> None:
        _quiet_signals()
        try:
            super().run()
        except (BrokenPipeError, ConnectionResetError, EOFError):
            return


class _Pool(multiprocessing.pool.Pool):
    @staticmethod
    def Process(ctx: Any, *args: Any, **kwds: Any) -> _Worker:
        return _Worker(*args, **kwds)


def _run_batch(number: int) -> tuple[bytes, list[tuple[str, int, str]]]:
    assert _current is not None
    try:
        # Pickled here so the parent can unpickle with the collector paused (_loaded).
        return pickle.dumps(_current(number), protocol=pickle.HIGHEST_PROTOCOL), _kept.take()
    except BaseException:
        _kept.take()
        raise


class Started(Generic[Result]):
    """``run(0)`` … ``run(batches - 1)``, started now in forked processes when ``workers`` > 1,
    so the caller can do other work meanwhile; ``results()`` waits for them, in batch order. In
    this process, when ``results()`` is asked, otherwise or where fork is not available.
    ``isolated``: forked even for one batch, so that what the work holds while it runs never
    adds to this process's peak memory (it has the whole site index besides)."""

    def __init__(self, run: Callable[[int], Result], batches: int, *, workers: int, isolated: bool = False) -> None:
        self._run, self._batches = run, batches
        self._pool: multiprocessing.pool.Pool | None = None
        alone = batches <= 1 and not isolated
        if workers <= 1 or alone or batches < 1 or "fork" not in multiprocessing.get_all_start_methods():
            return
        context = multiprocessing.get_context("fork")
        self._pool = _Pool(min(workers, batches), initializer=_start_worker, initargs=(run,), context=context)
        self._pending = self._pool.imap(_run_batch, range(batches))

    def cancel(self) -> None:
        """Stops the workers (the caller failed and will not ask for the results)."""
        if self._pool is not None:
            self._pool.terminate()

    def results(self) -> Iterator[Result]:
        if self._pool is None:
            for number in range(self._batches):
                yield self._run(number)
            return
        with self._pool:
            for result, warnings in self._pending:
                for name, level, message in warnings:
                    logging.getLogger(name).log(level, "%s", message)
                yield _loaded(result)


def map_batches(
    run: Callable[[int], Result], batches: int, *, workers: int, isolated: bool = False
) -> Iterator[Result]:
    """``run(0)`` … ``run(batches - 1)`` in forked processes (see ``Started``), results in batch order."""
    yield from Started(run, batches, workers=workers, isolated=isolated).results()


def _loaded(pickled: bytes) -> Any:
    """A batch's result: with the collector paused, as unpickling tens of thousands of objects
    otherwise runs a full collection after every few hundred (seven times slower at 15,000
    commits). Nothing it makes is garbage."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(pickled)
    finally:
        if enabled:
            gc.enable()


def batches_of(count: int, workers: int, *, per_worker: int = 8) -> list[range]:
    """``count`` items cut into about ``per_worker`` batches per worker (a slow batch does not
    hold the others up), none smaller than MIN_BATCH items."""
    if count == 0:
        return []
    wanted = max(1, min(workers * per_worker, count // MIN_BATCH))
    size = -(-count // wanted)
    return [range(start, min(start + size, count)) for start in range(0, count, size)]
