"""Stop signals: the one place that handles SIGTERM and SIGINT, for every command.

The first signal asks for a stop. Where the work is paid requests (fetch, analyse, translate,
narrate, notify: a *cooperative* command) it only sets a flag: the loops that start requests ask
``stop_requested()`` and start no new one, requests in flight get ``grace`` seconds and what
arrives in them is stored, and the command ends through its normal path, saving what it saves.
A watchdog ends the process when the grace is over and nothing took the stop in hand (a request
in the main thread that does not come back). Elsewhere (start-up, a build: nothing paid is lost
by cutting them) the first signal ends the process at once, after the same one line: raising
KeyboardInterrupt there would land anywhere, in places that swallow it with a printed traceback
(an at-fork hook of the build's worker pool). A second signal ends the process at once, after
one line, whatever it is doing.

Each stored answer is counted (``kept``) and requests left behind after the grace are too
(``abandon``), so the one line that ends a stopped run says what was kept. The handlers call
nothing that takes a lock (plain assignments, ``os.write``, ``os._exit``), so a signal can never
deadlock against the thread it interrupts.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from types import FrameType
from typing import Literal

from commit_digest.counting import counted

DEFAULT_GRACE_SECONDS = 10.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# How often a waiting main thread looks at the flag: a signal delivered to another thread does
# not wake a blocked wait, so waits that must notice a stop are cut into slices of this length.
POLL_SECONDS = 0.1
Mode = Literal["interrupt", "cooperate"]


@dataclass
class _State:
    command: str = "commit-digest"
    pid: int = 0  # the process that installed the handlers (a forked child is not it)
    signum: int | None = None  # the first stop signal, once one came
    at: float = 0.0  # when (time.monotonic)
    grace: float = DEFAULT_GRACE_SECONDS
    mode: Mode = "interrupt"
    kept: dict[tuple[str, str], int] = field(default_factory=dict)  # ("analysis", "analyses") -> how many stored
    abandoned: int = 0  # requests still in flight when the grace was over
    shields: int = 0  # blocks the end of the grace must not cut (a save): the watchdog waits for them
    lock: threading.Lock = field(default_factory=threading.Lock)  # for ``kept``'s updates; never taken by a handler
    wake: tuple[int, int] | None = None  # the watchdog's pipe: a handler writes one byte to it
    stand_down: threading.Event = field(default_factory=threading.Event)  # the command took the stop in hand


_state = _State()


def stop_requested() -> bool:
    """True once a stop signal came: start no new request (requests in flight may finish)."""
    return _state.signum is not None


def stop_signal() -> signal.Signals | None:
    return None if _state.signum is None else signal.Signals(_state.signum)


def exit_status() -> int:
    """128 + the signal's number: 130 for SIGINT, 143 for SIGTERM (SIGINT when no signal came:
    a KeyboardInterrupt raised by something else)."""
    return 128 + (_state.signum or signal.SIGINT)


def deadline() -> float:
    """When (time.monotonic) the requests in flight are given up: the signal's time plus the grace."""
    return _state.at + _state.grace


def set_grace(seconds: float) -> None:
    """The grace of this run (the ``stop_grace_seconds`` setting), once the command read it."""
    _state.grace = seconds


def kept(one: str, other: str, number: int = 1) -> None:
    """``number`` more of what is stored this run, named for one and for any other count
    ("analysis", "analyses"). Any thread."""
    with _state.lock:
        _state.kept[one, other] = _state.kept.get((one, other), 0) + number


def abandon(requests: int) -> None:
    """``requests`` were still in flight when the grace was over: their answers are not waited for."""
    _state.abandoned += requests


def abandoned() -> int:
    return _state.abandoned


def take_over() -> None:
    """The command has stopped starting work and bounds what is left itself (a pool that waits
    for its requests until ``deadline()``, a save that must not be cut): the watchdog stands down."""
    _state.stand_down.set()


@contextmanager
def shielded() -> Iterator[None]:
    """A block the end of the grace does not cut (writing the durable form): should the grace end
    inside it, the watchdog waits for it. A second signal still stops at once."""
    _state.shields += 1
    try:
        yield
    finally:
        _state.shields -= 1


