"""One conversation partner for the analyzer, the translator and the narrator: they hand it a
request (instructions, data, schema, output limit) and get a reply; how the server wants that
asked is negotiated here, once, and remembered.

- Reply form: json_schema first; a refusal that names the form (any status, 500 included) asks
  the same request again in the next form the server's family may read, one request per refusal,
  never retried as a server fault. An explicit ``llm.output_mode`` is the only form sent.
- System role: with ``llm.system_role: auto`` the instructions move into the user message when
  the server refuses a system message, or when its prompt tokens show it dropped one (a Gemma
  chat format does), and that request is asked again once.
- Output limit: in every field the family reads; within a known context window.
What worked is kept per base URL and model (``ProfileMemory``, a meta row of the store), so later
commits and later runs send their first request in the form that works.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from commit_digest.analysis.diff_budget import estimate_tokens
from commit_digest.analysis.llm_client import LlmClient
from commit_digest.analysis.llm_errors import LlmFormRefusedError, LlmRequestError
from commit_digest.analysis.llm_reply import ChatReply
from commit_digest.analysis.servers.families import (
    FAMILIES,
    GENERIC,
    MIN_CONTEXT_TOKENS,
    ServerFamily,
    family_of,
    plausible_context,
    server_slots,
)
from commit_digest.analysis.servers.forms import FORMS, ReplyForm
from commit_digest.models import TokenUsage
from commit_digest.settings import LlmSettings

logger = logging.getLogger("mkdocs.plugins.commit_digest.llm")

# A refused form, system message, stream or token field cost a request each; past this many, give up.
MAX_REFUSALS = 5
MIN_OUTPUT_TOKENS = 256  # the fewest asked for (a window leaving less shrinks the prompt first)
# Instructions shorter than this are too small to tell a dropped system message by the count.
_SYSTEM_TOKENS_TO_JUDGE = 100
# A prompt counted at fewer tokens than this, and under a quarter of the user message alone, was
# not read: the chat template left the messages out (llama-server given a template name it took for
# Jinja counts 3 for ~2,400 sent; a dropped system message leaves the user message's count).
_UNREAD_PROMPT_TOKENS = 32


@dataclass(frozen=True)
class ChatRequest:
    """What a caller asks: instructions, the data, the reply's schema and the output limit; past
    ``longest_text`` characters no text of a valid reply runs (a streamed reply is stopped there)."""

    system: str
    user: str
    schema: dict[str, Any]
    max_output_tokens: int
    longest_text: int | None = None

    @property
    def estimated_tokens(self) -> int:
        return estimate_tokens(self.system) + estimate_tokens(self.user)


class ProfileMemory(Protocol):
    """Where server profiles are kept between runs (store/server_profiles.py)."""

    def get(self, base_url: str, model: str) -> dict[str, object] | None: ...

    def put(self, base_url: str, model: str, profile: dict[str, object]) -> None: ...


class ServerProfile(BaseModel):
    """What a server was found to read: its family, reply form, whether the instructions go in the
    user message, and the output-limit fields (None: not found out yet)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    family: str | None = None
    form: str | None = None
    system_in_user: bool | None = None
    token_fields: tuple[str, ...] | None = None
    streams: bool | None = None  # False once the server refused a streamed request
    max_output: int | None = None  # the most output tokens the model writes, where a refusal said it
    # The day the form was found out: a form weaker than the family's first is tried upward again
    # once it is RETRY_STRONGER_AFTER old (a profile without a day is as old as can be).
    learned_on: date | None = None


# How long a weaker reply form learned from a refusal is kept before the strongest is asked again:
# one refused request a week at most, where one flaky refusal would otherwise be kept for good.
RETRY_STRONGER_AFTER = timedelta(days=7)


# The most of the estimate a prompt counted whole may come to: the estimate takes a token per Han
# character, where tokenizers take 0.6-0.8, so a Chinese prompt kept whole counts ~0.77 of it.
_WHOLE_PROMPT_AT_LEAST = 0.6


