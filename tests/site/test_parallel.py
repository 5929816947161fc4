"""Batches in forked workers: results in order, a worker's warnings reach the parent's loggers."""

from __future__ import annotations

import logging
import multiprocessing
import os

import pytest

from commit_digest.site.parallel import MIN_BATCH, Started, batches_of, map_batches


def test_batches_run_in_other_processes_and_return_in_order() -> None:
    parent = os.getpid()
    results = list(map_batches(lambda number: (number, os.getpid()), 6, workers=2))
    assert [number for number, _ in results] == list(range(6))
    assert all(pid != parent for _, pid in results)


def test_one_worker_runs_in_this_process() -> None:
    assert list(map_batches(lambda number: os.getpid(), 3, workers=1)) == [os.getpid()] * 3


def test_a_warning_logged_in_a_worker_is_logged_once_by_the_parent(caplog: pytest.LogCaptureFixture) -> None:
    warn = logging.getLogger("mkdocs.plugins.commit_digest.test")

    def run(number: int) -> int:
        warn.warning("batch %s has a page without a title", number)
        return number

    with caplog.at_level(logging.INFO):
        assert list(map_batches(run, 2, workers=2)) == [0, 1]
    messages = [record.getMessage() for record in caplog.records if record.name == warn.name]
    assert messages == ["batch 0 has a page without a title", "batch 1 has a page without a title"]


def test_an_error_in_a_worker_is_raised_in_the_parent() -> None:
    def run(number: int) -> int:
        if number == 1:
            raise ValueError("page commits/abc.md: bad template")
        return number

    with pytest.raises(ValueError, match=r"commits/abc\.md"):
        list(map_batches(run, 3, workers=2))


def test_items_are_cut_into_batches_that_cover_them_once() -> None:
    assert batches_of(0, 2) == []
    cut = batches_of(1000, 2)
    assert [index for batch in cut for index in batch] == list(range(1000))
    assert len(cut) == 16 and min(len(batch) for batch in cut) >= MIN_BATCH
    assert len(batches_of(3 * MIN_BATCH, 2)) == 3


def test_labels_cross_processes_as_equal_labels_shared_by_value() -> None:
    """A label pickles as its three fields; equal labels arrive as one object."""
    import pickle

    from commit_digest.models import Label, LabelSource

    first = Label(id="rocm", source=LabelSource.LLM, reason="tag [ROCm]")
    copies = pickle.loads(pickle.dumps([first, Label(id="rocm", source=LabelSource.LLM, reason="tag [ROCm]")]))
    assert copies == [first, first] and copies[0] is copies[1]
    assert copies[0].source is LabelSource.LLM


def test_started_work_runs_while_the_caller_does_other_work() -> None:
    """The search index is built meanwhile the pages are written: the workers start at once."""
    begun = multiprocessing.get_context("fork").Event()

    def run(number: int) -> int:
        begun.set()
        return number * 10

    started = Started(run, 2, workers=2)
    assert begun.wait(timeout=60)  # set by a worker before anyone asked for the results
    assert list(started.results()) == [0, 10]


def test_one_batch_is_forked_when_isolated() -> None:
    parent = os.getpid()
    assert list(Started(lambda number: os.getpid(), 1, workers=2, isolated=True).results()) != [parent]
    assert list(Started(lambda number: os.getpid(), 1, workers=2).results()) == [parent]


def test_cancelled_work_stops_its_workers() -> None:
    never = multiprocessing.get_context("fork").Event()
    started = Started(lambda number: never.wait(), 2, workers=2)
    started.cancel()  # returns: the workers are terminated, not waited for
    with pytest.raises(ValueError):  # the pool is gone
        list(started.results())


# A worker forked from a thread that holds the stop signals back (the analysis pool's threads do,
# so that a stop reaches the main thread) or while a stop handler is about to run.
_STOPPED_AT_ONCE = """
import signal, sys, threading
from commit_digest.site.parallel import Started

signal.signal(signal.SIGTERM, lambda number, frame: None)  # notes a stop, as stopping.py does

def pools() -> None:
    if sys.argv[1] == "blocked":
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    for attempt in range(int(sys.argv[2])):
        Started(lambda number: number, 4, workers=2).cancel()

thread = threading.Thread(target=pools)
thread.start()
thread.join()
print("all stopped", flush=True)
"""


@pytest.mark.parametrize(("mask", "attempts"), [("blocked", 3), ("open", 60)])
def test_a_stopped_worker_ends_whatever_the_thread_that_forked_it_held(mask: str, attempts: int) -> None:
    """The pool stops its workers with SIGTERM. A worker used to inherit its forking thread's
    signal mask (a thread that holds SIGTERM back: the worker never got it) and, until its
    initializer ran, the parent's handler; the pool then waited for it forever (a nightly build
    hung at its end). In a process of its own, so that a hang fails on the timeout."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _STOPPED_AT_ONCE, mask, str(attempts)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "all stopped", done.stderr