def stop_line(given_up: str | None = None) -> str:
    """The one line that ends a stopped run: the signal, what was kept, what was given up
    (``given_up``: said instead of the count of abandoned requests)."""
    signum = stop_signal()
    name = signum.name if signum is not None else "SIGINT"
    # No lock: a handler says this line, and copying the counts is one step for the interpreter.
    counts = [f"{counted(number, *names)} stored" for names, number in list(_state.kept.items()) if number]
    counts = counts or ["nothing new stored"]
    counts.append(given_up or f"{counted(_state.abandoned, 'request', 'requests')} in flight abandoned")
    return f"{_state.command}: stopped by {name}: {', '.join(counts)}"


def sleep(seconds: float) -> None:
    """``time.sleep`` that ends early when a stop is requested (a rate-limit wait must not hold
    a stopped run for minutes)."""
    end = time.monotonic() + seconds
    while not stop_requested():
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, POLL_SECONDS))


@contextmanager
def handling(command: str) -> Iterator[None]:
    """Installs the handlers for the block (a fresh state, the ``interrupt`` mode of start-up) and
    puts the previous ones back after it, so ``cli.main`` called in a process (a test) leaves its
    handlers as they were."""
    global _state
    _state = _State(command=command, pid=os.getpid())
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach only the main thread's handlers: a command run on another is not stopped
        return
    # A signal ignored by whoever started the process (a shell's background job ignores SIGINT)
    # stays ignored.
    handled = [signum for signum in STOP_SIGNALS if signal.getsignal(signum) is not signal.SIG_IGN]
    previous = {signum: signal.signal(signum, _on_signal) for signum in handled}
    state = _state
    state.wake = wake = os.pipe()
    watchdog = threading.Thread(target=_watch, args=(state, wake[0]), name="stop-watchdog", daemon=True)
    watchdog.start()
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        state.stand_down.set()
        os.write(wake[1], b"q")
        watchdog.join()
        for end in wake:
            os.close(end)


def cooperate() -> None:
    """From now on the first signal only sets the flag: the command's loops stop themselves.
    A signal that came before this (in interrupt mode) has already raised."""
    _state.mode = "cooperate"


@contextmanager
def interruptible() -> Iterator[None]:
    """A block that nothing paid is lost by cutting (a build): a stop signal in it ends the
    process at once after the stop line; a stop asked before it raises KeyboardInterrupt, which
    ``cli.main`` turns into that line."""
    before = _state.mode
    _state.mode = "interrupt"
    try:
        if stop_requested():
            raise KeyboardInterrupt
        yield
    finally:
        _state.mode = before


def block_in_this_thread() -> None:
    """For a worker thread (a pool's initializer): stop signals go to the main thread, whose
    waits then end at once instead of at their next slice."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    del frame
    if os.getpid() != _state.pid:
        # A forked worker (the build's): its parent handles the stop; it ends quietly.
        os._exit(128 + signum)
    if _state.signum is not None:
        name = signal.Signals(signum).name
        _say(f"{_state.command}: stopped at once by a second signal ({name}); requests in flight are abandoned")
        os._exit(128 + signum)
    _state.at = time.monotonic()
    _state.signum = signum
    if _state.mode == "interrupt":
        _say(stop_line())
        os._exit(exit_status())
    name = signal.Signals(signum).name
    _say(
        f"{_state.command}: {name} received: no new request is started; requests in flight get "
        f"{_state.grace:g} s to finish (a second signal stops at once)"
    )
    if _state.wake is not None:
        os.write(_state.wake[1], b"s")


def _watch(state: _State, wake: int) -> None:
    """Waits for a stop (a byte from the handler on ``wake``); ends the process when its grace is
    over and the command has not taken it in hand."""
    if os.read(wake, 1) != b"s":
        return
    while not state.stand_down.is_set():
        left = state.at + state.grace - time.monotonic()
        if left <= 0 and not state.shields:
            _say(stop_line(f"the grace of {state.grace:g} s is over: what was in flight is abandoned"))
            os._exit(exit_status())
        state.stand_down.wait(left if left > 0 else POLL_SECONDS)


def _say(line: str) -> None:
    """One line on stderr, written past Python's buffers: a handler may run while the main thread
    is inside a write to sys.stderr."""
    data = (line + "\n").encode("utf-8", errors="replace")
    with suppress(OSError):  # no stderr to say it on: the exit status still says it
        os.write(2, data)
