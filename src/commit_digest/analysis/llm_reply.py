"""What a chat completion's reply is, read from the bytes a server sent: checked, never trusted.

A body is read as it arrives and refused past ``MAX_REPLY_BYTES`` after decompression, or when it
is still arriving at the request's deadline; it must be UTF-8; it must be a chat completion of the
shape we read (servers add fields of their own, which are ignored). The figures a server sends
(``Retry-After``, usage) are used only when they are ones a request can have. Pure functions over
bytes, headers and parsed JSON: the only module that talks to the server is ``llm_client``.
"""

from __future__ import annotations

import email.utils
import logging
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import pydantic

from commit_digest.analysis.diff_budget import estimate_tokens
from commit_digest.analysis.llm_errors import InvalidReplyError, LlmTimeoutError
from commit_digest.models import TokenUsage

logger = logging.getLogger("mkdocs.plugins.commit_digest.llm")

# Far more than the longest valid reply (max_output_tokens of JSON text, in both languages).
MAX_REPLY_BYTES = 8 * 1024 * 1024
# More tokens than any model's window holds: a usage figure past it is the server's mistake.
MAX_TOKENS_PER_REQUEST = 10_000_000


@dataclass(frozen=True)
class ChatReply:
    content: str | None
    refusal: str | None
    finish_reason: str
    usage: TokenUsage
    # The reply form the request used (forms.FORMS); None where the caller chose it (a batch line).
    form: str | None = None
    # Why the client stopped reading a streamed reply before its end (the floor's loop rule).
    stopped: str | None = None
    # False where the tokens are estimated (a stream without the server's usage).
    usage_reported: bool = True


def stopped_problem(reply: ChatReply) -> str:
    """Why a reply stopped as it streamed is refused, and what it had cost by then."""
    return (
        f"below the quality floor: {reply.stopped} (stopped as it streamed, after about "
        f"{reply.usage.completion_tokens} output tokens)"
    )


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait a 429/503 asks for: retry-after-ms, retry-after seconds, or an HTTP date. A figure
    that is no finite wait (``nan``, ``inf``, ``1e999``, a date past what a clock holds) is the
    server's mistake: ignored with one line, and the usual backoff waits instead."""
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            parsed = email.utils.parsedate_tz(value)
            try:
                seconds = float(email.utils.mktime_tz(parsed)) - time.time() if parsed is not None else math.nan
            except (OverflowError, ValueError):
                seconds = math.nan
        if math.isfinite(seconds):
            return max(seconds, 0.0)
        logger.info("the server's %s header %r is no wait in seconds: ignored", name, value[:40])
    return None


class _Lenient(pydantic.BaseModel):
    # OpenAI-compatible servers add fields and use finish reasons of their own: only what
    # we read is checked.
    model_config = pydantic.ConfigDict(extra="ignore", frozen=True)


class _Message(_Lenient):
    content: str | None = None
    refusal: str | None = None


class _Choice(_Lenient):
    message: _Message
    finish_reason: str | None = None


class _PromptDetails(_Lenient):
    # Read as sent and checked by ``_token_count``: a server's odd figure must not cost the reply.
    cached_tokens: Any = None


class _Usage(_Lenient):
    prompt_tokens: Any = None
    completion_tokens: Any = None
    prompt_tokens_details: _PromptDetails | Any = None


class _Completion(_Lenient):
    choices: list[_Choice] = pydantic.Field(min_length=1)
    usage: _Usage | None = None


def _reply(completion: _Completion) -> ChatReply:
    choice = completion.choices[0]
    usage = completion.usage or _Usage()
    details = usage.prompt_tokens_details if isinstance(usage.prompt_tokens_details, _PromptDetails) else None
    prompt = _token_count(usage.prompt_tokens, "prompt_tokens")
    cached = _token_count(details.cached_tokens, "prompt_tokens_details.cached_tokens") if details else 0
    if cached > prompt:
        # The OpenAI API counts cached tokens inside prompt_tokens, so they are never more; a gateway
        # that counts only the uncached part says so this way. Read as the OpenAI API counts, the
        # prompt is then both: else a prompt read whole looks like one whose system message was
        # dropped, and the instructions would move into the user message for good.
        prompt = min(prompt + cached, MAX_TOKENS_PER_REQUEST)
    return ChatReply(
        content=choice.message.content,
        refusal=choice.message.refusal,
        finish_reason=str(choice.finish_reason),
        usage=TokenUsage(
            prompt_tokens=prompt,
            completion_tokens=_token_count(usage.completion_tokens, "completion_tokens"),
            cached_tokens=min(cached, prompt),
        ),
    )


def _token_count(value: object, field: str) -> int:
    """A usage figure the server sent, when it is one a request can have: a whole number from 0 to
    ``MAX_TOKENS_PER_REQUEST``. Anything else (-1, "12", 1e18, NaN) is counted as 0 with one line:
    the reply it came with is paid for and kept, and ``stats`` never prices a count that cannot be."""
    if value is None:
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS_PER_REQUEST:
        return value
    logger.info("the server's usage.%s %s is no token count: counted as 0", field, repr(value)[:40])
    return 0


