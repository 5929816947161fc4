"""The data model: what a commit is, what its analysis is, and what the store keeps.

Every model forbids unknown fields, so a typo in an export, a legacy import or an LLM
reply is an error naming the field instead of data silently dropped. The checked values the
models are made of (shas, repository names, label ids, moments, capped texts) are in ``fields``.
"""

from __future__ import annotations

import re
from datetime import date as Date
from datetime import tzinfo
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Literal, Self, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from commit_digest import caps
from commit_digest.fields import Conclusion, LabelId, Note, Paragraph, RepositoryName, Sha, ShortText, ShownDatetime

SCHEMA_VERSION = 1

_PR_IN_TITLE = re.compile(r"\(#(\d+)\)\s*$")


def first_problem(error: ValidationError) -> str:
    """A ValidationError in one line: its first problem (where: what), and how many more. The
    inputs are left out: they are the commit's or the store's own text, which a message must not echo."""
    problems = error.errors(include_url=False, include_input=False, include_context=False)
    first = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    if first["type"] == "json_invalid":
        return f"not JSON: {first['msg']}{more}"
    where = ".".join(str(part) for part in first["loc"]) or "(top)"
    return f"{where}: {first['msg']}{more}"


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ChangeType(StrEnum):
    FEATURE = "feature"
    BUGFIX = "bugfix"
    PERFORMANCE = "performance"
    REFACTOR = "refactor"
    DOCS = "docs"
    TEST = "test"
    CI_BUILD = "ci-build"
    CONFIG = "config"
    DEPENDENCY = "dependency"
    DEPRECATION = "deprecation"
    REVERT = "revert"
    OTHER = "other"