def dropped_system(request: ChatRequest, prompt_tokens: int) -> bool:
    """Whether a reply's prompt token count shows the server left the system message out: the
    count is about the user message's, far below both together (a Gemma format: 394 of ~2,400)."""
    system = estimate_tokens(request.system)
    user = estimate_tokens(request.user)
    if prompt_tokens <= 0 or system < _SYSTEM_TOKENS_TO_JUDGE:
        return False
    return prompt_tokens < user + system // 2 and prompt_tokens < _WHOLE_PROMPT_AT_LEAST * (system + user)


def unread_prompt(request: ChatRequest, prompt_tokens: int) -> bool:
    """Whether a reply's prompt token count shows the server read neither message."""
    return 0 < prompt_tokens < _UNREAD_PROMPT_TOKENS and 4 * prompt_tokens < estimate_tokens(request.user)


class LlmSession:
    """Asks through ``client`` in the form its server reads. Building it sends nothing; the first
    ask reads the remembered profile and what the server says about itself."""

    def __init__(
        self,
        client: LlmClient,
        llm: LlmSettings,
        memory: ProfileMemory | None = None,
        *,
        today: Callable[[], date] = lambda: datetime.now(UTC).date(),
    ) -> None:
        self._client = client
        self._today = today
        self._llm = llm
        self._memory = memory
        self._lock = threading.Lock()
        self._prepared = False
        self._settled = False
        self._judge_whole = False
        self._family: ServerFamily = GENERIC
        self._profile = ServerProfile()
        self._stored = ServerProfile()
        self._context: int | None = llm.context_tokens
        self._slots: int | None = None

    # -- what callers read --------------------------------------------------------------------

    @property
    def context_tokens(self) -> int | None:
        """The context window: the setting, else what the server reported or said when refusing."""
        self._prepare()
        return self._context

    @property
    def slots(self) -> int | None:
        """How many requests the server serves at once, where it says so."""
        self._prepare()
        return self._slots

    def learn_context(self, limit: int) -> None:
        """A window the server named when it refused a prompt (it outranks a guess, not the setting)."""
        if self._llm.context_tokens is None and self._believed(limit):
            self._context = limit

    # -- asking -------------------------------------------------------------------------------

    def ask(self, request: ChatRequest) -> ChatReply:
        """The reply to ``request``; a refusal of its form is answered by the next form, at most
        one request each. Raises LlmError like ``LlmClient.chat``."""
        self._prepare()
        # Requests go out concurrently even before a form has worked (a run's first commits may
        # each meet the same refusal once); what they learn is changed under the lock.
        return self._ask(request)

    def _ask(self, request: ChatRequest) -> ChatReply:
        refusals = 0
        spent = TokenUsage()
        while True:
            form = self._current_form()
            in_user = self._system_in_user()
            try:
                reply = self._client.chat(self._body(request, form, in_user), longest_text=request.longest_text)
            except LlmFormRefusedError as error:
                with self._lock:
                    adapted = refusals < MAX_REFUSALS and self._adapt(error, form, in_user)
                if not adapted:
                    if self._llm.output_mode != "auto" and error.part == "response_format":
                        error.args = (f"{error} (llm.output_mode is {self._llm.output_mode}: try auto)",)
                    raise
                refusals += 1
                continue
            if unread_prompt(request, reply.usage.prompt_tokens):
                raise LlmRequestError(
                    f"the server counted {reply.usage.prompt_tokens} prompt tokens for about "
                    f"{request.estimated_tokens} sent: it read none of the messages; check the chat template "
                    "it was started with (llama-server: --jinja for the model's own, or --no-jinja with "
                    "--chat-template NAME)"
                )
            # A server that leaves its prompt count out of a stream is judged on a whole reply, then settled.
            unjudged = self._judges_system(in_user) and not reply.usage_reported
            self._judge_whole = self._judge_whole or unjudged
            if not unjudged and self._judges_system(in_user) and dropped_system(request, reply.usage.prompt_tokens):
                logger.warning(
                    "the server counted %s prompt tokens for about %s: it dropped the system message; "
                    "the instructions go in the user message from now on",
                    reply.usage.prompt_tokens,
                    request.estimated_tokens,
                )
                spent += reply.usage
                refusals += 1
                with self._lock:
                    self._change(system_in_user=True)
                continue
            with self._lock:
                if not unjudged:
                    self._settle(form, in_user)
            return replace(reply, usage=spent + reply.usage, form=form.name)

    def _judges_system(self, in_user: bool) -> bool:
        return not in_user and self._llm.system_role == "auto" and self._profile.system_in_user is None

    def _body(self, request: ChatRequest, form: ReplyForm, in_user: bool) -> dict[str, Any]:
        if in_user:
            messages = [{"role": "user", "content": f"{request.system}\n\n{request.user}"}]
        else:
            messages = [{"role": "system", "content": request.system}, {"role": "user", "content": request.user}]
        limit = min(request.max_output_tokens, self._profile.max_output or request.max_output_tokens)
        if self._context is not None:
            limit = max(min(limit, self._context - request.estimated_tokens), min(limit, MIN_OUTPUT_TOKENS))
        body = self._client.body(messages, max_output_tokens=limit, token_fields=self._token_fields())
        form.shape(body, request.schema, schema_attached=self._family.schema_in_json_object)
        if self._profile.streams is not False and not (self._judge_whole and self._judges_system(in_user)):
            # A loop is stopped at its third repeat (reply_watch); whole to judge the system message
            # where a stream lacks the prompt count.
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    # -- negotiation --------------------------------------------------------------------------

    def _forms(self) -> tuple[str, ...]:
        if self._llm.output_mode != "auto":
            return (self._llm.output_mode,)
        return self._family.forms

    def _current_form(self) -> ReplyForm:
        forms = self._forms()
        name = self._profile.form if self._profile.form in forms else forms[0]
        return FORMS[name]

    def _system_in_user(self) -> bool:
        if self._llm.system_role != "auto":
            return not self._llm.system_role
        return bool(self._profile.system_in_user)

    def _token_fields(self) -> tuple[str, ...]:
        return self._profile.token_fields or self._family.token_fields

    def _adapt(self, error: LlmFormRefusedError, form: ReplyForm, in_user: bool) -> bool:
        """Changes the profile so the next request avoids what ``error`` refused (another thread
        may have changed it already); False when nothing is left to change."""
        if error.part == "response_format":
            forms = self._forms()
            later = forms[forms.index(form.name) + 1 :] if form.name in forms else ()
            if not later:
                return False
            if self._current_form() is form:
                logger.info("the server refused the %s reply form; asking again as %s", form.name, later[0])
                self._change(form=later[0])
            return True
        if error.part == "output_limit":
            limit = error.limit or 0
            if limit < MIN_OUTPUT_TOKENS or limit == self._profile.max_output:
                return False
            logger.info("the model writes at most %d output tokens: asking for no more", limit)
            self._change(max_output=limit)
            return True
        if error.part == "stream":
            if self._profile.streams is False:
                return False
            logger.info("the server refused a streamed request; asking for whole replies")
            self._change(streams=False)
            return True
        if error.part == "system":
            if self._llm.system_role != "auto" or in_user:
                return False
            logger.info("the server refused a system message; the instructions go in the user message")
            self._change(system_in_user=True)
            return True
        fields = self._token_fields()
        if error.part in fields and len(fields) > 1:
            logger.info("the server refused %s; the output limit goes in the other field only", error.part)
            self._change(token_fields=tuple(field for field in fields if field != error.part))
            return True
        return False

    def _change(self, **updates: object) -> None:
        """A change learned from a refusal: kept once a request in the new way works, even where a
        remembered profile had settled the session (the server behind the address changed)."""
        self._profile = self._profile.model_copy(update=updates)
        self._settled = False

    def _settle(self, form: ReplyForm, in_user: bool) -> None:
        if self._settled:
            return
        updates: dict[str, object] = {"family": self._family.name, "token_fields": self._token_fields()}
        if self._llm.output_mode == "auto" or self._profile.streams is False:
            updates["learned_on"] = self._today()
        if self._llm.output_mode == "auto":
            updates["form"] = form.name
        if self._llm.system_role == "auto":
            updates["system_in_user"] = in_user
        self._profile = self._profile.model_copy(update=updates)
        self._settled = True
        if self._profile != self._stored and self._memory is not None:
            unknown = {name for name in ("streams", "max_output") if getattr(self._profile, name) is None}
            self._memory.put(self._base_url(), self._llm.model, self._profile.model_dump(mode="json", exclude=unknown))
            self._stored = self._profile
            logger.info(
                "%s at %s: replies as %s, instructions %s",
                self._llm.model,
                self._base_url(),
                form.name,
                "in the user message" if in_user else "as a system message",
            )

    def _prepare(self) -> None:
        if self._prepared:
            return
        with self._lock:
            if self._prepared:
                return
            remembered = self._memory.get(self._base_url(), self._llm.model) if self._memory is not None else None
            if remembered is not None and self._llm.renegotiate:
                logger.info("forgetting what %s was found to read (--renegotiate)", self._base_url())
            elif remembered is not None:
                try:
                    self._profile = self._stored = ServerProfile.model_validate(remembered)
                except ValidationError:
                    logger.info("the remembered profile of %s is unreadable: negotiating again", self._base_url())
            facts = self._client.describe()
            family = family_of(self._base_url(), facts.models)
            self._retry_stronger(family)
            if family.context_probe:
                facts = self._client.describe(family.context_probe, known=facts)
            self._family = family
            if self._profile.family not in (None, family.name) and self._profile.family in FAMILIES:
                # Another server now answers at this address: what the old one read says nothing.
                self._profile = ServerProfile()
            self._slots = server_slots(facts)
            if self._context is None:
                reported = family.context_tokens(facts, self._llm.model)
                self._context = reported if reported is not None and self._believed(reported) else None
            self._settled = (self._llm.output_mode != "auto" or self._profile.form is not None) and (
                self._llm.system_role != "auto" or self._profile.system_in_user is not None
            )
            self._prepared = True

    def _retry_stronger(self, family: ServerFamily) -> None:
        """A remembered form weaker than the family's first (or whole replies), learned a week ago or
        more, is asked upward again: each refusal costing one request as on the first day."""
        learned = self._profile.learned_on
        if learned is not None and self._today() - learned < RETRY_STRONGER_AFTER:
            return
        if self._profile.streams is False:
            self._profile = self._profile.model_copy(update={"streams": None})
        form = self._profile.form
        if self._llm.output_mode != "auto" or form is None or form == family.forms[0]:
            return
        logger.info(
            "%s was found to read %s %s: asking for %s again",
            self._base_url(),
            form,
            f"on {learned.isoformat()}" if learned is not None else "long ago",
            family.forms[0],
        )
        self._profile = self._profile.model_copy(update={"form": None})

    def _believed(self, window: int) -> bool:
        """A window the server named is used only when a model could have it (a reported 10 or
        300 would cut every prompt to nothing and the output to its minimum)."""
        if plausible_context(window):
            return True
        logger.info(
            "%s names a context window of %d tokens for %s: no model has one so %s; ignored (llm.context_tokens "
            "sets one)",
            self._base_url(),
            window,
            self._llm.model,
            "small" if window < MIN_CONTEXT_TOKENS else "large",
        )
        return False

    def _base_url(self) -> str:
        """The address as kept in the store and said in logs: without credentials written into it
        (``https://user:key@gateway/v1``)."""
        return self._client.shown_url.rstrip("/")
