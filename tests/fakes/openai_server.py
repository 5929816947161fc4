"""A scripted OpenAI-compatible HTTP server on 127.0.0.1, for driving the real openai SDK.

Usage::

    with FakeOpenAIServer(responder=analysis_responder()) as server:
        client = openai.OpenAI(api_key="test-key", base_url=server.base_url)
        server.script("0000abcd", error(500), error(500))   # this commit: two 500s, then the responder
        ...
        assert len(server.chat_requests) == 3

Endpoints:
  POST /v1/chat/completions   a reply from the script of the first matching key, else the responder
  POST /v1/files              multipart upload (purpose, file); returns a file object
  GET  /v1/files/{id}         the file object;  GET /v1/files/{id}/content: its bytes
  POST /v1/batches            runs every line of the input file through the chat path at once
  GET  /v1/batches/{id}       the batch (status ``batch_status``, default "completed")
  GET  /v1/models             ``models`` when set (a server describing itself), else 404
  GET  /props                 ``props`` when set (llama.cpp's server settings), else 404

Scripts: ``script(key, *replies)`` queues replies for chat requests whose user message
contains ``key`` (a sha, a title); they are used in order, then the responder answers.
Replies: ``completion(...)``, ``error(status, retry_after=...)``, or ``Reply`` itself; each
may carry a ``delay`` in seconds (a slow server), and ``latency`` delays every chat reply.
Delays wait on an event that ``stop()`` sets, so no handler outlives the test.

Holding replies (a marker, not a delay): ``hold_after(n)`` answers the next ``n`` chat requests
and keeps every later one waiting, its request counted as arrived, until ``release()``; ``held``
says how many wait. A test stops a client at "the n-th answer stored, the next ones in flight".

Every request is recorded (``requests``) with the Authorization header removed, so
tests can assert on what was sent without the key ending up in an assertion message.
Usage in replies is computed with ``estimate_tokens`` (about four ASCII characters per
token) unless a reply gives its own numbers.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

JsonObject = dict[str, Any]


def estimate_tokens(text: str) -> int:
    ascii_chars = sum(1 for char in text if ord(char) < 128)
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


@dataclass
class Reply:
    """One scripted HTTP answer. ``body`` None on a 200 chat reply means "answer with content"."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    content: str | None = None
    refusal: str | None = None
    finish_reason: str = "stop"
    usage: JsonObject | None = None
    content_type: str = "application/json"
    # Streamed as it is asked (event by event, chunked) with this text after ``content``, again and
    # again until the client goes: a model in a loop, which only the client can stop.
    loop: str | None = None
    # A streamed reply answered whole (a server that ignores "stream": true).
    whole: bool = False
    # A stream without the usage chunk (a server that ignores stream_options).
    no_stream_usage: bool = False
    # The connection closed with no answer at all (llama-cpp-python failing a streamed request).
    drop: bool = False


def completion(
    content: str | None = None,
    *,
    finish_reason: str = "stop",
    refusal: str | None = None,
    usage: JsonObject | None = None,
    delay: float = 0.0,
) -> Reply:
    """A 200 chat completion with this message content (or refusal) and finish reason."""
    return Reply(content=content, refusal=refusal, finish_reason=finish_reason, usage=usage, delay=delay)


def looping(start: str, repeated: str) -> Reply:
    """A streamed reply that writes ``start`` and then ``repeated`` for ever (a model in a loop)."""
    return Reply(content=start, loop=repeated)


def error(
    status: int, message: str = "scripted failure", *, retry_after: float | None = None, delay: float = 0.0
) -> Reply:
    headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
    body = {
        "error": {
            "message": message,
            "type": "server_error" if status >= 500 else "invalid_request_error",
            "code": None,
            "param": None,
        }
    }
    return Reply(status=status, body=body, headers=headers, delay=delay)


