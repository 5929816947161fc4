"""The OpenAI edge: the only module that imports ``openai``.

It speaks to any OpenAI-compatible endpoint. The key and the base URL come from
OPENAI_API_KEY and OPENAI_BASE_URL (``llm.base_url`` wins over the variable), an empty one
counting as unset (``environment``); the key is never copied anywhere else, and every error
text leaving this module is scrubbed of it.

Retries are ours, not the SDK's (it is built with ``max_retries=0``): the SDK sleeps with
``time.sleep`` and its own backoff, while here the sleep function is injected, Retry-After
is honoured up to ``max_retry_wait_seconds``, and a timeout is a failure for the commit at
once instead of a second two-minute wait.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit, urlunsplit

import httpx2
import openai
import pydantic
from openai.lib import type_to_response_format_param
from openai.types import Batch

from commit_digest import environment
from commit_digest.analysis.diff_budget import estimate_tokens
from commit_digest.analysis.llm_errors import (
    MIN_SECRET_LENGTH,
    InvalidReplyError,
    LlmConfigError,
    LlmError,
    LlmRequestError,
    LlmTimeoutError,
    LlmUnavailableError,
    scrub,
)
from commit_digest.analysis.llm_reply import (
    ChatReply,
    EmptyStreamError,
    reply_from_text,
    retry_after_seconds,
    utf8_body,
)
from commit_digest.analysis.reply_reading import read_body, read_stream
from commit_digest.analysis.reply_watch import LoopWatch, most_items_in
from commit_digest.analysis.servers.families import ServerFacts, family_of, server_root
from commit_digest.analysis.servers.forms import FORMS, JSON_SCHEMA
from commit_digest.analysis.servers.refusals import refused_part
from commit_digest.settings import LlmSettings

logger = logging.getLogger("mkdocs.plugins.commit_digest.llm")

# Where requests go when neither llm.base_url nor OPENAI_BASE_URL names a server (the SDK's own
# default, given explicitly so that an empty OPENAI_BASE_URL cannot replace it).
DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRYABLE_STATUS = frozenset({408, 409, 429})
PROBE_TIMEOUT_SECONDS = 10.0
# A probe's deadline however short llm.timeout_seconds is: a busy machine answers a probe in more than half a second.
MIN_PROBE_SECONDS = 2.0
# A probe's answer is a few kilobytes (llama-server's /props carries the chat template).
MAX_PROBE_BYTES = 1024 * 1024
BATCH_ENDPOINT = "/v1/chat/completions"

Sleep = Callable[[float], None]
_T = TypeVar("_T")


def strict_schema_of(model: type[pydantic.BaseModel]) -> dict[str, Any]:
    """The JSON schema the API's strict mode accepts, made by the SDK's own converter."""
    response_format = type_to_response_format_param(model)
    return dict(response_format["json_schema"]["schema"])  # type: ignore[index]


@dataclass(frozen=True)
class BatchState:
    id: str
    status: str  # validating, in_progress, finalizing, completed, failed, expired, cancelling, cancelled
    output_file_id: str | None
    error_file_id: str | None

    @property
    def finished(self) -> bool:
        return self.status in {"completed", "failed", "expired", "cancelled"}


class LlmClient:
    """Chat completions and the Batch API, with our retry policy. Building it sends nothing."""

    def __init__(
        self,
        settings: LlmSettings,
        *,
        api_key: str | None = None,
        sleep: Sleep = time.sleep,
        jitter: Callable[[], float] = random.random,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self._sleep = sleep
        self._jitter = jitter
        self._clock = clock
        base_url = settings.base_url or environment.value(environment.OPENAI_BASE_URL) or DEFAULT_BASE_URL
        try:
            self._client = openai.OpenAI(
                api_key=api_key if api_key is not None else environment.value(environment.OPENAI_API_KEY),
                base_url=base_url,
                timeout=settings.timeout_seconds,
                max_retries=0,
            )
        except openai.OpenAIError as error:
            raise LlmConfigError(
                f"cannot set up the LLM client: {scrub(str(error))} (set OPENAI_API_KEY, and OPENAI_BASE_URL "
                "or llm.base_url for a server other than api.openai.com)"
            ) from None
        # The key, and what a base URL carries before its host (https://user:password@gateway/v1).
        written = urlsplit(base_url)
        credentials = (written.password, written.username, unquote(written.password or ""))
        known = (self._client.api_key, *credentials)
        self._secrets = tuple(value for value in known if isinstance(value, str) and value)
        # Replies that carried one of them: the run's summary counts them.
        self.suspect_replies = 0
        self._suspect_lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return str(self._client.base_url)

    @property
    def shown_url(self) -> str:
        """The base URL as every text says it: without credentials written into it."""
        parts = urlsplit(self.base_url)
        if "@" not in parts.netloc:
            return self.base_url
        return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))

    def close(self) -> None:
        self._client.close()

    # -- requests ------------------------------------------------------------------------

    def chat_body(
        self, system: str, user: str, *, schema: dict[str, Any] | None, max_output_tokens: int
    ) -> dict[str, Any]:
        """The request body of a Batch API line (the OpenAI API: json_schema where ``llm.output_mode``
        is auto, the output limit in the field it reads)."""
        mode = self.settings.output_mode
        form = JSON_SCHEMA if mode == "auto" else FORMS[mode]
        family = family_of(self.base_url, None)
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        body = self.body(messages, max_output_tokens=max_output_tokens, token_fields=family.token_fields)
        if schema is None and form.constrained:
            raise ValueError(f"{form.name} mode needs the schema")
        form.shape(body, schema or {}, schema_attached=family.schema_in_json_object)
        return body

    def body(
        self, messages: list[dict[str, str]], *, max_output_tokens: int, token_fields: tuple[str, ...]
    ) -> dict[str, Any]:
        """A chat request without its reply form: the model, the messages, the output limit in
        each of ``token_fields``, the temperature."""
        body: dict[str, Any] = {"model": self.settings.model, "messages": messages}
        for field in token_fields:
            body[field] = max_output_tokens
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        return body

    def chat(self, body: dict[str, Any], *, longest_text: int | None = None) -> ChatReply:
        """One completion; a reply that is not a valid completion is retried like a server error. A
        streamed one is watched (``reply_watch``): its texts up to ``longest_text`` characters, its
        lists up to the most items the body's schema allows."""
        most_items = most_items_in(body)

        whole = {key: value for key, value in body.items() if key not in _STREAM_FIELDS}
        # A server that fails a request once its 200 is on the way (llama-cpp-python over its context
        # window) ends a stream before it begins, or the connection: it says why only when asked whole.
        streaming = [whole != body]

        def request() -> ChatReply:
            if not streaming[0]:
                return self._send(whole)
            try:
                return self._send(body, LoopWatch(longest_text, most_items))
            except EmptyStreamError:
                streaming[0] = False
                logger.info("a streamed reply from %s ended before it began: asking whole", self.shown_url)
                return self._send(whole)
            except openai.APIConnectionError:
                streaming[0] = False  # the retry asks whole
                raise

        return self._with_retries("chat completion", request, refused=refused_part)

    def _send(self, body: dict[str, Any], watch: LoopWatch | None = None) -> ChatReply:
        """One request and its reply, read whole or as it streams."""
        # The timeout bounds the whole request, not each read: a server that sends a byte now
        # and then would otherwise keep it (and the night) going as long as it likes.
        deadline = self._clock() + self.settings.timeout_seconds
        # Fields only some servers read (vLLM's structured-output field) go as extra body.
        known = {key: value for key, value in body.items() if key not in _EXTRA_FIELDS}
        extra = {key: value for key, value in body.items() if key in _EXTRA_FIELDS}
        streamed = self._client.chat.completions.with_streaming_response.create(**known, extra_body=extra or None)
        with streamed as raw:
            content_type = raw.headers.get("content-type", "")
            if body.get("stream") and content_type.startswith("text/event-stream"):
                watch = watch or LoopWatch()
                estimate = _prompt_tokens(body)
                reply = read_stream(raw.http_response, deadline, self._clock, prompt_estimate=estimate, watch=watch)
            else:  # asked whole, or a server that answers a stream request whole
                text = utf8_body(read_body(raw.http_response, deadline, self._clock))
                reply = reply_from_text(text, content_type=content_type)
        return self._without_credentials(reply)

    def describe(self, family_probe: str | None = None, known: ServerFacts | None = None) -> ServerFacts:
        """What the server says about itself: ``/v1/models`` (unless ``known`` has it), and ``/props``
        or ``/api/show`` where ``family_probe`` asks for them. Quiet and quick: a server that says
        nothing is not at fault."""
        models = known.models if known is not None else self._probe("GET", "models")
        props = show = None
        if family_probe == "props":
            props = self._probe("GET", f"{server_root(self.base_url)}/props")
        elif family_probe == "show":
            show = self._probe("POST", f"{server_root(self.base_url)}/api/show", {"model": self.settings.model})
        return ServerFacts(models=models, props=props, show=show)

    def _probe(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """One probe's JSON object, read whole within ``PROBE_TIMEOUT_SECONDS`` from send to last
        byte (like a chat request's deadline, so a probe that drips cannot hold up the night)."""
        timeout = max(min(PROBE_TIMEOUT_SECONDS, self.settings.timeout_seconds), MIN_PROBE_SECONDS)
        deadline = self._clock() + timeout
        # The SDK's raw-response header: the response comes back with its body unread.
        options: Any = {"timeout": timeout, "headers": {"X-Stainless-Raw-Response": "stream"}}
        try:
            if method == "GET":
                raw = self._client.get(path, cast_to=object, options=options)
            else:
                raw = self._client.post(path, cast_to=object, body=body, options=options)
            try:
                answer = json.loads(
                    utf8_body(read_body(raw.http_response, deadline, self._clock, limit=MAX_PROBE_BYTES))
                )
            finally:
                raw.http_response.close()
        except (openai.OpenAIError, httpx2.HTTPError, InvalidReplyError, LlmTimeoutError, ValueError) as error:
            logger.debug("%s %s: %s", method, path, self._scrub(str(error)))
            return None
        return answer if isinstance(answer, dict) else None

    # -- the Batch API ---------------------------------------------------------------------

    def upload_batch_file(self, jsonl: bytes, name: str) -> str:
        uploaded = self._with_retries(
            "batch file upload",
            lambda: self._client.files.create(file=(name, jsonl, "application/jsonl"), purpose="batch"),
        )
        return uploaded.id

    def create_batch(self, input_file_id: str, metadata: dict[str, str]) -> BatchState:
        batch = self._with_retries(
            "batch creation",
            lambda: self._client.batches.create(
                completion_window="24h",
                endpoint=BATCH_ENDPOINT,
                input_file_id=input_file_id,
                metadata=metadata,
            ),
        )
        return _state(batch)

    def batch_state(self, batch_id: str) -> BatchState:
        return _state(self._with_retries("batch status", lambda: self._client.batches.retrieve(batch_id)))

    def file_text(self, file_id: str) -> str:
        """A Batch API file's text: UTF-8, or an invalid reply (not read with U+FFFD for each bad
        byte), and with any credential of ours redacted as in a chat reply (one suspect per line)."""

        def download() -> str:
            return utf8_body(self._client.files.content(file_id).content)

        lines = self._with_retries("file download", download).split("\n")
        return "\n".join(self._redacted(line) for line in lines)

    # -- retries and error conversion ------------------------------------------------------

    def _with_retries(
        self, what: str, call: Callable[[], _T], *, refused: Callable[[int, str], LlmError | None] | None = None
    ) -> _T:
        retries = self.settings.max_retries
        for attempt in range(retries + 1):
            try:
                return call()
            except (openai.APITimeoutError, LlmTimeoutError):
                # A server that ignores the output limit writes until this timeout stops it.
                raise LlmTimeoutError(
                    f"{what}: no reply within {self.settings.timeout_seconds:g} s from {self.shown_url} "
                    "(stopped by the client; a server that ignores max_tokens writes until then)"
                ) from None
            except openai.APIStatusError as error:
                status = error.status_code
                text = self._scrub(f"{what}: HTTP {status} from {self.shown_url}: {error.message}")
                refusal = refused(status, error.message) if refused is not None else None
                if refusal is not None:
                    # A refusal of the request's form: asking the same again cannot help.
                    refusal.args = (text,)
                    raise refusal from None
                if status not in RETRYABLE_STATUS and status < 500:
                    raise LlmRequestError(text) from None
                wait = retry_after_seconds(error.response.headers)
                if attempt == retries:
                    raise LlmUnavailableError(f"{text} (gave up after {retries + 1} attempts)") from None
            except openai.APIConnectionError as error:
                text = self._scrub(f"{what}: cannot reach {self.shown_url}: {error.message}")
                wait = None
                if attempt == retries:
                    raise LlmUnavailableError(f"{text} (gave up after {retries + 1} attempts)") from None
            except InvalidReplyError as error:
                # A proxy's error page or a truncated body: transient like a 5xx, and nothing was
                # delivered that could be kept.
                text = self._scrub(f"{what}: invalid reply from {self.shown_url}: {error}")
                wait = None
                if attempt == retries:
                    raise LlmUnavailableError(f"{text} (gave up after {retries + 1} attempts)") from None
            if wait is None:
                wait = self.settings.retry_backoff_seconds * 2**attempt * (0.75 + 0.25 * self._jitter())
            if wait > self.settings.max_retry_wait_seconds:
                raise LlmUnavailableError(
                    f"{text} (asked to wait {wait:g} s, over llm.max_retry_wait_seconds "
                    f"{self.settings.max_retry_wait_seconds:g} s)"
                )
            logger.info("%s failed (%s); retry %s of %s in %.1f s", what, text, attempt + 1, retries, wait)
            self._sleep(wait)
        raise AssertionError("unreachable: the loop returns or raises")

    def _without_credentials(self, reply: ChatReply) -> ChatReply:
        """A reply that carries a credential of ours (a gateway echoing the request: the key, the
        base URL's password) with it redacted, before anything keeps it, and counted as suspect."""
        if reply.content is None and reply.refusal is None:
            return reply
        redacted = self._redacted(f"{reply.content or ''}\0{reply.refusal or ''}")
        content, refusal = redacted.split("\0", 1)
        return replace(
            reply,
            content=content if reply.content is not None else None,
            refusal=refusal if reply.refusal is not None else None,
        )

    def _redacted(self, text: str) -> str:
        carried = [secret for secret in self._secrets if len(secret) >= MIN_SECRET_LENGTH and secret in text]
        if not carried:
            return text
        for secret in carried:
            text = text.replace(secret, "[redacted]")
        with self._suspect_lock:
            self.suspect_replies += 1
        logger.warning(
            "a reply from %s carried a credential of this configuration: redacted before it is kept", self.shown_url
        )
        return text

    def suspect_lines(self) -> list[str]:
        """The run summary's line on replies that carried a credential, when there were any."""
        if not self.suspect_replies:
            return []
        return [
            f"suspect replies: {self.suspect_replies} carried a credential of this configuration (the API key "
            f"or the base URL's password), redacted before they were kept; check what {self.shown_url} sends back"
        ]

    def _scrub(self, text: str) -> str:
        return scrub(text, self._secrets)


def _prompt_tokens(body: dict[str, Any]) -> int:
    """About how many tokens a request's messages come to (a reply without usage is counted so)."""
    return sum(estimate_tokens(str(message.get("content", ""))) for message in body.get("messages", ()))


_STREAM_FIELDS = frozenset({"stream", "stream_options"})
# Body fields the SDK's create() has no parameter for.
_EXTRA_FIELDS = frozenset({"structured_outputs", "guided_json"})


def _state(batch: Batch) -> BatchState:
    return BatchState(
        id=batch.id,
        status=batch.status,
        output_file_id=batch.output_file_id,
        error_file_id=batch.error_file_id,
    )
