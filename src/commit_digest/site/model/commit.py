"""A commit as the site shows it: its summary (what every listing needs, kept for the next build),
its local time, its labels, its group by importance, its links and operator impact.

Pure: a stored record, the zone and the taxonomy in, a ``SiteCommit`` out. ``index.py`` gathers
them into days, months and labels; ``facts.py`` relates them to each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from commit_digest.meaning.impact.extract import OperatorImpact, operator_impact
from commit_digest.meaning.impact.rules import ImpactRules, impact_rules
from commit_digest.meaning.relations.links import NO_LINKS, CommitLinks, commit_links
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import (
    Analysis,
    AnalysisStatus,
    Commit,
    CommitRecord,
    GitHubAddresses,
    Importance,
    Label,
    LabelSource,
    LanguageCode,
)
from commit_digest.site.fingerprint import text_digest
from commit_digest.site.model.calendar import IsoWeek
from commit_digest.site.model.wording import Worded, Wording

if TYPE_CHECKING:
    from commit_digest.site.model.record_source import RecordSource

# The group of a commit without an ok analysis: shown last, never dropped.
UNANALYSED = "unanalysed"
GROUP_ORDER: tuple[str, ...] = (
    Importance.HIGH.value,
    Importance.MEDIUM.value,
    Importance.LOW.value,
    UNANALYSED,
)


@dataclass(frozen=True)
class RepositoryChip:
    """A commit's repository where pages show labels (its id is owner/name)."""

    id: str


@dataclass(frozen=True, slots=True)  # slots: one per commit of the archive, in every process
class CommitSummary(GitHubAddresses):
    """What listings show of a commit: kept for every commit of the archive, while its whole
    record is read only by the pages that show it (``SiteCommit.record``)."""

    repository: str
    sha: str
    title: str
    author_name: str
    committed_at: datetime
    pr_number: int | None
    analysed: bool  # an ok analysis
    group: str  # its importance, or UNANALYSED
    change_type: str | None
    status: AnalysisStatus

    @classmethod
    def of(cls, record: CommitRecord) -> CommitSummary:
        commit, analysis = record.commit, record.analysis
        analysed = analysis is not None and analysis.ok
        return cls(
            repository=commit.repository,
            sha=commit.sha,
            title=commit.title,
            author_name=commit.author_name,
            committed_at=commit.committed_at,
            pr_number=commit.pr_number,
            analysed=analysed,
            group=analysis.importance.value
            if analysis is not None and analysed and analysis.importance is not None
            else UNANALYSED,
            change_type=analysis.change_type.value if analysis is not None and analysed else None,
            status=record.status,
        )


@dataclass(frozen=True, slots=True)  # slots: one per commit of the archive, in every process
class SiteCommit:
    summary: CommitSummary
    local_time: datetime  # committed_at in the site's time zone
    platforms: tuple[Label, ...]
    subsystems: tuple[Label, ...]
    fingerprint: str  # of the stored record: pages showing this commit change when it does
    wording: Wording | None = field(compare=False, repr=False)  # None only while sent between processes
    # The record itself when the index was made from records in memory; else read from the
    # store when a page asks (``source``), so a build does not hold the whole archive.
    kept: CommitRecord | None = field(default=None, compare=False, repr=False)
    source: RecordSource | None = field(default=None, compare=False, repr=False)
    # What its message says of other commits, and its operator impact (None: found when asked).
    links: CommitLinks = field(default=NO_LINKS, compare=False, repr=False)
    impact: OperatorImpact | None = field(default=None, compare=False, repr=False)
    _worded_kept: Worded | None = field(default=None, init=False, compare=False, repr=False)
    # Its local day and month ("2026-01"), asked for a dozen times per commit by the listings.
    day: date = field(init=False, compare=False, repr=False)
    month: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        local = self.local_time
        object.__setattr__(self, "day", local.date())
        object.__setattr__(self, "month", f"{local.year:04d}-{local.month:02d}")

    @property
    def record(self) -> CommitRecord:
        if self.kept is not None:
            return self.kept
        assert self.source is not None
        return self.source.record(self.repository, self.sha)

    @property
    def worded(self) -> Worded:
        """The analysis in the site's language; worded when first asked (an incremental build
        renders few pages, so most commits are never worded)."""
        assert self.wording is not None
        if self.source is not None:
            return self.source.worded(self.repository, self.sha, self.wording)
        if self._worded_kept is None:  # the record is kept: so is its wording, once made
            object.__setattr__(self, "_worded_kept", self.wording.word(self.record))
        assert self._worded_kept is not None
        return self._worded_kept

    @property
    def analysis(self) -> Analysis | None:
        return self.worded.analysis

    @property
    def original_language(self) -> LanguageCode | None:
        return self.worded.original_language

    @property
    def sha(self) -> str:
        return self.summary.sha

    @property
    def repository(self) -> str:
        return self.summary.repository

    @property
    def title(self) -> str:
        return self.summary.title

    @property
    def author_name(self) -> str:
        return self.summary.author_name

    @property
    def committed_at(self) -> datetime:
        return self.summary.committed_at

    @property
    def pr_number(self) -> int | None:
        return self.summary.pr_number

    def labels(self, kind: str) -> tuple[Label, ...] | tuple[RepositoryChip, ...]:
        """The commit's labels of a kind: "platforms", "subsystems" or "repositories" (its own)."""
        if kind == "platforms":
            return self.platforms
        if kind == "subsystems":
            return self.subsystems
        return (RepositoryChip(self.repository),)

    @property
    def short_sha(self) -> str:
        return self.summary.short_sha

    @property
    def week(self) -> IsoWeek:
        return IsoWeek.of(self.day)

    @property
    def analysed(self) -> bool:
        return self.summary.analysed

    @property
    def group(self) -> str:
        return self.summary.group

    @property
    def change_type(self) -> str | None:
        return self.summary.change_type

    @property
    def status(self) -> AnalysisStatus:
        return self.summary.status


