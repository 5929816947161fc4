"""`llm.timeout_seconds` bounds a whole request, from send to last byte (issue 45): a server that
sends a byte now and then no longer keeps a request, and the night, alive as long as it likes."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from pathlib import Path

import pytest

from commit_digest.analysis.llm_client import LlmClient
from commit_digest.analysis.llm_errors import LlmTimeoutError
from commit_digest.cli import main
from commit_digest.settings import LlmSettings
from commit_digest.store.analysis_store import AnalysisStore
from tests.analysis.conftest import API_KEY, cli_project, make_commit
from tests.fakes.openai_server import FakeOpenAIServer, analysis_content

BODY = json.dumps(
    {"choices": [{"index": 0, "finish_reason": "stop", "message": {"content": analysis_content()}}]}
).encode()
PAUSE = 0.05  # between two bytes: each read well within the per-read timeout, the whole far past it


class DrippingServer:
    """Answers a chat completion (and a probe's GET) one byte every PAUSE seconds, in chunked
    transfer encoding; with ``stall_after`` bytes it sends those and then nothing more."""

    def __init__(self, stall_after: int | None = None) -> None:
        self.stopped = threading.Event()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(handler) -> None:
                handler.do_POST()

            def do_POST(handler) -> None:  # `self` is the DrippingServer
                handler.rfile.read(int(handler.headers.get("content-length", 0)))
                handler.send_response(200)
                handler.send_header("content-type", "application/json")
                handler.send_header("transfer-encoding", "chunked")
                handler.end_headers()
                try:
                    for sent, byte in enumerate(BODY):
                        if sent == stall_after:
                            self.stopped.wait()
                        if self.stopped.wait(PAUSE):
                            return
                        handler.wfile.write(b"1\r\n" + bytes([byte]) + b"\r\n")
                        handler.wfile.flush()
                    handler.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up: as it should

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> DrippingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def dripping() -> Iterator[DrippingServer]:
    with DrippingServer() as server:
        yield server


def test_a_reply_dripping_past_the_timeout_is_cut_at_the_deadline(dripping: DrippingServer) -> None:
    """Before: with timeout_seconds 10 a dripping reply was still being read at 75 s."""
    timeout = 1.0
    client = LlmClient(LlmSettings(base_url=dripping.base_url, timeout_seconds=timeout, max_retries=0), api_key=API_KEY)
    started = time.monotonic()
    with pytest.raises(LlmTimeoutError, match=r"no reply within 1 s"):
        client.chat({"model": "m", "messages": [{"role": "user", "content": "x"}]})
    took = time.monotonic() - started
    client.close()
    assert len(BODY) * PAUSE > 10 * timeout  # the whole reply would take over ten timeouts
    assert timeout <= took < timeout + 5.0  # the whole reply takes over 40 s


def test_the_deadline_is_on_the_clock_the_client_is_given(server: FakeOpenAIServer) -> None:
    """Read on an injected clock: one that jumps past the deadline while the body arrives ends the
    request however fast the server is."""
    ticks = count()
    client = LlmClient(
        LlmSettings(base_url=server.base_url, timeout_seconds=5, max_retries=0),
        api_key=API_KEY,
        clock=lambda: 100.0 * next(ticks),
    )
    with pytest.raises(LlmTimeoutError):
        client.chat({"model": "m", "messages": [{"role": "user", "content": "x"}]})
    client.close()


def test_a_reply_that_stops_arriving_is_cut_at_the_deadline_not_a_read_timeout_later() -> None:
    """The checks between reads cannot end a read that waits: bytes until just before the deadline,
    then silence, used to last a whole per-read timeout past it (two timeouts in all)."""
    timeout = 2.0
    with DrippingServer(stall_after=int(0.9 * timeout / PAUSE)) as stalling:
        client = LlmClient(
            LlmSettings(base_url=stalling.base_url, timeout_seconds=timeout, max_retries=0), api_key=API_KEY
        )
        started = time.monotonic()
        with pytest.raises(LlmTimeoutError, match=r"no reply within 2 s"):
            client.chat({"model": "m", "messages": [{"role": "user", "content": "x"}]})
        took = time.monotonic() - started
        client.close()
    assert timeout <= took < 1.4 * timeout


def test_a_probe_has_a_deadline_of_its_own(dripping: DrippingServer) -> None:
    """Before: /v1/models and /props were read with a per-read timeout, so a server dripping a small
    body held the run up before its first commit (60 s for 12 bytes); a probe now ends by its deadline
    (the request timeout, 2 s at the least, 10 s at the most), as if the server had said nothing."""
    client = LlmClient(LlmSettings(base_url=dripping.base_url, timeout_seconds=1.0, max_retries=0), api_key=API_KEY)
    started = time.monotonic()
    facts = client.describe("props")
    took = time.monotonic() - started
    client.close()
    assert facts.models is None and facts.props is None
    assert len(BODY) * PAUSE > 10  # read whole, the two probes would take over 20 s
    assert took < 2 * 2.0 + 1.5  # two probes, each cut at its deadline (2 s at the least)


def test_analyze_against_a_dripping_server_ends_by_its_deadlines(
    dripping: DrippingServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole command: probes and the request each cut at their deadline, the failure stored."""
    commit = make_commit(40)
    llm = {"base_url": dripping.base_url, "timeout_seconds": 1, "max_retries": 0, "system_role": True}
    cli_project(tmp_path, monkeypatch, [commit], llm)
    started = time.monotonic()
    assert main(["analyze"]) == 1
    took = time.monotonic() - started
    with AnalysisStore(tmp_path / "cache") as store:
        record = store.get(commit.repository, commit.sha)
    assert record is not None and record.failure is not None
    assert "no reply within 1 s" in (record.failure.error or "")
    assert took < 10  # a probe (2 s) and the request (1 s), where reading them whole takes minutes
