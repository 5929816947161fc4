"""One structured request to the LLM, as translations and week narratives make it: what an attempt
comes to (from its reply's ``verdict``), and the rule that an invalid reply is asked again once.
Analyses have rules of their own (a cut-off reply is asked again with a smaller diff) and keep them
in llm_analyzer.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError

from commit_digest.analysis.llm_analyzer import Clock, llm_analyzer_name, session_for, utc_now
from commit_digest.analysis.llm_client import LlmClient
from commit_digest.analysis.llm_errors import LlmError
from commit_digest.analysis.llm_reply import ChatReply
from commit_digest.analysis.prompt import new_boundary
from commit_digest.analysis.servers.session import ChatRequest, LlmSession
from commit_digest.analysis.task import Outcome
from commit_digest.analysis.verdict import Verdict
from commit_digest.models import AnalysisStatus, TokenUsage
from commit_digest.settings import DigestSettings

logger = logging.getLogger("mkdocs.plugins.commit_digest.store.exchange")

T = TypeVar("T")
R = TypeVar("R")


def outcome_of(
    verdict: Verdict[T], usage: TokenUsage, *, max_output_tokens: int, stored: Callable[[T], Outcome[R]]
) -> Outcome[R]:
    """What a final verdict comes to (an invalid reply here is a failure: no more asking);
    ``stored`` turns a parsed value into the outcome to store (a stored model refusing it is an
    invalid reply too)."""
    if verdict.value is not None:
        try:
            return stored(verdict.value)
        except ValidationError as error:  # a text made of control characters only, once they are removed
            problem = error.errors(include_url=False)[0]
            where = ".".join(str(part) for part in problem["loc"])
            return Outcome(AnalysisStatus.FAILED, usage, error=f"invalid reply: {where}: {problem['msg']}")
    if verdict.refusal is not None:
        return Outcome(AnalysisStatus.REFUSED, usage, error=f"the model refused: {verdict.refusal}")
    if verdict.cut_off:
        return Outcome(
            AnalysisStatus.FAILED,
            usage,
            error=f"the reply was cut off at {max_output_tokens} output tokens (raise llm.max_output_tokens)",
        )
    return Outcome(AnalysisStatus.FAILED, usage, error=f"invalid reply: {verdict.invalid}")


def ask(
    session: LlmSession,
    request: ChatRequest,
    judge: Callable[[ChatReply], Verdict[T]],
    finish: Callable[[Verdict[T], TokenUsage], Outcome[R]],
    *,
    what: str,
) -> Outcome[R]:
    """Asks ``request``; an invalid reply is asked again once. ``what`` names the request in logs."""
    usage = TokenUsage()
    retried = False
    while True:
        try:
            reply = session.ask(request)
        except LlmError as error:
            return Outcome(AnalysisStatus.FAILED, usage, error=str(error))
        usage += reply.usage
        verdict = judge(reply)
        if verdict.invalid is None or retried:
            return finish(verdict, usage)
        retried = True
        logger.info("%s: invalid reply (%s); asking once more", what, verdict.invalid)


class StructuredWriter:
    """What a writer of structured requests (translations, narratives) holds: the client, the
    LLM settings, a clock for provenance and a boundary maker. Building it sends nothing."""

    # The longest text, in characters, a valid reply holds: a streamed text past twice this (JSON
    # escapes, stripped whitespace) is stopped as it arrives.
    longest_cap: int

    def __init__(
        self,
        client: LlmClient,
        settings: DigestSettings,
        *,
        clock: Clock = utc_now,
        boundary_factory: Callable[[], str] = new_boundary,
    ) -> None:
        self._client = client
        self.session = session_for(client, settings)
        self._llm = settings.llm
        self._repository = settings.repository
        self.clock = clock
        self._boundary_factory = boundary_factory
        self.mode = settings.llm.output_mode

    @property
    def name(self) -> str:
        return llm_analyzer_name(self._llm.model)

    def boundary(self, *data: str) -> str:
        """A boundary for the request's untrusted data that none of ``data`` holds (a guessed
        boundary must not close the data)."""
        boundary = self._boundary_factory()
        while any(boundary in text for text in data):
            boundary = new_boundary()
        return boundary

    def chat_request(self, system: str, user: str, schema: dict[str, Any]) -> ChatRequest:
        """The request of a system and a user message, the same for a direct call and a batch line."""
        return ChatRequest(
            system=system,
            user=user,
            schema=schema,
            max_output_tokens=self._llm.max_output_tokens,
            longest_text=2 * self.longest_cap,
        )

    def extracts(self, reply: ChatReply) -> bool:
        """Whether ``reply``'s JSON is read out of free text (the text form)."""
        return (reply.form or self.mode) == "text"

    def outcome(self, verdict: Verdict[T], usage: TokenUsage, stored: Callable[[T], Outcome[R]]) -> Outcome[R]:
        return outcome_of(verdict, usage, max_output_tokens=self._llm.max_output_tokens, stored=stored)
