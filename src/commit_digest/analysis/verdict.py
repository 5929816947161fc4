"""What one reply means, whatever was asked: the parsed value, a refusal, a cut-off, or an invalid
reply (stopped as it streamed included). One verdict for analyses, translations and narratives;
what each does with it (ask again, shrink the prompt, store) is theirs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from commit_digest.analysis.llm_errors import InvalidReplyError
from commit_digest.analysis.llm_reply import ChatReply, stopped_problem

T = TypeVar("T")


@dataclass(frozen=True)
class Verdict(Generic[T]):
    """What one reply means: the parsed value, a refusal, a cut-off, or an invalid reply."""

    value: T | None = None
    refusal: str | None = None
    cut_off: bool = False
    invalid: str | None = None


def judge_reply(reply: ChatReply, parse: Callable[[str], T]) -> Verdict[T]:
    """The verdict on ``reply``; ``parse`` reads its content and raises InvalidReplyError."""
    if reply.refusal or reply.finish_reason == "content_filter":
        return Verdict(refusal=(reply.refusal or "the provider's content filter stopped the reply").strip())
    if reply.stopped is not None:
        return Verdict(invalid=stopped_problem(reply))
    if reply.finish_reason == "length":
        return Verdict(cut_off=True)
    if not reply.content:
        return Verdict(invalid="the reply is empty")
    try:
        return Verdict(value=parse(reply.content))
    except InvalidReplyError as error:
        return Verdict(invalid=str(error))
