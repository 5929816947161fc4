"""A real OpenAI-compatible server for the real-model tests and benchmarks.real_llm: llama-cpp-python
0.3.36's server with Gemma 3 270M, installed by scripts/ensure-llama-server.sh (in its own venv,
.venv-llm) and started on 127.0.0.1; and a counting proxy in front of it, whose request arrivals
are markers (the server logs a request only once it has answered it).
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
LAUNCHER = Path(__file__).with_name("llama_launch.py")
START_SECONDS = 120.0
CHAT = '"POST /v1/chat/completions HTTP/1.1"'


@dataclass
class LlamaServer:
    """One running server; ``log`` is its output (uvicorn's access lines among llama.cpp's)."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def chat_statuses(self) -> list[int]:
        """The status of every chat request so far, in order."""
        lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        return [int(line.split(CHAT, 1)[1].split()[0]) for line in lines if CHAT in line]

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)


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


def start_server(folder: Path, *, n_ctx: int = 8192, port: int | None = None) -> LlamaServer:
    """Starts the server and returns once it answers /v1/models (polled, not slept on)."""
    if not SERVER_PYTHON.exists() or not MODEL_FILE.exists():
        raise ServerError("the real-model server is not installed: run bash scripts/ensure-llama-server.sh")
    folder.mkdir(parents=True, exist_ok=True)
    port = port or _free_port()
    log = folder / f"llama-server-{port}.log"
    command = [
        # llama_cpp.server without the AMX weight buffers that crash here (see llama_launch.py).
        str(SERVER_PYTHON), str(LAUNCHER),
        "--model", str(MODEL_FILE), "--model_alias", MODEL_NAME,
        # The file has no chat template; this format drops system messages (the session finds out).
        "--chat_format", "gemma",
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(n_ctx), "--n_threads", "2",
    ]  # fmt: skip
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
    server = LlamaServer(process, port, log)
    deadline = time.monotonic() + START_SECONDS
    while not _answers(f"{server.base_url}/models"):
        if process.poll() is not None:
            raise ServerError(
                f"the llama server exited with {process.returncode}:\n{log.read_text(errors='replace')[-3000:]}"
            )
        if time.monotonic() > deadline:
            server.kill()
            raise ServerError(f"the llama server did not answer within {START_SECONDS:g} s")
        time.sleep(0.2)
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

    def note(self, path: str) -> None:
        with self._arrival:
            self.arrived.append(path)
            self._arrival.notify_all()


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
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in _HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = _forward
    do_POST = _forward
