"""A request's deadline where reads cannot see it: a server that stops sending leaves a read
waiting for a whole per-read timeout, however near the deadline it began. The HTTP client (httpx2,
the OpenAI SDK's) sets its timeouts once per request; this cuts the connection when the deadline
comes, which ends the read that waits."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import httpx2


@contextmanager
def cut_at(response: httpx2.Response, seconds: float) -> Iterator[threading.Event]:
    """Shuts ``response``'s connection down ``seconds`` from now unless the block has ended; the
    event says whether it did. A shutdown wakes a read blocked in another thread (a close does not)."""
    cut = threading.Event()
    stream = response.extensions.get("network_stream")
    connection = stream.get_extra_info("socket") if stream is not None else None
    if not isinstance(connection, socket.socket):
        yield cut  # no socket to cut (HTTP/2, a test transport): the checks between reads remain
        return

    def shut() -> None:
        cut.set()
        with suppress(OSError):  # closed meanwhile
            connection.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(max(seconds, 0.0), shut)
    timer.daemon = True
    timer.start()
    try:
        yield cut
    finally:
        timer.cancel()