def _problem(error: pydantic.ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the body"
    return f"{where}: {first['msg']}"


def capped_chunks(
    chunks: Iterable[bytes], limit: int, *, before: float = math.inf, clock: Callable[[], float] = time.monotonic
) -> Iterator[bytes]:
    """A reply body's chunks as they arrive, decompressed, up to ``limit`` bytes in all: one past it
    (a gzip of 254 KB on the wire can unpack to 256 MB) is an invalid reply, not read on. A body
    still arriving at ``before`` (on ``clock``) is given up: a timeout, like no reply at all."""
    read = 0
    for chunk in chunks:
        read += len(chunk)
        if read > limit:
            raise InvalidReplyError(f"the reply body is larger than {limit:,} bytes: not read on")
        if clock() > before:
            raise LlmTimeoutError("the reply was still arriving at the deadline")
        yield chunk


def utf8_body(body: bytes) -> str:
    """A reply body as JSON must be: UTF-8. The HTTP client would put U+FFFD for each bad byte and
    the reply be stored as ok with them in its text; here such a body is an invalid reply."""
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InvalidReplyError(
            f"the reply body is not valid UTF-8 (byte 0x{body[error.start]:02x} at offset {error.start} of {len(body)})"
        ) from None


def reply_from_text(text: str, *, content_type: str) -> ChatReply:
    """The reply in a chat completion's response body.

    The SDK hands back a bare string for a body that is not JSON (a gateway's HTML error page
    with status 200) and builds its models without validating them, so a body of the wrong
    shape would fail later as an AttributeError; here every such body is an InvalidReplyError.
    """
    try:
        return _reply(_Completion.model_validate_json(text))
    except pydantic.ValidationError as error:
        snippet = " ".join(text[:60].split())
        if any(item["type"] == "json_invalid" for item in error.errors()):
            problem = f"not JSON ({content_type or 'no content type'}, {len(text)} characters: {snippet!r})"
        else:
            problem = f"not a chat completion ({_problem(error)})"
        raise InvalidReplyError(f"the reply body is {problem}") from None


def reply_from_body(body: object) -> ChatReply:
    """A chat completion as found in a Batch API output line."""
    try:
        return _reply(_Completion.model_validate(body))
    except pydantic.ValidationError as error:
        raise InvalidReplyError(f"the batch line is not a chat completion ({_problem(error)})") from None


# -- streamed replies (Server-Sent Events) ----------------------------------------------------


class _Delta(_Lenient):
    content: str | None = None
    refusal: str | None = None


class _StreamChoice(_Lenient):
    delta: _Delta = _Delta()
    finish_reason: str | None = None


class _Chunk(_Lenient):
    choices: list[_StreamChoice] = []
    usage: _Usage | None = None
    error: Any = None


def event_data(line: str) -> str | None:
    """The data of one line of an event stream; None for a comment, another field or a blank line."""
    if not line.startswith("data:"):
        return None
    data = line[5:].strip()
    return None if data in {"", "[DONE]"} else data


class EmptyStreamError(InvalidReplyError):
    """A stream that ended before its first chunk: a server that fails a request once its 200 is
    sent (llama-cpp-python over its context window) says why only to a request asked whole."""


class StreamedReply:
    """A chat completion put together from its streamed chunks."""

    def __init__(self) -> None:
        self._content: list[str] = []
        self._refusal: list[str] = []
        self._finish_reason: str | None = None
        self._usage: _Usage | None = None

    @property
    def content(self) -> str:
        return "".join(self._content)

    @property
    def begun(self) -> bool:
        return any(self._content) or any(self._refusal) or self._finish_reason is not None

    def add(self, data: str) -> str:
        """Reads one event's data; returns the text it adds to the reply's content."""
        try:
            chunk = _Chunk.model_validate_json(data)
        except pydantic.ValidationError as error:
            raise InvalidReplyError(f"a streamed chunk is not a chat completion chunk ({_problem(error)})") from None
        if chunk.error is not None:
            raise InvalidReplyError(f"the server reported an error mid-reply: {str(chunk.error)[:200]}")
        self._usage = chunk.usage or self._usage
        added = ""
        for choice in chunk.choices[:1]:
            added = choice.delta.content or ""
            self._content.append(added)
            self._refusal.append(choice.delta.refusal or "")
            self._finish_reason = choice.finish_reason or self._finish_reason
        return added

    def reply(self, *, prompt_estimate: int, stopped: str | None = None) -> ChatReply:
        """The reply so far; without the server's usage (stopped early, or a server that sends none
        in a stream) its tokens are estimated: the prompt's from what was sent, the reply's from its
        text, so the counts that judge a server (a dropped system message) are never a false alarm."""
        refusal = "".join(self._refusal) or None
        usage = self._usage or _Usage(
            prompt_tokens=prompt_estimate, completion_tokens=estimate_tokens(self.content + (refusal or ""))
        )
        completion = _Completion(
            choices=[
                _Choice(message=_Message(content=self.content, refusal=refusal), finish_reason=self._finish_reason)
            ],
            usage=usage,
        )
        finish = "stop" if stopped is not None else self._finish_reason
        if finish is None and not self.begun:
            raise EmptyStreamError("the streamed reply ended before it began")
        if finish is None:
            raise InvalidReplyError("the streamed reply ended without a finish reason: cut off in transit")
        reported = self._usage is not None
        return replace(_reply(completion), finish_reason=finish, stopped=stopped, usage_reported=reported)