class Importance(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


IMPORTANCE_ORDER: tuple[Importance, ...] = (Importance.HIGH, Importance.MEDIUM, Importance.LOW)


class AnalysisStatus(StrEnum):
    OK = "ok"
    PENDING = "pending"
    FAILED = "failed"
    REFUSED = "refused"


class FileStatus(StrEnum):
    """GitHub's vocabulary for a changed file; the git source maps its letters onto it."""

    ADDED = "added"
    MODIFIED = "modified"
    REMOVED = "removed"
    RENAMED = "renamed"
    COPIED = "copied"
    CHANGED = "changed"
    UNCHANGED = "unchanged"


class PatchState(StrEnum):
    INCLUDED = "included"
    TRUNCATED = "truncated"  # cut to the store's per-commit cap
    UNAVAILABLE = "unavailable"  # binary, too large for the API, or not fetched
    NOT_COLLECTED = "not-collected"


class LabelSource(StrEnum):
    RULE = "rule"
    LLM = "llm"
    LEGACY = "legacy"


class FileChange(StrictModel):
    path: Annotated[str, StringConstraints(min_length=1, max_length=1000)]
    status: FileStatus = FileStatus.MODIFIED
    additions: int = Field(default=0, ge=0)
    deletions: int = Field(default=0, ge=0)
    previous_path: str | None = None
    patch: str | None = None
    patch_state: PatchState = PatchState.NOT_COLLECTED


class PullRequestInfo(StrictModel):
    number: int = Field(gt=0)
    description: str = Field(default="", max_length=100_000)
    labels: tuple[str, ...] = ()


class GitHubAddresses:
    """A commit's short sha and its GitHub pages, made from its repository, sha and pull request
    number (as their patterns allow) when asked: for ``Commit`` and the site's kept summaries."""

    __slots__ = ()
    if TYPE_CHECKING:
        repository: str
        sha: str
        pr_number: int | None

    @property
    def short_sha(self) -> str:
        return self.sha[:12]

    @property
    def web_url(self) -> str:
        return f"https://github.com/{self.repository}/commit/{self.sha}"

    @property
    def pr_url(self) -> str | None:
        return None if self.pr_number is None else f"https://github.com/{self.repository}/pull/{self.pr_number}"


class Commit(GitHubAddresses, StrictModel):
    repository: RepositoryName
    sha: Sha
    author_name: Annotated[str, StringConstraints(max_length=300)]
    author_login: str | None = None
    authored_at: ShownDatetime
    committed_at: ShownDatetime
    title: Annotated[str, StringConstraints(max_length=2000)]
    body: str = Field(default="", max_length=200_000)
    pr_number: int | None = Field(default=None, gt=0)
    files: tuple[FileChange, ...] = ()
    pull_request: PullRequestInfo | None = None

    @field_validator("sha", mode="before")
    @classmethod
    def _lowercase_sha(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @model_validator(mode="before")
    @classmethod
    def _pr_number_from_title(cls, data: object) -> object:
        if isinstance(data, dict) and data.get("pr_number") is None and isinstance(data.get("title"), str):
            found = pr_number_in_title(data["title"])
            if found is not None:
                data = {**data, "pr_number": found}
        return data

    @property
    def additions(self) -> int:
        return sum(f.additions for f in self.files)

    @property
    def deletions(self) -> int:
        return sum(f.deletions for f in self.files)

    def day(self, timezone: tzinfo) -> Date:
        """The day a commit belongs to: the date of its landing time in the site's zone."""
        return self.committed_at.astimezone(timezone).date()


def pr_number_in_title(title: str) -> int | None:
    match = _PR_IN_TITLE.search(title)
    return int(match.group(1)) if match else None


class ImpactItem(StrictModel):
    area: ShortText
    note: Note = ""


class TechnicalInsights(StrictModel):
    architecture: Paragraph | None = None
    performance: Paragraph | None = None
    security: Paragraph | None = None
    maintainability: Paragraph | None = None
    compatibility: Paragraph | None = None


class Recommendation(StrictModel):
    audience: ShortText
    advice: Paragraph


class Label(StrictModel):
    id: LabelId
    source: LabelSource = LabelSource.RULE
    reason: Annotated[str, StringConstraints(max_length=caps.STORED.short)] = ""

    def __reduce__(self) -> tuple[object, tuple[str, LabelSource, str]]:
        # A site build sends every commit's labels between processes: as three strings, and
        # equal labels arrive as one object (a pydantic model's own pickling is ten times slower).
        return restored_label, (self.id, self.source, self.reason)


@lru_cache(maxsize=65536)
def restored_label(label_id: str, source: LabelSource, reason: str) -> Label:
    """A label that was valid when it was kept (pickled, or checked by the keeper's own model),
    without validating it again; equal labels are one object."""
    return Label.model_construct(id=label_id, source=source, reason=reason)


class TokenUsage(StrictModel):
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    cached_tokens: int = Field(default=0, ge=0)

    def __add__(self, other: TokenUsage) -> TokenUsage:
        """What two requests cost together (a retry, a run's total)."""
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
        )


# The languages the product writes in: each has its words files (site/rendering/words/,
# analysis/words/, meaning/words/) and its names in the taxonomy.
LanguageCode = Literal["zh", "en"]
LANGUAGE_CODES: tuple[LanguageCode, ...] = get_args(LanguageCode)


class Provenance(StrictModel):
    analyzer: Annotated[str, StringConstraints(pattern=r"^(offline|llm:.+|legacy(:.+)?)$")]
    prompt_version: str = ""
    schema_version: int = SCHEMA_VERSION
    created_at: ShownDatetime
    status: AnalysisStatus = AnalysisStatus.OK
    error: str | None = Field(default=None, max_length=4000)
    incomplete: bool = False  # the source text ended mid-sentence (legacy imports)
    language: Annotated[str, StringConstraints(pattern=rf"^({'|'.join(LANGUAGE_CODES)})$")] = "zh"
    usage: TokenUsage | None = None
    source_file: str | None = None

    @model_validator(mode="after")
    def _error_only_when_not_ok(self) -> Self:
        if self.status is not AnalysisStatus.OK and not self.error:
            raise ValueError(f"status {self.status.value!r} needs an error text saying why")
        return self

    @property
    def is_llm(self) -> bool:
        return self.analyzer.startswith("llm:")

    @property
    def is_legacy(self) -> bool:
        """Imported from a legacy daily report (written by the legacy tool's model)."""
        return self.analyzer.startswith("legacy")

    @property
    def model(self) -> str | None:
        """The model an LLM's work names ("gpt-4o-mini"), None for the rules' or a legacy report's.
        A local server's model given as a file path shows its file name alone: the folders name the
        machine that built the site, which no page shows."""
        if not self.is_llm:
            return None
        name = self.analyzer.removeprefix("llm:")
        if name.startswith(("/", "~", "./", "../")) or re.match(r"^[A-Za-z]:[\\/]", name):
            name = re.split(r"[\\/]", name.rstrip("/\\"))[-1] or name
        return name


class AnalysisText(StrictModel):
    """The worded part of an analysis in one language. Type, importance and labels are the same
    in every language and live on the Analysis itself."""

    summary: tuple[Paragraph, ...] = Field(min_length=1, max_length=caps.STORED.summary_items)
    impact_scope: tuple[ImpactItem, ...] = Field(default=(), max_length=caps.STORED.impact_items)
    insights: TechnicalInsights = TechnicalInsights()
    risks: tuple[Paragraph, ...] = Field(default=(), max_length=caps.STORED.list_items)
    recommendations: tuple[Recommendation, ...] = Field(default=(), max_length=caps.STORED.list_items)
    conclusion: Conclusion = ""
    # Who worded a translation made on its own (`commit-digest translate`): model, day, language
    # and the tokens it cost, which `stats` counts. None for the analysis's own wording and for a
    # translation asked for in the analysis's request (its cost is in the analysis's provenance).
    provenance: Provenance | None = None


# The worded fields only: the analysis's own wording has the analysis's provenance.
# The fields an analysis and its translations word (a translation's provenance is its own).
TEXT_FIELDS: tuple[str, ...] = tuple(name for name in AnalysisText.model_fields if name != "provenance")


class Analysis(StrictModel):
    """The structured analysis of one commit. Content is empty unless the status is ok."""

    change_type: ChangeType = ChangeType.OTHER
    importance: Importance | None = None
    summary: tuple[Paragraph, ...] = Field(default=(), max_length=caps.STORED.summary_items)
    impact_scope: tuple[ImpactItem, ...] = Field(default=(), max_length=caps.STORED.impact_items)
    insights: TechnicalInsights = TechnicalInsights()
    risks: tuple[Paragraph, ...] = Field(default=(), max_length=caps.STORED.list_items)
    recommendations: tuple[Recommendation, ...] = Field(default=(), max_length=caps.STORED.list_items)
    conclusion: Conclusion = ""
    platforms: tuple[Label, ...] = ()
    subsystems: tuple[Label, ...] = ()
    provenance: Provenance
    # The same analysis worded in other languages than ``provenance.language`` (asked for in the
    # same request, or filled in later by `commit-digest translate`).
    translations: dict[LanguageCode, AnalysisText] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _ok_means_complete(self) -> Self:
        if self.provenance.status is AnalysisStatus.OK:
            if self.importance is None:
                raise ValueError("an analysis with status 'ok' needs an importance")
            if not self.summary:
                raise ValueError("an analysis with status 'ok' needs a summary")
        return self

    @property
    def ok(self) -> bool:
        return self.provenance.status is AnalysisStatus.OK

    @property
    def identity(self) -> str:
        """Which analysis this is, as the store's merge tells two apart: who wrote it, when, in what
        language (a translation added to it keeps it the same analysis)."""
        provenance = self.provenance
        return f"{provenance.analyzer}|{provenance.created_at.isoformat()}|{provenance.language}"

    @property
    def language(self) -> LanguageCode:
        language = self.provenance.language
        return language if language in LANGUAGE_CODES else "zh"  # type: ignore[return-value]

    @property
    def languages(self) -> tuple[LanguageCode, ...]:
        """Every language this analysis is worded in, its own first."""
        return (
            self.language,
            *(code for code in LANGUAGE_CODES if code in self.translations and code != self.language),
        )

    def text(self) -> AnalysisText:
        """This analysis's own wording (only for an ok analysis: it has a summary)."""
        return AnalysisText.model_validate({name: getattr(self, name) for name in TEXT_FIELDS})

    def in_language(self, language: LanguageCode) -> Analysis | None:
        """This analysis worded in ``language`` (its own or a translation), or None when it has none."""
        if language == self.language:
            return self
        translation = self.translations.get(language)
        if translation is None:
            return None
        worded = {name: getattr(translation, name) for name in TEXT_FIELDS}
        provenance = self.provenance.model_copy(update={"language": language})
        return self.model_copy(update={**worded, "provenance": provenance})

    def with_translation(self, language: LanguageCode, text: AnalysisText) -> Analysis:
        if language == self.language:
            raise ValueError(f"the analysis is worded in {language} already")
        return self.model_copy(update={"translations": {**self.translations, language: text}})


class CommitRecord(StrictModel):
    """One line of the export and one value of the store: a commit with its current analysis."""

    commit: Commit
    analysis: Analysis | None = None
    # The newest unsuccessful attempt (failed, refused, pending) that did not replace a
    # better analysis: kept so the site can say "LLM analysis failed, showing the offline one".
    failure: Provenance | None = None
    schema_version: int = SCHEMA_VERSION

    @property
    def key(self) -> tuple[str, str]:
        return (self.commit.repository, self.commit.sha)

    @property
    def status(self) -> AnalysisStatus:
        return self.analysis.provenance.status if self.analysis else AnalysisStatus.PENDING
