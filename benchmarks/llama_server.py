"""Real OpenAI-compatible servers for the real-model tests and benchmarks.real_llm, both serving
Gemma 3 270M on 127.0.0.1, both installed by scripts/ensure-llama-server.sh:

- ``llama-cpp-python``: llama-cpp-python 0.3.36's server (in its own venv, .venv-llm);
- ``llama.cpp``: llama.cpp's own ``llama-server``, built from the llama.cpp that sdist vendors.

``llama.cpp`` also serves SmolLM2-135M-Instruct (``model="smollm2"``, fetched by
benchmarks/small_model.py), with the ChatML template its GGUF carries (``--jinja``).

And a counting proxy, whose request arrivals are markers (a server logs a request only once it has
answered it, llama-server not at all): llama-server always sits behind one, which counts its answers
and times each request from arrival to last byte. A streamed reply (Server-Sent Events) is passed
on as it arrives, and a client that goes away takes the proxy's upstream connection with it (as if
the client spoke to the server itself: llama-server stops a generation whose client disconnected).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from benchmarks.small_model import SMOLLM2_FILE, SMOLLM2_NAME


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


@dataclass(frozen=True)
class ServedModel:
    """A model a real server can serve: its file, the name it is served under, its quantisation."""

    file: Path
    name: str
    quantization: str


# "gemma" is what the tests use (MODEL_FILE, MODEL_NAME); "smollm2" is an instruction-tuned model
# with its own chat template, for benchmarks.real_llm --model smollm2 (llama.cpp's server only).
SERVED_MODELS = {
    "gemma": ServedModel(MODEL_FILE, MODEL_NAME, "Q4_K_M"),
    "smollm2": ServedModel(SMOLLM2_FILE, SMOLLM2_NAME, "Q4_1"),
}


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


def _command(
    family: str, port: int, n_ctx: int, model: str = "gemma", threads: int = 2, lean: bool = False
) -> list[str]:
    # Gemma 3's sliding-window layers keep only the last window of a prompt: llama-server then
    # evaluates every prompt whole unless the cache is full-size.
    reuse = ["--swa-full"] if lean else []
    if model == "smollm2":
        return [
            str(LLAMA_SERVER_BINARY),
            "-m", str(SERVED_MODELS[model].file), "--alias", SERVED_MODELS[model].name,
            # The GGUF carries its chat template (ChatML), read with Jinja; no --chat-template.
            "--jinja",
            "--no-repack",
            "--host", "127.0.0.1", "--port", str(port),
            "-c", str(n_ctx), "-t", str(threads), "--parallel", "1", *reuse,
        ]  # fmt: skip
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
            "-c", str(n_ctx), "-t", str(threads), "--parallel", "1", *reuse,
        ]  # fmt: skip
    return [
        # llama_cpp.server without the AMX weight buffers that crash here (see llama_launch.py).
        str(SERVER_PYTHON), str(LAUNCHER),
        "--model", str(MODEL_FILE), "--model_alias", MODEL_NAME,
        # The file has no chat template; this format drops system messages (the session finds out).
        "--chat_format", "gemma",
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(n_ctx), "--n_threads", str(threads), "--n_threads_batch", str(threads),
        # Its default computes the logits of every prompt token (for logprobs, which no run asks
        # for): over Gemma's 262k-token vocabulary, most of a prompt's cost.
        *(["--logits_all", "false"] if lean else []),
    ]  # fmt: skip


def installed(family: str, model: str = "gemma") -> bool:
    """Whether the server of ``family`` and the model's file are there (no install needed)."""
    needed = LLAMA_SERVER_BINARY if family == "llama.cpp" else SERVER_PYTHON
    return needed.exists() and SERVED_MODELS[model].file.exists()


