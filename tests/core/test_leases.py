"""Claims on commits in a real store: one holder at a time, lapsing at expiry or with their process."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from commit_digest.analysis.claims import Claims, claimed
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.leases import LeaseHolder, lapsed, lease_name

NAME = lease_name("vllm-project/vllm", "0" * 40)
HERE = LeaseHolder(holder="here:100:a", host="here", pid=100)
OTHER_RUN_HERE = LeaseHolder(holder="here:200:b", host="here", pid=200)
ELSEWHERE = LeaseHolder(holder="there:100:c", host="there", pid=100)


def _take(store: AnalysisStore, holder: LeaseHolder, *, now: float, alive: set[int]) -> bool:
    return store.acquire_lease(
        NAME,
        holder.lease(now=now, seconds=60),
        lapsed=lambda held: lapsed(held, now=now, host="here", alive=lambda pid: pid in alive),
    )


def test_a_running_lease_keeps_others_out_until_it_expires(store: AnalysisStore) -> None:
    assert _take(store, ELSEWHERE, now=1000.0, alive=set())
    assert not _take(store, HERE, now=1059.0, alive={100})  # another machine's: only expiry frees it
    assert _take(store, HERE, now=1060.0, alive={100})
    assert not _take(store, ELSEWHERE, now=1061.0, alive={100})


def test_a_lease_of_a_process_gone_from_this_machine_lapses_at_once(store: AnalysisStore) -> None:
    assert _take(store, OTHER_RUN_HERE, now=1000.0, alive={200})
    assert not _take(store, HERE, now=1001.0, alive={100, 200})
    assert _take(store, HERE, now=1002.0, alive={100})  # pid 200 was killed


def test_release_frees_only_ones_own_lease_and_leases_are_not_records(store: AnalysisStore) -> None:
    revision = store.revision()
    assert _take(store, HERE, now=1000.0, alive={100})
    store.release_lease(NAME, ELSEWHERE.holder)
    assert not _take(store, ELSEWHERE, now=1001.0, alive={100})
    store.release_lease(NAME, HERE.holder)
    assert _take(store, ELSEWHERE, now=1002.0, alive={100})
    assert store.revision() == revision and len(store) == 0 and list(store.records()) == []


def test_the_same_holder_may_renew(store: AnalysisStore) -> None:
    assert _take(store, HERE, now=1000.0, alive={100})
    assert _take(store, HERE, now=1010.0, alive={100})


def test_a_claim_is_renewed_while_its_work_runs_and_no_other_run_takes_it(
    store: AnalysisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a claim lasted a fixed time from when it was taken, so work that outlived it (a slow
    server, many retries) let a second run claim the commit and pay for it again."""
    now = [1000.0]
    renewals = threading.Semaphore(0)
    acquire = store.acquire_lease

    def counted(*args: Any, **kwargs: Any) -> bool:
        taken = acquire(*args, **kwargs)
        if threading.current_thread().name.startswith("renew"):
            renewals.release()
        return taken

    monkeypatch.setattr(store, "acquire_lease", counted)
    claims = Claims(seconds=60, holder=ELSEWHERE, clock=lambda: now[0], renew_every=0.01)
    with claimed(store, NAME, claims) as taken:
        assert taken
        now[0] = 1100.0  # the work has run past the claim's first expiry (1060)
        while renewals.acquire(blocking=False):
            pass
        for _ in range(2):  # one renewal may have read the clock before it moved: wait for two more
            assert renewals.acquire(timeout=30), "the claim was never renewed"
        assert not _take(store, HERE, now=1159.0, alive={100})
    assert _take(store, HERE, now=1101.0, alive={100})  # let go when the work ended
