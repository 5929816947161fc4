"""Claims on commits, so that two runs over one store pay for each commit once.

A run claims a commit in the store before it sends the commit's request and lets go once the
answer is stored. A claim is a lease: it lapses at its expiry, and at once when its holder is
a process on this machine that no longer exists (a run killed with kill -9 must not block
the next one for the length of a lease).
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

PidAlive = Callable[[int], bool]


class Lease(BaseModel):
    """Who holds a claim and until when (seconds since the epoch)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    holder: str
    host: str
    pid: int
    expires_at: float


class LeaseHolder(BaseModel):
    """One run's identity: unique even for two runs of one process."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    holder: str
    host: str
    pid: int

    def lease(self, *, now: float, seconds: float) -> Lease:
        return Lease(holder=self.holder, host=self.host, pid=self.pid, expires_at=now + seconds)


def this_process() -> LeaseHolder:
    host, pid = socket.gethostname(), os.getpid()
    return LeaseHolder(holder=f"{host}:{pid}:{uuid.uuid4().hex[:12]}", host=host, pid=pid)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def lapsed(lease: Lease, *, now: float, host: str, alive: PidAlive = pid_alive) -> bool:
    """True when nobody holds ``lease`` any more: past its expiry, or its process is gone."""
    if lease.expires_at <= now:
        return True
    return lease.host == host and not alive(lease.pid)


def lease_name(repository: str, sha: str) -> str:
    return f"analysis/{repository}/{sha}"