def start_server(
    folder: Path,
    *,
    n_ctx: int = 8192,
    port: int | None = None,
    family: str = "llama-cpp-python",
    model: str = "gemma",
    threads: int = 2,
    lean: bool = False,
) -> LlamaServer:
    """Starts the server and returns once it answers /v1/models (polled, not slept on).

    ``threads``: the server's threads for prompts and generation alike. On a busy machine one is
    far faster than two: llama.cpp's threads wait for each other at every step, spinning while
    the other is off the CPU (measured at load 11 on 2 cores: 5-37 tokens a second with one,
    0.6-1 with two). ``lean``: the same replies for less work. llama-server keeps a full-size
    cache, so a prompt that begins as the last one did (the same instructions) is evaluated only
    from where it differs; llama-cpp-python's server computes the logits of a prompt's last token
    only, not of each (a 1,400-token prompt: 5 s instead of 20 on a fresh server)."""
    if family not in FAMILIES:
        raise ServerError(f"no real server of the family {family!r}: {', '.join(FAMILIES)}")
    if model not in SERVED_MODELS:
        raise ServerError(f"no model {model!r}: {', '.join(SERVED_MODELS)}")
    if model != "gemma" and family != "llama.cpp":
        raise ServerError(f"the model {model!r} is served by the llama.cpp family only")
    if not installed(family, model):
        if model == "smollm2":
            raise ServerError("llama-server or the model is missing: run python -m benchmarks.small_model")
        raise ServerError("the real-model server is not installed: run bash scripts/ensure-llama-server.sh")
    folder.mkdir(parents=True, exist_ok=True)
    port = port or _free_port()
    log = folder / f"{family}-{port}.log"
    with log.open("wb") as output:
        command = _command(family, port, n_ctx, model, threads, lean)
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
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
# What an exchange keeps of a reply, for its usage: a JSON reply is far smaller; a stream longer
# than this keeps its head and its last events (where the usage is).
_REPLY_KEEP = 4 << 20
_TAIL_KEEP = 64 << 10


@dataclass
class Exchange:
    """One request through the proxy: what was asked, how it ended, and when.

    ``ended``: ``complete`` (the whole reply reached the client), ``client closed`` (the client went
    away first; the upstream connection was closed with it), ``upstream failed`` (the server's
    connection dropped or failed), or ``open`` while it runs. ``seconds``: from the request's
    arrival to the reply's last byte (or to the end of the exchange when it did not complete)."""

    path: str
    request: bytes
    started: float
    status: int | None = None
    seconds: float | None = None
    ended: str = "open"
    streamed: bool = False
    events: int = 0
    reply: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)

    @property
    def is_chat(self) -> bool:
        return self.path.endswith("/chat/completions")

    def keep(self, data: bytes) -> None:
        if len(self.reply) < _REPLY_KEEP:
            self.reply += data[: _REPLY_KEEP - len(self.reply)]
        self.tail = (self.tail + data)[-_TAIL_KEEP:]
        if self.streamed:
            self.events += data.count(b"data:")

    def usage(self) -> tuple[int, int] | None:
        """Prompt and completion tokens the server counted in its reply (the last usage a stream
        sent), or None when the reply carried none (cut short, or a failure)."""
        if not self.streamed:
            try:
                usage = json.loads(bytes(self.reply)).get("usage")
            except (ValueError, AttributeError):
                return None
            return _tokens(usage)
        found = None
        for line in bytes(self.tail).splitlines():
            if line.startswith(b"data:") and b'"usage"' in line:
                try:
                    found = _tokens(json.loads(line[5:]).get("usage")) or found
                except (ValueError, AttributeError):
                    continue
        return found


def _tokens(usage: Any) -> tuple[int, int] | None:
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if isinstance(prompt, int) and isinstance(completion, int):
        return prompt, completion
    return None


class CountingProxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.arrived: list[str] = []
        self.answered: list[tuple[str, int]] = []
        self.exchanges: list[Exchange] = []
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

    def chat_exchanges(self) -> list[Exchange]:
        """Every chat request so far, in order of arrival, with its status, seconds and ending."""
        with self._arrival:
            return [exchange for exchange in self.exchanges if exchange.is_chat]

    def note(self, path: str, exchange: Exchange | None = None) -> None:
        with self._arrival:
            self.arrived.append(path)
            if exchange is not None:
                self.exchanges.append(exchange)
            self._arrival.notify_all()

    def note_answer(self, path: str, status: int) -> None:
        with self._arrival:
            self.answered.append((path, status))

    def note_end(self, exchange: Exchange, ended: str) -> None:
        with self._arrival:
            exchange.ended = ended
            exchange.seconds = time.monotonic() - exchange.started
            self._arrival.notify_all()


