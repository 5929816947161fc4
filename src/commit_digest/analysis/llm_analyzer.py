"""The LLM analyzer: one commit in, one Analysis out, whatever the endpoint does.

Faults never escape as exceptions: a timeout, an exhausted retry, a refusal or a reply
that stays invalid becomes an Analysis with status failed or refused, the reason in its
provenance and the tokens it cost in its usage. A reply cut off at the output limit is
asked again once with half the diff; a reply that is not valid JSON or breaks the schema
is asked again once; neither is ever stored as an analysis.

A site in two languages gets both wordings from one request per commit: the analysis is in the
site's default language with the other as its translation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from commit_digest.analysis import llm_schema
from commit_digest.analysis.llm_client import ChatReply, LlmClient
from commit_digest.analysis.llm_errors import InvalidReplyError, LlmError
from commit_digest.analysis.llm_schema import LlmReply
from commit_digest.analysis.prompt import (
    PROMPT_CANARY,
    PROMPT_VERSION,
    Prompt,
    commit_prompt,
    new_boundary,
    reply_schema,
    system_prompt,
)
from commit_digest.meaning.taxonomy import Classification, Taxonomy, classify
from commit_digest.models import Analysis, AnalysisStatus, Commit, TokenUsage
from commit_digest.settings import DigestSettings

logger = logging.getLogger("mkdocs.plugins.commit_digest.llm")

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def llm_analyzer_name(model: str) -> str:
    return f"llm:{model}"


@dataclass(frozen=True)
class ReplyVerdict:
    """What one reply means: an analysis, a refusal, a cut-off, or an invalid reply."""

    analysis: LlmReply | None = None
    refusal: str | None = None
    cut_off: bool = False
    invalid: str | None = None


class LlmAnalyzer:
    """Implements the Analyzer protocol with an OpenAI-compatible chat endpoint."""

    def __init__(
        self,
        client: LlmClient,
        settings: DigestSettings,
        taxonomy: Taxonomy,
        *,
        clock: Clock = utc_now,
        boundary_factory: Callable[[], str] = new_boundary,
    ) -> None:
        self._client = client
        self._settings = settings
        self._llm = settings.llm
        self._taxonomy = taxonomy
        self._clock = clock
        self._boundary_factory = boundary_factory
        # One language: the request of a one-language site, unchanged; two: both wordings at once.
        self.languages = settings.languages
        self.language = self.languages[0]
        second = self.languages[1] if len(self.languages) > 1 else None
        self.mode = settings.llm.output_mode
        self.reply_model = llm_schema.reply_model(self.languages)
        self.schema = reply_schema(taxonomy, self.languages)
        self.system = system_prompt(taxonomy, self.language, settings.repository, second_language=second)
        # Each wording is as long as a one-language reply: the output limit is per language.
        self.max_output_tokens = self._llm.max_output_tokens * len(self.languages)

    @property
    def name(self) -> str:
        return llm_analyzer_name(self._llm.model)

    def prompt_for(self, commit: Commit, diff_budget: int | None = None) -> Prompt:
        return commit_prompt(
            commit,
            system=self.system,
            taxonomy=self._taxonomy,
            diff_budget=diff_budget or self._llm.diff_token_budget,
            boundary_factory=self._boundary_factory,
        )

    def request_body(self, prompt: Prompt) -> dict[str, object]:
        body = self._client.chat_body(prompt.messages, mode=self.mode, schema=self.schema)
        if len(self.languages) > 1:
            body["max_completion_tokens"] = self.max_output_tokens
        return body

    def judge(self, reply: ChatReply) -> ReplyVerdict:
        """Classifies one reply; pure apart from the taxonomy and the mode."""
        if reply.refusal or reply.finish_reason == "content_filter":
            return ReplyVerdict(
                refusal=(reply.refusal or "the provider's content filter stopped the reply").strip()
            )
        if reply.finish_reason == "length":
            return ReplyVerdict(cut_off=True)
        if not reply.content:
            return ReplyVerdict(invalid="the reply is empty")
        try:
            parsed = llm_schema.parse_reply(
                reply.content,
                taxonomy=self._taxonomy,
                canary=PROMPT_CANARY,
                extract=self.mode == "text",
                model=self.reply_model,
            )
        except InvalidReplyError as error:
            return ReplyVerdict(invalid=str(error))
        return ReplyVerdict(analysis=parsed)

    def analyze(self, commit: Commit) -> Analysis:
        usage = TokenUsage()
        budget = self._llm.diff_token_budget
        shrunk = invalid_retried = False
        while True:
            prompt = self.prompt_for(commit, budget)
            try:
                reply = self._client.chat(self.request_body(prompt))
            except LlmError as error:
                return self.unsuccessful(commit, AnalysisStatus.FAILED, str(error), usage)
            usage += reply.usage
            verdict = self.judge(reply)
            if verdict.analysis is not None:
                return self.successful(commit, verdict.analysis, usage)
            if verdict.refusal is not None:
                return self.unsuccessful(
                    commit, AnalysisStatus.REFUSED, f"the model refused: {verdict.refusal}", usage
                )
            if verdict.cut_off:
                if shrunk:
                    return self.unsuccessful(
                        commit,
                        AnalysisStatus.FAILED,
                        f"the reply was cut off at {self.max_output_tokens} output tokens twice "
                        f"(diff budget {budget} tokens on the second try)",
                        usage,
                    )
                shrunk = True
                budget = max(budget // 2, 250)
                logger.info(
                    "%s: reply cut off; asking again with a diff budget of %s tokens",
                    commit.short_sha,
                    budget,
                )
                continue
            if invalid_retried:
                return self.unsuccessful(
                    commit, AnalysisStatus.FAILED, f"invalid reply twice: {verdict.invalid}", usage
                )
            invalid_retried = True
            logger.info("%s: invalid reply (%s); asking once more", commit.short_sha, verdict.invalid)

    # -- building the results ----------------------------------------------------------------

    def _rules(self, commit: Commit) -> Classification:
        return classify(commit.title, commit.body, [change.path for change in commit.files], self._taxonomy)

    def successful(self, commit: Commit, reply: LlmReply, usage: TokenUsage) -> Analysis:
        provenance = llm_schema.provenance_for(
            analyzer=self.name,
            prompt_version=PROMPT_VERSION,
            created_at=self._clock(),
            language=self.language,
            usage=usage,
        )
        return llm_schema.to_analysis(
            reply, rules=self._rules(commit), taxonomy=self._taxonomy, provenance=provenance
        )

    def unsuccessful(self, commit: Commit, status: AnalysisStatus, error: str, usage: TokenUsage) -> Analysis:
        level = logging.INFO if status is AnalysisStatus.PENDING else logging.WARNING
        logger.log(level, "%s: LLM analysis %s: %s", commit.short_sha, status.value, error)
        provenance = llm_schema.provenance_for(
            analyzer=self.name,
            prompt_version=PROMPT_VERSION,
            created_at=self._clock(),
            language=self.language,
            usage=usage,
            status=status,
            error=error,
        )
        return llm_schema.unsuccessful_analysis(provenance, self._rules(commit))
