"""Claims on paid work, so that two runs over one store pay for each item once.

A run claims an item in the store (a lease, see ``store.leases``) before it sends the item's
requests and lets go once the answer is stored. While it works, the claim is renewed every third
of its length, so it never lapses while a request of its holder can still be running, however many
requests, retries and waits the item takes: it lapses only once its holder is gone, at its expiry
(a run on another machine), or at once (a process of this machine that no longer exists).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from commit_digest.errors import StoreError
from commit_digest.settings import LlmSettings
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.leases import LeaseHolder, lapsed, this_process

logger = logging.getLogger("mkdocs.plugins.commit_digest.analysis")


def lease_seconds(settings: LlmSettings) -> float:
    """How long a claim lasts unrenewed: up to three requests (a cut-off and an invalid reply are
    each asked again once), each with every retry and its longest wait. A run on another machine
    that died holding a claim keeps the item from the others this long."""
    one_request = (settings.max_retries + 1) * settings.timeout_seconds
    one_request += settings.max_retries * settings.max_retry_wait_seconds
    return 3 * one_request + 60.0


@dataclass(frozen=True)
class Claims:
    """How a run claims items before paying for them."""

    seconds: float  # a lease's length, renewed every third of it while its item is worked on
    holder: LeaseHolder = field(default_factory=this_process)
    clock: Callable[[], float] = time.time
    # Seconds of real time between two renewals; None: a third of ``seconds``.
    renew_every: float | None = None


@contextmanager
def claimed(store: AnalysisStore, name: str, claims: Claims | None) -> Iterator[bool]:
    """Holds the claim ``name`` while the block runs, renewed until it ends; yields False (and holds
    nothing) when another run holds it. ``claims`` None: nothing is claimed (a free analyzer) and the
    block always runs."""
    if claims is None:
        yield True
        return
    if not _take(store, name, claims):
        yield False
        return
    done = threading.Event()
    renewal = threading.Thread(target=_renew, args=(store, name, claims, done), name=f"renew {name}", daemon=True)
    renewal.start()
    try:
        yield True
    finally:
        done.set()
        renewal.join()
        store.release_lease(name, claims.holder.holder)


def _take(store: AnalysisStore, name: str, claims: Claims) -> bool:
    holder = claims.holder
    lease = holder.lease(now=claims.clock(), seconds=claims.seconds)
    return store.acquire_lease(name, lease, lapsed=lambda held: lapsed(held, now=claims.clock(), host=holder.host))


def _renew(store: AnalysisStore, name: str, claims: Claims, done: threading.Event) -> None:
    every = claims.renew_every if claims.renew_every is not None else claims.seconds / 3
    while not done.wait(every):
        try:
            kept = _take(store, name, claims)
        except StoreError as error:
            # The next renewal may succeed; the work goes on meanwhile.
            logger.warning("%s: the claim could not be renewed: %s", name, error)
            continue
        if not kept:
            logger.warning("%s: the claim lapsed and another run took it over", name)
            return