def site_labels(
    record: CommitRecord, taxonomy: Taxonomy, repository_platforms: Sequence[str] = ()
) -> tuple[tuple[Label, ...], tuple[Label, ...]]:
    """The labels the site gives a commit: the current rules' (derived at every build, so a
    changed taxonomy relabels the archive with no LLM call), then the labels a model or a
    legacy report gave, kept with their source while the taxonomy still has them. The rule
    labels stored with an analysis are the rules of its day and give way to today's."""
    commit = record.commit
    rules = taxonomy.classify(commit.title, commit.body, [change.path for change in commit.files])
    given = record.analysis

    def labels(found: Sequence[Label], stored: Sequence[Label], order: Sequence[str]) -> tuple[Label, ...]:
        kept: dict[str, Label] = {}
        for label in found:
            kept.setdefault(label.id, label)
        for label in stored:
            if label.source is not LabelSource.RULE and label.id in order and label.id not in kept:
                kept[label.id] = label
        position = {label_id: index for index, label_id in enumerate(order)}
        return tuple(sorted(kept.values(), key=lambda label: position[label.id]))

    # A repository that is all about one platform (a hardware plugin) puts each commit on it.
    own = [
        Label(id=label_id, reason=f"repository {commit.repository}")
        for label_id in repository_platforms
        if label_id in taxonomy.platform_ids
    ]
    return (
        labels([*rules.platforms, *own], given.platforms if given else (), taxonomy.platform_ids),
        labels(rules.subsystems, given.subsystems if given else (), taxonomy.subsystem_ids),
    )


def site_commit(
    record: CommitRecord,
    zone: ZoneInfo,
    taxonomy: Taxonomy,
    wording: Wording | None,
    repository_platforms: Sequence[str] = (),
    source: RecordSource | None = None,
    impact_rules: ImpactRules | None = None,
) -> SiteCommit:
    """The site's view of a stored commit; with a ``source``, the record itself is not kept but
    what pages need of it beyond its summary is found now (its links, its operator impact)."""
    platforms, subsystems = site_labels(record, taxonomy, repository_platforms)
    return SiteCommit(
        summary=CommitSummary.of(record),
        local_time=record.commit.committed_at.astimezone(zone),
        platforms=platforms,
        subsystems=subsystems,
        fingerprint=text_digest(record.model_dump_json()),
        wording=wording,
        kept=None if source is not None else record,
        source=source,
        links=commit_links(record.commit),
        impact=commit_impact(record.commit, impact_rules) if source is not None else None,
    )


def commit_impact(commit: Commit, rules: ImpactRules | None) -> OperatorImpact:
    """What a commit's diff changes for operators, by its repository's rules (default: vLLM's)."""
    return operator_impact(commit, rules or impact_rules())
