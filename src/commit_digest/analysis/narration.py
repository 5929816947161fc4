"""Writing one week's narrative on one platform: one request, one reply in every language of the site.

The week's commits go to the model as lines between marker lines carrying a random boundary: their
titles come from third parties and their summaries from another model reading third-party text,
so they are data, never instructions. The reply is validated strictly — the schema (one property
per language), the length cap, no echo of the instructions, each text in its language's script —
before it becomes a ``WeekNarrative``.

Like the analyzer, nothing raises past one narrative: a fault becomes a failed or refused
``NarrativeResult`` with its reason and the tokens it cost, and nothing is stored for it. An
invalid reply is asked again once; a reply cut off at the output limit is not (the same request
would be cut off again).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

from commit_digest.analysis import llm_schema
from commit_digest.analysis.exchange import StructuredWriter, ask
from commit_digest.analysis.llm_client import LlmClient, strict_schema_of
from commit_digest.analysis.llm_errors import InvalidReplyError
from commit_digest.analysis.llm_reply import ChatReply
from commit_digest.analysis.prompt import prompt_language_name, render
from commit_digest.analysis.quality_floor import language_problem, looped_sentence, reads_as_prose
from commit_digest.analysis.servers.session import ChatRequest
from commit_digest.analysis.task import Outcome
from commit_digest.analysis.verdict import Verdict, judge_reply
from commit_digest.models import AnalysisStatus, Importance, LanguageCode, Provenance, TokenUsage
from commit_digest.settings import DigestSettings
from commit_digest.store.narratives import NARRATIVE_CAP, WeekNarrative

# Bump when a template or the schema changes (stored narratives are kept: they are never rewritten
# unless asked).
NARRATIVE_PROMPT_VERSION = "narrative-1"
# A marker only the system message contains: a reply holding it has echoed the instructions.
NARRATIVE_CANARY = "CD-CANARY-8c27e4b05a"
# What the prompt asks for; a reply up to the stored cap (NARRATIVE_CAP) is still accepted.
PROMPT_NARRATIVE_CAP = 1000
# What one commit may take of the request: a title and its first summary line, each clipped.
TITLE_CAP = 200
SUMMARY_CAP = 400

_Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=NARRATIVE_CAP)]


def one_line(text: str, cap: int) -> str:
    """``text`` on one line (a title or summary cannot add lines to the list), at most ``cap`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= cap else flat[: cap - 1].rstrip() + "…"


@dataclass(frozen=True)
class NarrativeCommit:
    """One commit as the request shows it (worded in the site's default language)."""

    sha: str  # the short sha
    title: str
    importance: Importance
    change_type: str
    summary: str


@dataclass(frozen=True)
class NarrativeJob:
    """One narrative to write: a completed week, a platform, and the commits to write it from
    (most important first; ``total`` counts those left out too)."""

    week: str  # its ISO week: "2026-W03"
    monday: date
    sunday: date
    platform: str
    platform_name: str
    commits: tuple[NarrativeCommit, ...]
    total: int

    @property
    def key(self) -> tuple[str, str]:
        return (self.week, self.platform)

    @property
    def omitted(self) -> int:
        return self.total - len(self.commits)

    @property
    def name(self) -> str:
        return f"{self.week} {self.platform}"


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


@cache
def reply_model(languages: tuple[LanguageCode, ...]) -> type[BaseModel]:
    """The reply: the narrative under each language's code, in the site's order."""
    if not languages or len(set(languages)) != len(languages):
        raise ValueError(f"a narrative is asked for in one or more different languages, not {languages}")
    fields: dict[str, Any] = {
        code: (_Text, Field(description=f"the narrative in {prompt_language_name(code)}")) for code in languages
    }
    return create_model(f"WeekNarrativeReply_{'_'.join(languages)}", __base__=_Reply, **fields)


@cache
def narrative_schema(languages: tuple[LanguageCode, ...]) -> dict[str, Any]:
    return llm_schema.sendable_schema(strict_schema_of(reply_model(languages)))


def parse_narrative(content: str, *, languages: tuple[LanguageCode, ...], extract: bool) -> dict[LanguageCode, str]:
    """The narrative per language of a reply, validated: JSON, schema, caps, scripts, no leaked instructions."""
    if NARRATIVE_CANARY in content:
        raise InvalidReplyError("the reply repeats the instructions")
    text = llm_schema.extract_json_object(content) if extract else content.strip()
    parsed = llm_schema.validated_reply(reply_model(languages), text)
    texts: dict[LanguageCode, str] = {code: getattr(parsed, code) for code in languages}
    problems = [problem for code, value in texts.items() if (problem := language_problem(code, value))]
    if problems:
        raise InvalidReplyError(f"a narrative is not in its language: {'; '.join(problems)}")
    # The quality floor, as for analyses: figures or marks alone ("0", "48k") are no narrative.
    junk = [code for code, value in texts.items() if not reads_as_prose(value, code) or looped_sentence(value)]
    if junk:
        raise InvalidReplyError(
            f"the narrative is below the quality floor: {', '.join(junk)} "
            "does not read as prose, or repeats one sentence"
        )
    return texts


NarrativeVerdict = Verdict[dict[LanguageCode, str]]
# One attempt: the narrative to store (ok only), or the reason there is none.
NarrativeResult = Outcome[WeekNarrative]


class NarrativeWriter(StructuredWriter):
    """Writes narratives through an OpenAI-compatible chat endpoint. Building it sends nothing."""

    longest_cap = NARRATIVE_CAP

    def __init__(self, client: LlmClient, settings: DigestSettings, **options: Any) -> None:
        super().__init__(client, settings, **options)
        self.languages: tuple[LanguageCode, ...] = tuple(settings.languages)

    def system(self) -> str:
        """The static instructions: the same for every week and platform, so providers can cache them."""
        return render(
            "narrative_system.j2",
            repository_kind=self._repository,
            canary=NARRATIVE_CANARY,
            languages=[(code, prompt_language_name(code)) for code in self.languages],
            language_codes=list(self.languages),
            language_names=[prompt_language_name(code) for code in self.languages],
            narrative_cap=PROMPT_NARRATIVE_CAP,
            schema=llm_schema.schema_text(narrative_schema(self.languages)),
        )

    def request(self, job: NarrativeJob) -> ChatRequest:
        """The request of ``job``, the same for a direct call and a batch line."""
        data = "\n".join(f"{commit.title}\n{commit.summary}" for commit in job.commits)
        boundary = self.boundary(data)
        user = render(
            "narrative.j2",
            boundary=boundary,
            week=job.week,
            monday=job.monday.isoformat(),
            sunday=job.sunday.isoformat(),
            platform_name=job.platform_name,
            total=job.total,
            omitted=job.omitted,
            commits=job.commits,
        )
        return self.chat_request(self.system(), user, narrative_schema(self.languages))

    def judge(self, reply: ChatReply) -> NarrativeVerdict:
        return judge_reply(
            reply, lambda content: parse_narrative(content, languages=self.languages, extract=self.extracts(reply))
        )

    def result(self, job: NarrativeJob, verdict: NarrativeVerdict, usage: TokenUsage) -> NarrativeResult:
        """The result of a final verdict (an invalid reply here is a failure: no more asking)."""

        def stored(texts: dict[LanguageCode, str]) -> NarrativeResult:
            return Outcome(AnalysisStatus.OK, usage, self.narrative(job, texts, usage))

        return self.outcome(verdict, usage, stored)

    def write(self, job: NarrativeJob) -> NarrativeResult:
        """The narrative of ``job``; an invalid reply is asked again once."""
        return ask(
            self.session,
            self.request(job),
            self.judge,
            lambda verdict, usage: self.result(job, verdict, usage),
            what=f"{job.name}: narrative",
        )

    def narrative(self, job: NarrativeJob, texts: dict[LanguageCode, str], usage: TokenUsage) -> WeekNarrative:
        """The stored narrative, with who wrote it, when and what it cost (``stats`` counts it)."""
        provenance = Provenance(
            analyzer=self.name,
            prompt_version=NARRATIVE_PROMPT_VERSION,
            created_at=self.clock(),
            language=self.languages[0],
            usage=usage,
        )
        return WeekNarrative(
            week=job.week,
            platform=job.platform,
            texts=texts,
            commits=tuple(commit.sha for commit in job.commits),
            provenance=provenance,
        )