class _ClientWatch:
    """Watches the client's connection while an exchange runs: when the client closes it, the
    upstream connection is shut down too, so the server sees its client go (llama-server then
    stops generating) instead of finishing a reply nobody reads."""

    def __init__(self, client: socket.socket, upstream: http.client.HTTPConnection) -> None:
        self.client = client
        self.upstream = upstream
        self.client_gone = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="proxy-client-watch", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.is_set():
            try:
                readable, _, _ = select.select([self.client], [], [], 0.2)
                if not readable:
                    continue
                if self.client.recv(1, socket.MSG_PEEK):
                    return  # the client sent more (a next request): not a close; stop watching
            except (OSError, ValueError):
                pass
            self.client_gone = True
            self.close_upstream()
            return

    def close_upstream(self) -> None:
        sock = self.upstream.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1)


class _Forward(BaseHTTPRequestHandler):
    proxy: CountingProxy
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _forward(self) -> None:
        started = time.monotonic()
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else None
        exchange = Exchange(self.path, body or b"", started)
        self.proxy.note(self.path, exchange)
        headers = {name: value for name, value in self.headers.items() if name.lower() not in _HOP_BY_HOP}
        upstream = http.client.HTTPConnection("127.0.0.1", self.proxy.upstream_port, timeout=3600)
        watch = _ClientWatch(self.connection, upstream)
        try:
            self._exchange(upstream, body, headers, exchange, watch)
        finally:
            watch.stop()
            upstream.close()

    def _drop(self, exchange: Exchange, watch: _ClientWatch) -> None:
        """The server died mid-request, or the client went: the client sees its connection drop."""
        self.close_connection = True
        self.connection.close()
        self.proxy.note_end(exchange, "client closed" if watch.client_gone else "upstream failed")

    def _exchange(
        self,
        upstream: http.client.HTTPConnection,
        body: bytes | None,
        headers: dict[str, str],
        exchange: Exchange,
        watch: _ClientWatch,
    ) -> None:
        try:
            upstream.request(self.command, self.path, body=body, headers=headers)
            response = upstream.getresponse()
            exchange.status = response.status
            exchange.streamed = (response.getheader("content-type") or "").startswith("text/event-stream")
            data = b"" if exchange.streamed else response.read()
        except (OSError, http.client.HTTPException):
            self._drop(exchange, watch)
            return
        self.proxy.note_answer(self.path, response.status)
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in _HOP_BY_HOP:
                self.send_header(name, value)
        if not exchange.streamed:
            exchange.keep(data)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except OSError:
                self._drop(exchange, watch)
                return
            self.proxy.note_end(exchange, "complete")
            return
        self._relay(response, exchange, watch)

    def _relay(self, response: http.client.HTTPResponse, exchange: Exchange, watch: _ClientWatch) -> None:
        """A stream (chunked or close-delimited upstream) passed on piece by piece as it arrives:
        chunked to an HTTP/1.1 client, close-delimited to an older one."""
        chunked = self.request_version >= "HTTP/1.1"
        if chunked:
            self.send_header("transfer-encoding", "chunked")
        else:
            self.send_header("connection", "close")
            self.close_connection = True
        try:
            self.end_headers()
            self.wfile.flush()
        except OSError:
            self._client_went(exchange, watch)
            return
        while True:
            try:
                piece = response.read1(65536)
            except (OSError, http.client.HTTPException, ValueError):
                self._drop(exchange, watch)  # the server dropped mid-stream (or the client went)
                return
            try:
                if not piece:
                    if chunked:
                        self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    break
                exchange.keep(piece)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                self.wfile.flush()
            except OSError:
                self._client_went(exchange, watch)
                return
        self.proxy.note_end(exchange, "complete")

    def _client_went(self, exchange: Exchange, watch: _ClientWatch) -> None:
        watch.client_gone = True
        watch.close_upstream()
        self._drop(exchange, watch)

    do_GET = _forward
    do_POST = _forward
