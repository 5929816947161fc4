"""Reading a reply off the wire within its deadline: a whole body, or a chat completion's event
stream, which is judged as it arrives and left the moment the floor's loop rule refuses it (the
connection closed, so a server such as llama.cpp's stops writing and nothing more is paid for).
Both are capped in size, must be UTF-8, and end at the deadline (``deadline.cut_at``)."""

from __future__ import annotations

import codecs
from collections.abc import Callable

import httpx2

from commit_digest.analysis.deadline import cut_at
from commit_digest.analysis.llm_errors import InvalidReplyError, LlmTimeoutError
from commit_digest.analysis.llm_reply import (
    MAX_REPLY_BYTES,
    ChatReply,
    EmptyStreamError,
    StreamedReply,
    capped_chunks,
    event_data,
)
from commit_digest.analysis.reply_watch import LoopWatch

Clock = Callable[[], float]


def read_body(response: httpx2.Response, deadline: float, clock: Clock, *, limit: int = MAX_REPLY_BYTES) -> bytes:
    """``response``'s whole body, decompressed and capped, given up at ``deadline``."""
    with cut_at(response, deadline - clock()) as cut:
        try:
            return b"".join(capped_chunks(response.iter_bytes(), limit, before=deadline, clock=clock))
        except httpx2.HTTPError as error:
            raise _broken(error, cut.is_set()) from None


def read_stream(
    response: httpx2.Response, deadline: float, clock: Clock, *, prompt_estimate: int, watch: LoopWatch
) -> ChatReply:
    """A streamed chat completion, read event by event and watched (``reply_watch``): a reply in a
    loop comes back at its third repeat with ``stopped`` saying so."""
    streamed = StreamedReply()
    decoder = codecs.getincrementaldecoder("utf-8")()
    pending = ""
    with cut_at(response, deadline - clock()) as cut:
        try:
            for chunk in capped_chunks(response.iter_bytes(), MAX_REPLY_BYTES, before=deadline, clock=clock):
                try:
                    pending += decoder.decode(chunk)
                except UnicodeDecodeError:
                    raise InvalidReplyError("the reply stream is not valid UTF-8") from None
                *lines, pending = pending.split("\n")
                for line in lines:
                    data = event_data(line.rstrip("\r"))
                    if data is not None and watch.feed(streamed.add(data)) is not None:
                        return streamed.reply(prompt_estimate=prompt_estimate, stopped=watch.problem)
        except httpx2.HTTPError as error:
            if not cut.is_set() and not streamed.begun:
                raise EmptyStreamError(f"the reply stream broke off before it began: {type(error).__name__}") from None
            raise _broken(error, cut.is_set()) from None
    data = event_data(pending.strip())
    if data is not None:
        streamed.add(data)
    return streamed.reply(prompt_estimate=prompt_estimate)


def _broken(error: httpx2.HTTPError, cut: bool) -> Exception:
    if cut:
        return LlmTimeoutError("the reply was still arriving at the deadline")
    return InvalidReplyError(f"the reply broke off: {type(error).__name__}")
