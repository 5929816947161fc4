"""Real OpenAI-compatible servers for the real-model tests and benchmarks.real_llm, both serving
Gemma 3 270M on 127.0.0.1, both installed by scripts/ensure-llama-server.sh:

- ``llama-cpp-python``: llama-cpp-python 0.3.36's server (in its own venv, .venv-llm);
- ``llama.cpp``: llama.cpp's own ``llama-server``, built from the llama.cpp that sdist vendors.

And a counting proxy, whose request arrivals are markers (a server logs a request only once it has
answered it, llama-server not at all): llama-server always sits behind one, which counts its answers.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class ServerError(RuntimeError):
    """The server is not installed, or did not start."""


ROOT = Path(__file__).resolve().parents[1]
SERVER_PYTHON = ROOT / ".venv-llm" / "bin" / "python"
MODELS = Path(os.environ.get("COMMIT_DIGEST_MODELS", Path.home() / ".cache" / "commit-digest" / "models"))
MODEL_FILE = MODELS / "gemma-3-270m-q4_k_m.gguf"
MODEL_NAME = "gemma3-270m"
VERSION = "0.3.36"
BINARIES = Path(os.environ.get("COMMIT_DIGEST_BIN", Path.home() / ".cache" / "commit-digest" / "bin"))
LLAMA_SERVER_BINARY = BINARIES / f"llama-server-{VERSION}"
FAMILIES = ("llama-cpp-python", "llama.cpp")
LAUNCHER = Path(__file__).with_name("llama_launch.py")
START_SECONDS = 120.0
CHAT = '"POST /v1/chat/completions HTTP/1.1"'


@dataclass
class LlamaServer:
    """One running server; ``log`` is its output (uvicorn's access lines among llama.cpp's); a
    server that logs no requests is reached through ``proxy``, which counts them."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path
    family: str = "llama-cpp-python"
    proxy: CountingProxy | None = None

    @property
    def base_url(self) -> str:
        return self.proxy.base_url if self.proxy is not None else f"http://127.0.0.1:{self.port}/v1"

    def chat_statuses(self) -> list[int]:
        """The status of every chat request so far, in order."""
        if self.proxy is not None:
            return self.proxy.chat_statuses()
        lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        return [int(line.split(CHAT, 1)[1].split()[0]) for line in lines if CHAT in line]

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
        if self.proxy is not None:
            self.proxy.__exit__(None, None, None)
            self.proxy = None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _command(family: str, port: int, n_ctx: int) -> list[str]:
    if family == "llama.cpp":
        return [
            str(LLAMA_SERVER_BINARY),
            "-m", str(MODEL_FILE), "--alias", MODEL_NAME,
            # The file has no chat template: llama.cpp's built-in gemma one (not a Jinja text), which
            # puts the system message at the head of the first user turn.
            "--no-jinja", "--chat-template", "gemma",
            # Weights in plain CPU buffers: the AMX repacking crashes here (see llama_launch.py).
            "--no-repack",
            "--host", "127.0.0.1", "--port", str(port),
            "-c", str(n_ctx), "-t", "2", "--parallel", "1",
        ]  # fmt: skip
    return [
        # llama_cpp.server without the AMX weight buffers that crash here (see llama_launch.py).
        str(SERVER_PYTHON), str(LAUNCHER),
        "--model", str(MODEL_FILE), "--model_alias", MODEL_NAME,
        # The file has no chat template; this format drops system messages (the session finds out).
        "--chat_format", "gemma",
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(n_ctx), "--n_threads", "2",
    ]  # fmt: skip


def start_server(
    folder: Path, *, n_ctx: int = 8192, port: int | None = None, family: str = "llama-cpp-python"
) -> LlamaServer:
    """Starts the server and returns once it answers /v1/models (polled, not slept on)."""
    if family not in FAMILIES:
        raise ServerError(f"no real server of the family {family!r}: {', '.join(FAMILIES)}")
    needed = LLAMA_SERVER_BINARY if family == "llama.cpp" else SERVER_PYTHON
    if not needed.exists() or not MODEL_FILE.exists():
        raise ServerError("the real-model server is not installed: run bash scripts/ensure-llama-server.sh")
    folder.mkdir(parents=True, exist_ok=True)
    port = port or _free_port()
    log = folder / f"{family}-{port}.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            _command(family, port, n_ctx), stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = LlamaServer(process, port, log, family)
    deadline = time.monotonic() + START_SECONDS
    while not _answers(f"http://127.0.0.1:{port}/v1/models"):
        if process.poll() is not None:
            raise ServerError(
                f"the llama server exited with {process.returncode}:\n{log.read_text(errors='replace')[-3000:]}"
            )
        if time.monotonic() > deadline:
            server.kill()
            raise ServerError(f"the llama server did not answer within {START_SECONDS:g} s")
        time.sleep(0.2)
    if family == "llama.cpp":
        server.proxy = CountingProxy(port).__enter__()
    return server


def ensure_installed() -> None:
    """Runs scripts/ensure-llama-server.sh (quick when everything is there)."""
    result = subprocess.run(["bash", str(ROOT / "scripts" / "ensure-llama-server.sh")], capture_output=True, text=True)
    if result.returncode != 0:
        raise ServerError(f"scripts/ensure-llama-server.sh failed:\n{result.stderr[-3000:]}")


# -- the counting proxy ------------------------------------------------------------------------

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


class CountingProxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.arrived: list[str] = []
        self.answered: list[tuple[str, int]] = []
        self._arrival = threading.Condition()
        handler = type("Handler", (_Forward,), {"proxy": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="counting-proxy", daemon=True)

    def __enter__(self) -> CountingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def _chats(self) -> int:
        return sum(1 for path in self.arrived if path.endswith("/chat/completions"))

    def chat_requests(self) -> int:
        """How many chat requests have arrived."""
        with self._arrival:
            return self._chats()

    def wait_for_chat_requests(self, count: int, timeout: float) -> bool:
        """Blocks until ``count`` chat requests have arrived (a marker, not a sleep)."""
        with self._arrival:
            return self._arrival.wait_for(lambda: self._chats() >= count, timeout=timeout)

    def chat_statuses(self) -> list[int]:
        """The status of every chat request answered so far, in order."""
        with self._arrival:
            return [status for path, status in self.answered if path.endswith("/chat/completions")]

    def note(self, path: str) -> None:
        with self._arrival:
            self.arrived.append(path)
            self._arrival.notify_all()

    def note_answer(self, path: str, status: int) -> None:
        with self._arrival:
            self.answered.append((path, status))


class _Forward(BaseHTTPRequestHandler):
    proxy: CountingProxy
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _forward(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else None
        self.proxy.note(self.path)
        headers = {name: value for name, value in self.headers.items() if name.lower() not in _HOP_BY_HOP}
        upstream = http.client.HTTPConnection("127.0.0.1", self.proxy.upstream_port, timeout=3600)
        try:
            upstream.request(self.command, self.path, body=body, headers=headers)
            response = upstream.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            # The server died mid-request: the client sees its connection drop, as it would.
            self.close_connection = True
            self.connection.close()
            return
        finally:
            upstream.close()
        self.proxy.note_answer(self.path, response.status)
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in _HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = _forward
    do_POST = _forward
