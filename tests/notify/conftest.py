"""A webhook server on 127.0.0.1 that answers as the services do, and the store and project the
notify tests share. Nothing reaches the internet and nothing sleeps: the sender's sleep is recorded."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from commit_digest.models import ChangeType, CommitRecord, Importance
from commit_digest.notify.http_sender import HttpSender
from commit_digest.store.analysis_store import AnalysisStore
from tests.site.conftest import project_config
from tests.site.factories import label, make_commit, ok_analysis

DAY = datetime(2026, 1, 8, tzinfo=UTC)
NOW = DAY + timedelta(days=1, hours=3)  # the morning after: the day is complete
SITE_URL = "https://digest.example.org/"
HOSTILE_TITLES = (
    "<!channel> deploy now (#1)",
    "<!here> look (#2)",
    "<@U123> please review (#3)",
    "@all urgent fix (#4)",
    "@everyone read this (#5)",
    '<at user_id="all">所有人</at> ping (#6)',
    "**bold** _it_ ~~gone~~ `code` [click](javascript:alert(1)) (#7)",
    "<script>alert('x')</script> <b>html</b> & more (#8)",
)


UNANSWERED = 0  # an answer's status that closes the connection without any answer


@dataclass
class Received:
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Hook:
    """The scripted answers of one path: (status, headers, body) in turn, then the last forever."""

    answers: list[tuple[int, dict[str, str], bytes]] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)


class Hold:
    """The next post to one path is accepted and its answer held back until ``release``: a sender
    stopped while it waits has been accepted but never heard so."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.released = threading.Event()

    def wait_for_post(self) -> None:
        assert self.arrived.wait(timeout=60), "the held post never arrived"

    def release(self) -> None:
        self.released.set()


class WebhookServer:
    def __init__(self) -> None:
        self.hooks: dict[str, Hook] = {}
        self.holds: dict[str, Hold] = {}
        self._every_hold: list[Hold] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                parts = urlsplit(self.path)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                hook = server.hooks.setdefault(parts.path, Hook())
                query = {key: values[0] for key, values in parse_qs(parts.query).items()}
                hook.received.append(Received(parts.path, query, {k.lower(): v for k, v in self.headers.items()}, body))
                status, headers, answer = hook.answers.pop(0) if len(hook.answers) > 1 else (hook.answers or [ok()])[0]
                held = server.holds.pop(parts.path, None)
                if held is not None:
                    held.arrived.set()
                    held.released.wait(timeout=60)
                if status == UNANSWERED:
                    self.close_connection = True  # the post is read, and the connection closed unanswered
                    return
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a held answer written to a sender killed meanwhile: the sender is gone, as meant

        self._server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def answer(self, path: str, *answers: tuple[int, dict[str, str], bytes]) -> str:
        self.hooks[path] = Hook(answers=list(answers))
        return self.url + path

    def hold(self, path: str) -> Hold:
        self.holds[path] = Hold()
        self._every_hold.append(self.holds[path])
        return self.holds[path]

    def received(self, path: str) -> list[Received]:
        return self.hooks.get(path, Hook()).received

    def close(self) -> None:
        for held in self._every_hold:
            held.release()
        self._server.shutdown()
        self._server.server_close()


def ok(body: object = None, status: int = 200) -> tuple[int, dict[str, str], bytes]:
    return (status, {"Content-Type": "application/json"}, json.dumps(body).encode() if body is not None else b"ok")


@pytest.fixture
def server() -> Iterator[WebhookServer]:
    running = WebhookServer()
    yield running
    running.close()


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def http(sleeps: list[float]) -> Iterator[HttpSender]:
    sender = HttpSender(sleep=sleeps.append, clock=lambda: NOW)
    yield sender
    sender.close()


def day_records(count: int = 6, *, titles: tuple[str, ...] = (), day: datetime = DAY) -> list[CommitRecord]:
    """A day of ``count`` commits (high, medium and low; on ROCm and CUDA or none), then ``titles``."""
    records = []
    importances = (Importance.HIGH, Importance.MEDIUM, Importance.LOW)
    platforms = ((label("rocm", "ROCm"),), (label("cuda", "CUDA"),), ())
    for number in range(count + len(titles)):
        title = (
            titles[number - count]
            if number >= count
            else f"[Core] Change number {number} in the engine (#{40000 + number})"
        )
        records.append(
            CommitRecord(
                commit=make_commit(f"{day.date()}-{number}", title, day + timedelta(minutes=10 + number), author=title),
                analysis=ok_analysis(
                    importances[number % 3],
                    change_type=ChangeType.BUGFIX,
                    summary=(f"Summary of {title}",),
                    platforms=platforms[number % 3],
                ),
            )
        )
    return records


def write_project(root: Path, channels: list[dict[str, object]], records: list[CommitRecord]) -> Path:
    """mkdocs.yml with ``channels`` under notify:, and a store holding ``records``."""
    root.mkdir(parents=True, exist_ok=True)
    with AnalysisStore(root / "cache") as store:
        for record in records:
            store.put(record)
    config = project_config(cache_dir="cache", notify=channels)
    config["site_url"] = SITE_URL
    config_file = root / "mkdocs.yml"
    config_file.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return config_file
