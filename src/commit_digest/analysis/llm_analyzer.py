"""The LLM analyzer: one commit in, one Analysis out, whatever the endpoint does.

Faults never escape as exceptions: a timeout, an exhausted retry, a refusal or a reply
that stays invalid becomes an Analysis with status failed or refused, the reason in its
provenance and the tokens it cost in its usage. A reply cut off at the output limit is
asked again once with half the diff; a reply that is not valid JSON or breaks the schema
is asked again once; neither is ever stored as an analysis.

A reply that parses is stored as ok only above the quality floor (quality_floor.py): below it
the reply is invalid like one that breaks the schema. How the server wants the request asked
(reply form, system message, output-limit field) is the session's business (servers/session.py);
the prompt is fitted here to a context window the server reports, and a server's "context length
exceeded" answer shrinks it and asks once more.

A site in two languages gets both wordings from one request per commit: the analysis is in the
site's default language with the other as its translation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

from commit_digest import caps
from commit_digest.analysis import llm_schema
from commit_digest.analysis.llm_client import LlmClient
from commit_digest.analysis.llm_errors import InvalidReplyError, LlmContextError, LlmError
from commit_digest.analysis.llm_reply import ChatReply
from commit_digest.analysis.llm_schema import LlmReply
from commit_digest.analysis.prompt import (
    PROMPT_CANARY,
    PROMPT_VERSION,
    Prompt,
    commit_prompt,
    new_boundary,
    reply_schema,
    strict_reply_schema,
    system_prompt,
)
from commit_digest.analysis.quality_floor import floor_problem
from commit_digest.analysis.reply_size import longest_reply_tokens
from commit_digest.analysis.servers.session import ChatRequest, LlmSession
from commit_digest.analysis.verdict import Verdict, judge_reply
from commit_digest.meaning.taxonomy import Classification, Taxonomy, classify
from commit_digest.models import Analysis, AnalysisStatus, Commit, TokenUsage
from commit_digest.settings import DigestSettings
from commit_digest.store.server_profiles import StoredServerProfiles

logger = logging.getLogger("mkdocs.plugins.commit_digest.llm")

Clock = Callable[[], datetime]
# The smallest diff budget a shrunk prompt gets (a cut-off reply, a context window).
MIN_DIFF_BUDGET = 250


# Characters, as written in the JSON text, past the longest text a valid analysis holds (its caps
# are counted once whitespace is stripped, and escapes take two characters): a reply writing a text
# this long is stopped as it streams.
LONGEST_TEXT = 2 * max(caps.ASKED.paragraph, caps.ASKED.note, caps.ASKED.short)


def session_for(client: LlmClient, settings: DigestSettings) -> LlmSession:
    """The session a writer asks through, remembering what the server reads in the store."""
    return LlmSession(client, settings.llm, StoredServerProfiles(settings.cache_dir))


def utc_now() -> datetime:
    return datetime.now(UTC)


def llm_analyzer_name(model: str) -> str:
    return f"llm:{model}"


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
        self._session = session_for(client, settings)
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
        # Unless set, what the longest valid reply can take (reply_size); a set limit is per language,
        # each wording being as long as a one-language reply.
        if "max_output_tokens" in self._llm.model_fields_set:
            self.max_output_tokens = self._llm.max_output_tokens * len(self.languages)
        else:
            self.max_output_tokens = longest_reply_tokens(strict_reply_schema(self.languages), self.language)

    @property
    def name(self) -> str:
        return llm_analyzer_name(self._llm.model)

    def concurrency(self) -> int:
        """Requests in flight: ``llm.concurrency`` when it is set, else no more than the server
        serves at once where it says (a one-slot llama.cpp queues the rest, and each queued
        request's timeout runs while it waits)."""
        if "concurrency" in self._llm.model_fields_set:
            return self._llm.concurrency
        slots = self._session.slots
        if slots is None or slots >= self._llm.concurrency:
            return self._llm.concurrency
        logger.info("the server serves %d request%s at once: sending as many", slots, "" if slots == 1 else "s")
        return slots

    def prompt_for(self, commit: Commit, diff_budget: int | None = None) -> Prompt:
        return commit_prompt(
            commit,
            system=self.system,
            taxonomy=self._taxonomy,
            diff_budget=diff_budget or self._llm.diff_token_budget,
            boundary_factory=self._boundary_factory,
        )

    def chat_request(self, prompt: Prompt) -> ChatRequest:
        return ChatRequest(
            system=prompt.system,
            user=prompt.user,
            schema=self.schema,
            max_output_tokens=self.max_output_tokens,
            longest_text=LONGEST_TEXT,
        )

    def judge(self, reply: ChatReply, boundary: str | None = None) -> Verdict[LlmReply]:
        """Classifies one reply; pure apart from the taxonomy and the mode. ``boundary`` is the
        prompt's, which no text of the reply may repeat."""

        def parse(content: str) -> LlmReply:
            parsed = llm_schema.parse_reply(
                content,
                taxonomy=self._taxonomy,
                canary=PROMPT_CANARY,
                extract=(reply.form or self.mode) == "text",
                model=self.reply_model,
            )
            problem = self.floor_problem(parsed, (PROMPT_CANARY, boundary or ""))
            if problem is not None:
                raise InvalidReplyError(f"below the quality floor: {problem}")
            return parsed

        return judge_reply(reply, parse)

    def floor_problem(self, reply: LlmReply, markers: tuple[str, ...]) -> str | None:
        """The first wording of ``reply`` below the quality floor, or None."""
        languages = llm_schema.reply_languages(type(reply))
        wordings = [(code, getattr(reply, code)) for code in languages] or [(self.language, reply)]
        for code, wording in wordings:
            problem = floor_problem(llm_schema.to_text(wording), code, markers)
            if problem is not None:
                return problem if not languages else f"{code}: {problem}"
        return None

    def fitted_budget(self, prompt: Prompt, budget: int, context: int, *, scale: float = 1.0) -> int:
        """The diff budget that fits ``prompt`` into a window of ``context`` tokens, leaving room
        for the reply; ``scale`` corrects the estimate where the server counted the prompt."""
        reserve = min(self.max_output_tokens, context // 4)
        over = prompt.estimated_tokens - int((context - reserve) * scale)
        if over <= 0:
            return budget
        return max(min(budget, prompt.diff.tokens) - over, MIN_DIFF_BUDGET)

    def analyze(self, commit: Commit) -> Analysis:
        usage = TokenUsage()
        budget = self._llm.diff_token_budget
        shrunk = invalid_retried = context_retried = False
        while True:
            prompt = self.prompt_for(commit, budget)
            context = self._session.context_tokens
            if context is not None and (fitted := self.fitted_budget(prompt, budget, context)) < budget:
                logger.info(
                    "%s: prompt over the %s-token context; diff budget %s tokens", commit.short_sha, context, fitted
                )
                budget = fitted
                prompt = self.prompt_for(commit, budget)
            try:
                reply = self._session.ask(self.chat_request(prompt))
            except LlmContextError as error:
                if context_retried:
                    return self.unsuccessful(
                        commit, AnalysisStatus.FAILED, f"{error} (after shrinking the prompt once)", usage
                    )
                context_retried = True
                budget = self._budget_after(error, prompt, budget)
                logger.info(
                    "%s: over the server's context; asking again with a diff budget of %s tokens",
                    commit.short_sha,
                    budget,
                )
                continue
            except LlmError as error:
                return self.unsuccessful(commit, AnalysisStatus.FAILED, str(error), usage)
            usage += reply.usage
            verdict = self.judge(reply, prompt.boundary)
            if verdict.value is not None or verdict.refusal is not None:
                return self.final(commit, verdict, usage)
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

    def _budget_after(self, error: LlmContextError, prompt: Prompt, budget: int) -> int:
        """The diff budget after the server refused ``prompt`` as over its context window."""
        halved = max(min(budget, prompt.diff.tokens) // 2, MIN_DIFF_BUDGET)
        if error.limit is None:
            return halved
        self._session.learn_context(error.limit)
        scale = prompt.estimated_tokens / error.prompt_tokens if error.prompt_tokens else 1.0
        # 0.9: the estimate's error is not the same on every part of the prompt.
        return min(self.fitted_budget(prompt, budget, error.limit, scale=min(scale, 1.0) * 0.9), halved)

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
        return llm_schema.to_analysis(reply, rules=self._rules(commit), taxonomy=self._taxonomy, provenance=provenance)

    def final(self, commit: Commit, verdict: Verdict[LlmReply], usage: TokenUsage, *, note: str = "") -> Analysis:
        """What a verdict no one asks again after comes to; ``note`` starts the reason of an unusable reply."""
        if verdict.value is not None:
            return self.successful(commit, verdict.value, usage)
        if verdict.refusal is not None:
            return self.unsuccessful(commit, AnalysisStatus.REFUSED, f"the model refused: {verdict.refusal}", usage)
        reason = (
            f"the reply was cut off at {self.max_output_tokens} output tokens"
            if verdict.cut_off
            else f"invalid reply: {verdict.invalid}"
        )
        return self.unsuccessful(commit, AnalysisStatus.FAILED, f"{note}: {reason}" if note else reason, usage)

    def unsuccessful(self, commit: Commit, status: AnalysisStatus, error: str, usage: TokenUsage) -> Analysis:
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
