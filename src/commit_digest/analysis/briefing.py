"""Writing one day's brief on one platform (or the whole day's): one request, one reply in every
language of the site that lacks it, each sentence citing the commits it rests on.

The day's commits go to the model as lines between marker lines carrying a random boundary, as a
week's do for its narrative: their titles are third parties' and their summaries another model's,
so they are data, never instructions. The reply is validated strictly (the schema, one property per
language, the caps, no echo of the instructions, each text in its language's script) and then held
to the brief's floor (``brief_floor``): citations of that day and platform only, nothing named that
the day does not hold. Like every writer, nothing raises past one brief: a fault becomes a failed or
refused result with its reason and the tokens it cost. An invalid reply is asked again once.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

from commit_digest.analysis import llm_schema
from commit_digest.analysis.brief_floor import DayCommit, brief_problem, fewest_sentences, resolve_citation
from commit_digest.analysis.exchange import StructuredWriter, ask
from commit_digest.analysis.llm_client import LlmClient, strict_schema_of
from commit_digest.analysis.llm_errors import InvalidReplyError
from commit_digest.analysis.llm_reply import ChatReply
from commit_digest.analysis.prompt import prompt_language_name, render
from commit_digest.analysis.servers.session import ChatRequest
from commit_digest.analysis.task import Outcome
from commit_digest.analysis.verdict import Verdict, judge_reply
from commit_digest.models import AnalysisStatus, Importance, LanguageCode, Provenance, TokenUsage
from commit_digest.settings import DigestSettings
from commit_digest.store.briefs import MAX_CITED, MAX_SENTENCES, SENTENCE_CAP, BriefSentence, DayBrief, brief_key

# Bump when a template or the schema changes (stored briefs are kept until their day's analyses change).
BRIEF_PROMPT_VERSION = "brief-1"
# A marker only the system message contains: a reply holding it has echoed the instructions.
BRIEF_CANARY = "CD-CANARY-5b9e13d7f2"
# What the prompt asks of a sentence; a reply up to the stored cap is still accepted.
PROMPT_SENTENCE_CAP = 300

_Sentence = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=SENTENCE_CAP)]
_Cited = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


@dataclass(frozen=True)
class BriefCommit:
    """One commit as the request shows it (worded in the site's default language)."""

    sha: str  # the short sha (12)
    title: str
    importance: Importance
    change_type: str
    summary: str


@dataclass(frozen=True)
class BriefJob:
    """One brief to write: a completed day, a platform (None: the whole day), the commits to write it
    from (most important first; ``total`` counts those left out too), every commit of the day (what a
    text may name), the fingerprint of the analyses it covers, and the languages to write."""

    day: date
    platform: str | None
    platform_name: str | None
    commits: tuple[BriefCommit, ...]
    total: int
    day_commits: tuple[DayCommit, ...]
    inputs: str
    languages: tuple[LanguageCode, ...]
    kept: DayBrief | None = None  # the stored brief whose languages this one adds to (same inputs)

    @property
    def key(self) -> tuple[str, str]:
        return brief_key(self.day, self.platform)

    @property
    def name(self) -> str:
        return f"{self.key[0]} {self.key[1]}"

    @property
    def omitted(self) -> int:
        return self.total - len(self.commits)

    @property
    def where(self) -> str:
        return f"{self.key[0]} on {self.platform_name}" if self.platform_name else self.key[0]


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReplySentence(_Reply):
    text: _Sentence
    commits: list[_Cited] = Field(min_length=1, max_length=MAX_CITED, description="ids of the listed commits")


@cache
def reply_model(languages: tuple[LanguageCode, ...]) -> type[BaseModel]:
    """The reply: the brief's sentences under each language's code, in the site's order."""
    fields: dict[str, Any] = {
        code: (
            list[ReplySentence],
            Field(min_length=1, max_length=MAX_SENTENCES, description=f"the brief in {prompt_language_name(code)}"),
        )
        for code in languages
    }
    return create_model(f"DayBriefReply_{'_'.join(languages)}", __base__=_Reply, **fields)


@cache
def brief_schema(languages: tuple[LanguageCode, ...]) -> dict[str, Any]:
    return llm_schema.sendable_schema(strict_schema_of(reply_model(languages)))


def cited_schema(languages: tuple[LanguageCode, ...], listed: Sequence[str]) -> dict[str, Any]:
    """The schema sent with one brief's request: a cited id is one of the commits it lists, so a
    server that decodes to the schema cannot cite a title or an id of its own (a small model
    did). The prompt keeps showing ``brief_schema``, the same for every brief, so its prefix is
    shared; the floor still checks every citation."""
    schema = copy.deepcopy(brief_schema(languages))
    for code in languages:
        cited = schema["properties"][code]["items"]["properties"]["commits"]
        cited["items"] = {**cited["items"], "enum": list(dict.fromkeys(listed))}
    return schema


Texts = dict[LanguageCode, list[tuple[str, list[str]]]]


def parse_brief(content: str, job: BriefJob, *, extract: bool, most: int = MAX_SENTENCES) -> Texts:
    """The brief per language of a reply, validated: JSON, schema, caps, floor, no leaked instructions."""
    if BRIEF_CANARY in content:
        raise InvalidReplyError("the reply repeats the instructions")
    text = llm_schema.extract_json_object(content) if extract else content.strip()
    parsed = llm_schema.validated_reply(reply_model(job.languages), text)
    texts: Texts = {
        code: [(sentence.text, list(sentence.commits)) for sentence in getattr(parsed, code)] for code in job.languages
    }
    listed = [commit.sha for commit in job.commits]
    problem = brief_problem(texts, listed=listed, day=job.day_commits, where=job.where, most=most)
    if problem is not None:
        raise InvalidReplyError(f"the brief is below the floor: {problem}")
    return texts


BriefVerdict = Verdict[Texts]
BriefResult = Outcome[DayBrief]


class BriefWriter(StructuredWriter):
    """Writes day briefs through an OpenAI-compatible chat endpoint. Building it sends nothing."""

    longest_cap = SENTENCE_CAP

    def __init__(self, client: LlmClient, settings: DigestSettings, **options: Any) -> None:
        super().__init__(client, settings, **options)
        self.languages: tuple[LanguageCode, ...] = tuple(settings.languages)

    def system(self, job: BriefJob) -> str:
        """The static instructions: two versions (a platform's, the whole day's), so providers can cache them."""
        return render(
            "brief_system.j2",
            repository_kind=self._repository,
            platform_wide=job.platform is None,
            canary=BRIEF_CANARY,
            languages=[(code, prompt_language_name(code)) for code in job.languages],
            language_codes=list(job.languages),
            language_names=[prompt_language_name(code) for code in job.languages],
            fewest=fewest_sentences(len(job.commits)),
            most=MAX_SENTENCES,
            sentence_cap=PROMPT_SENTENCE_CAP,
            schema=llm_schema.schema_text(brief_schema(job.languages)),
        )

    def request(self, job: BriefJob) -> ChatRequest:
        """The request of ``job``, the same for a direct call and a batch line."""
        boundary = self.boundary("\n".join(f"{commit.title}\n{commit.summary}" for commit in job.commits))
        user = render(
            "brief.j2",
            boundary=boundary,
            day=job.key[0],
            platform_name=job.platform_name,
            total=job.total,
            omitted=job.omitted,
            commits=job.commits,
            fewest=fewest_sentences(len(job.commits)),
            most=MAX_SENTENCES,
        )
        listed = [commit.sha for commit in job.commits]
        return self.chat_request(self.system(job), user, cited_schema(job.languages, listed))

    def judge(self, reply: ChatReply, job: BriefJob) -> BriefVerdict:
        return judge_reply(reply, lambda content: parse_brief(content, job, extract=self.extracts(reply)))

    def result(self, job: BriefJob, verdict: BriefVerdict, usage: TokenUsage) -> BriefResult:
        """The result of a final verdict (an invalid reply here is a failure: no more asking)."""

        def stored(texts: Texts) -> BriefResult:
            return Outcome(AnalysisStatus.OK, usage, self.brief(job, texts, usage))

        return self.outcome(verdict, usage, stored)

    def write(self, job: BriefJob) -> BriefResult:
        """The brief of ``job``; an invalid reply is asked again once."""
        return ask(
            self.session,
            self.request(job),
            lambda reply: self.judge(reply, job),
            lambda verdict, usage: self.result(job, verdict, usage),
            what=f"{job.name}: brief",
        )

    def brief(self, job: BriefJob, texts: Texts, usage: TokenUsage) -> DayBrief:
        """The stored brief (citations as the listed short shas), with who wrote it, when and what it
        cost; the languages of a kept brief with the same inputs stay beside the new ones."""
        listed = [commit.sha for commit in job.commits]
        written = {
            code: tuple(BriefSentence(text=text, commits=_cited(cited, listed)) for text, cited in sentences)
            for code, sentences in texts.items()
        }
        kept = dict(job.kept.texts) if job.kept is not None else {}
        provenance = Provenance(
            analyzer=self.name,
            prompt_version=BRIEF_PROMPT_VERSION,
            created_at=self.clock(),
            language=self.languages[0],
            usage=usage,
        )
        return DayBrief(
            day=job.day,
            platform=job.platform,
            texts={
                code: (written.get(code) or kept[code]) for code in self.languages if code in written or code in kept
            },
            commits=tuple(listed),
            inputs=job.inputs,
            provenance=provenance,
        )


def _cited(cited: list[str], listed: list[str]) -> tuple[str, ...]:
    """The listed short shas a sentence cites, each once, in its order."""
    found = (resolve_citation(sha, listed) for sha in cited)
    return tuple(dict.fromkeys(sha for sha in found if sha is not None))