def raw_body(body: bytes | str, *, status: int = 200, content_type: str = "text/html") -> Reply:
    """A reply sent as these exact bytes: a gateway's error page, a truncated or misshapen body."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    return Reply(status=status, body=data, content_type=content_type)


GATEWAY_PAGE = raw_body("<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>")


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names, without authorization
    body: bytes
    had_authorization: bool

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    def message(self, role: str) -> str:
        for message in (self.json or {}).get("messages", []):
            if message.get("role") == role:
                return str(message.get("content"))
        return ""


Responder = Callable[[JsonObject], Reply]


def echo_responder(request: JsonObject) -> Reply:
    """Answers every chat request with an empty JSON object (a schema violation for most callers)."""
    return completion("{}")


class FakeOpenAIServer:
    """See the module docstring. Thread-safe; start with ``with`` or ``start()``/``stop()``."""

    def __init__(
        self, responder: Responder = echo_responder, *, latency: float = 0.0, batch_status: str = "completed"
    ) -> None:
        self.responder = responder
        self.latency = latency
        self.batch_status = batch_status
        self.batch_expire_after: int | None = None  # lines after this many are expired
        self.models: JsonObject | None = None  # what GET /v1/models answers (None: 404)
        self.props: JsonObject | None = None  # what GET /props answers (None: 404)
        self.requests: list[RecordedRequest] = []
        self.files: dict[str, tuple[JsonObject, bytes]] = {}
        self.loop_events = 0  # pieces of looping replies sent (a client that stops reading stops them)
        self.batches: dict[str, JsonObject] = {}
        self._scripts: dict[str, deque[Reply]] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._held = threading.Condition()
        self._hold_until = 0  # chat replies wait until this many chat requests have arrived
        self._arrived = 0
        self._gate: int | None = None  # chat requests answered before the rest are held (hold_after)
        self._passed = 0  # chat requests let through since hold_after
        self._waiting = 0  # chat requests held at the gate now
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        with self._held:
            self._held.notify_all()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "start the server first"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    # -- scripting and inspection -------------------------------------------------------------

    def script(self, key: str, *replies: Reply) -> None:
        with self._lock:
            self._scripts.setdefault(key, deque()).extend(replies)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._scripts.clear()
            self.models = self.props = None
        with self._held:
            self._hold_until = self._arrived = 0
            self._gate, self._passed = None, 0

    def hold_after(self, count: int) -> None:
        """The next ``count`` chat requests are answered; later ones wait for ``release()``."""
        with self._held:
            self._gate, self._passed = count, 0

    def release(self) -> None:
        """Lets every held chat request (and every later one) be answered."""
        with self._held:
            self._gate = None
            self._held.notify_all()

    @property
    def held(self) -> int:
        """Chat requests waiting at the gate of ``hold_after`` now."""
        with self._held:
            return self._waiting

    def wait_for_held(self, count: int, timeout: float = 20.0) -> bool:
        """Blocks until ``count`` chat requests wait at the gate; False on timeout."""
        with self._held:
            return self._held.wait_for(lambda: self._waiting >= count, timeout=timeout)

    def hold_until(self, count: int) -> None:
        """Chat replies wait until ``count`` chat requests are in (a barrier, not a delay): a test
        can know that that many requests were in flight at once, whoever sent them."""
        with self._held:
            self._hold_until, self._arrived = count, 0

    def wait_for_chat_requests(self, count: int, timeout: float = 20.0) -> bool:
        """Blocks until ``count`` chat requests have arrived since the last reset; False on timeout."""
        with self._held:
            return self._held.wait_for(lambda: self._arrived >= count, timeout=timeout)

    def _arrive_and_wait(self) -> None:
        with self._held:
            self._arrived += 1
            self._held.notify_all()
            while self._arrived < self._hold_until and not self._stopping.is_set():
                self._held.wait(timeout=0.1)
            if self._gate is None:
                return
            self._passed += 1
            if self._passed <= self._gate:
                return
            self._waiting += 1
            self._held.notify_all()
            while self._gate is not None and not self._stopping.is_set():
                self._held.wait(timeout=0.1)
            self._waiting -= 1

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [request for request in self.requests if request.path.endswith("/chat/completions")]

    def chat_requests_for(self, key: str) -> list[RecordedRequest]:
        return [request for request in self.chat_requests if key in request.message("user")]

    # -- internals -------------------------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}-{next(self._ids)}"

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)

    def chat_reply(self, body: JsonObject) -> Reply:
        user = "".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user")
        with self._lock:
            for key, queue in self._scripts.items():
                if key in user and queue:
                    return queue.popleft()
        return self.responder(body)

    def chat_body(self, request: JsonObject, reply: Reply) -> JsonObject:
        prompt_text = "".join(str(message.get("content")) for message in request.get("messages", []))
        usage = reply.usage or {
            "prompt_tokens": estimate_tokens(prompt_text),
            "completion_tokens": estimate_tokens(reply.content or reply.refusal or ""),
        }
        usage = {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]}
        return {
            "id": self._next_id("chatcmpl"),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "fake-model"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": reply.finish_reason,
                    "message": {"role": "assistant", "content": reply.content, "refusal": reply.refusal},
                    "logprobs": None,
                }
            ],
            "usage": usage,
        }

    def run_batch(self, batch: JsonObject) -> None:
        """Answers every line of a batch's input file and writes the output and error files."""
        _, data = self.files[batch["input_file_id"]]
        outputs: list[str] = []
        errors: list[str] = []
        for number, line in enumerate(data.decode("utf-8").splitlines()):
            if not line.strip():
                continue
            item = json.loads(line)
            custom_id = item["custom_id"]
            if self.batch_expire_after is not None and number >= self.batch_expire_after:
                errors.append(
                    json.dumps(
                        {
                            "id": self._next_id("req"),
                            "custom_id": custom_id,
                            "response": None,
                            "error": {"code": "batch_expired", "message": "expired"},
                        }
                    )
                )
                continue
            reply = self.chat_reply(item["body"])
            if reply.status != 200:
                errors.append(
                    json.dumps(
                        {
                            "id": self._next_id("req"),
                            "custom_id": custom_id,
                            "response": {"status_code": reply.status, "body": reply.body},
                            "error": None,
                        }
                    )
                )
                continue
            body = reply.body if reply.body is not None else self.chat_body(item["body"], reply)
            outputs.append(
                json.dumps(
                    {
                        "id": self._next_id("req"),
                        "custom_id": custom_id,
                        "response": {"status_code": 200, "request_id": "r", "body": body},
                        "error": None,
                    }
                )
            )
        if outputs:
            batch["output_file_id"] = self._store_file("batch_output.jsonl", "batch_output", "\n".join(outputs))
        if errors:
            batch["error_file_id"] = self._store_file("batch_errors.jsonl", "batch_output", "\n".join(errors))
        batch["request_counts"] = {
            "total": len(outputs) + len(errors),
            "completed": len(outputs),
            "failed": len(errors),
        }

    def _store_file(self, name: str, purpose: str, text: str) -> str:
        data = text.encode("utf-8") + b"\n"
        file_id = self._next_id("file")
        obj = {
            "id": file_id,
            "object": "file",
            "bytes": len(data),
            "created_at": int(time.time()),
            "filename": name,
            "purpose": purpose,
            "status": "processed",
        }
        with self._lock:
            self.files[file_id] = (obj, data)
        return file_id


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read ``requests`` instead of stderr."""

    def _read(self) -> RecordedRequest:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in self.headers.items() if name.lower() != "authorization"}
        recorded = RecordedRequest(
            self.command, self.path, headers, body, "authorization" in {name.lower() for name in self.headers}
        )
        self.fake._record(recorded)
        return recorded

    def _send(
        self,
        status: int,
        payload: Any,
        headers: dict[str, str] | None = None,
        content_type: str = "application/json",
    ) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to answer

    def do_POST(self) -> None:
        recorded = self._read()
        path = self.path.split("?")[0]
        if path.endswith("/chat/completions"):
            self._chat(recorded.json)
        elif path.endswith("/files"):
            self._upload(recorded)
        elif path.endswith("/batches"):
            self._create_batch(recorded.json)
        else:
            self._send(404, {"error": {"message": f"no route {path}"}})

    def do_GET(self) -> None:
        self._read()
        parts = self.path.split("?")[0].strip("/").split("/")
        fake = self.fake
        if len(parts) >= 3 and parts[-3] == "files" and parts[-1] == "content" and parts[-2] in fake.files:
            self._send(200, fake.files[parts[-2]][1], content_type="application/octet-stream")
        elif len(parts) >= 2 and parts[-2] == "files" and parts[-1] in fake.files:
            self._send(200, fake.files[parts[-1]][0])
        elif parts == ["v1", "models"] and fake.models is not None:
            self._send(200, fake.models)
        elif parts == ["props"] and fake.props is not None:
            self._send(200, fake.props)
        elif len(parts) >= 2 and parts[-2] == "batches" and parts[-1] in fake.batches:
            batch = fake.batches[parts[-1]]
            if batch["status"] == "in_progress" and fake.batch_status != "in_progress":
                fake.run_batch(batch)
                batch["status"] = fake.batch_status
            self._send(200, batch)
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def _chat(self, request: JsonObject) -> None:
        fake = self.fake
        reply = fake.chat_reply(request)
        fake._arrive_and_wait()
        fake._wait(fake.latency + reply.delay)
        if fake._stopping.is_set():
            return
        if reply.drop:
            self.close_connection = True
            return
        if request.get("stream") and reply.body is None and reply.status == 200 and not reply.whole:
            self._stream(request, reply)
            return
        body = reply.body if reply.body is not None or reply.status != 200 else fake.chat_body(request, reply)
        self._send(reply.status, body, reply.headers, content_type=reply.content_type)

    def _stream(self, request: JsonObject, reply: Reply) -> None:
        """The reply as a chat completion's event stream, in chunked encoding: its text in pieces,
        the finish reason, the usage when asked (``stream_options.include_usage``), [DONE]."""
        fake = self.fake
        whole = fake.chat_body(request, reply)
        base = {key: whole[key] for key in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

        def event(choices: list[JsonObject], **extra: Any) -> bytes:
            return b"data: " + json.dumps({**base, "choices": choices, **extra}).encode() + b"\n\n"

        def piece(text: str) -> bytes:
            return event([{"index": 0, "delta": {"content": text}, "finish_reason": None}])

        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        text = reply.content or ""
        events = [piece(text[at : at + 40]) for at in range(0, len(text), 40)]
        if reply.refusal:
            events.append(event([{"index": 0, "delta": {"refusal": reply.refusal}, "finish_reason": None}]))
        try:
            for data in events:
                self._chunk(data)
            while reply.loop is not None and not fake._stopping.is_set():
                self._chunk(piece(reply.loop))
                fake.loop_events += 1
            self._chunk(event([{"index": 0, "delta": {}, "finish_reason": reply.finish_reason}]))
            if (request.get("stream_options") or {}).get("include_usage") and not reply.no_stream_usage:
                self._chunk(event([], usage=whole["usage"]))
            self._chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: as it should with a loop

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _upload(self, recorded: RecordedRequest) -> None:
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"content-type: " + recorded.headers["content-type"].encode() + b"\r\n\r\n" + recorded.body
        )
        fields: dict[str, tuple[str | None, bytes]] = {}
        for part in message.iter_parts():
            fields[part.get_param("name", header="content-disposition")] = (
                part.get_filename(),
                part.get_payload(decode=True) or b"",
            )
        filename, data = fields["file"]
        purpose = fields["purpose"][1].decode()
        file_id = self.fake._store_file(filename or "upload.jsonl", purpose, data.decode("utf-8").rstrip("\n"))
        self._send(200, self.fake.files[file_id][0])

    def _create_batch(self, request: JsonObject) -> None:
        fake = self.fake
        if request["input_file_id"] not in fake.files:
            self._send(404, {"error": {"message": "no such file"}})
            return
        batch_id = fake._next_id("batch")
        batch = {
            "id": batch_id,
            "object": "batch",
            "endpoint": request["endpoint"],
            "completion_window": request["completion_window"],
            "created_at": int(time.time()),
            "input_file_id": request["input_file_id"],
            "status": "in_progress",
            "output_file_id": None,
            "error_file_id": None,
            "metadata": request.get("metadata"),
        }
        fake.batches[batch_id] = batch
        self._send(200, batch)


def iter_jsonl(text: str) -> Iterator[JsonObject]:
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


# -- replies shaped like commit-digest's analysis schema (analysis/llm_schema.LlmAnalysis) ------


def analysis_payload(**overrides: Any) -> JsonObject:
    """A valid analysis reply as a dict; ``overrides`` replace top-level fields."""
    payload: JsonObject = {
        "change_type": "bugfix",
        "importance": "medium",
        "summary": ["修复了调度器在抢占时丢失请求的问题。"],
        "impact_scope": [{"area": "vllm/v1/core", "note": "调度器"}],
        "insights": {
            "architecture": None,
            "performance": "无明显影响。",
            "security": None,
            "maintainability": None,
            "compatibility": None,
        },
        "risks": ["边界情况可能仍未覆盖。"],
        "recommendations": [{"audience": "开发者", "advice": "升级后回归测试抢占场景。"}],
        "conclusion": "建议关注调度相关的回归。",
        "platforms": [],
        "subsystems": [{"id": "core", "reason": "改动了调度器"}],
    }
    payload.update(overrides)
    return payload


def analysis_content(**overrides: Any) -> str:
    return json.dumps(analysis_payload(**overrides), ensure_ascii=False)


def analysis_responder(**overrides: Any) -> Responder:
    """A responder answering every chat request with a valid analysis."""

    def respond(request: JsonObject) -> Reply:
        return completion(analysis_content(**overrides))

    return respond
