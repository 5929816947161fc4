"""From stored records to what the site shows: each commit's day, group and labels, indexed by
day, month, platform and subsystem. Pure: records, settings and taxonomy in, an index out."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from commit_digest.meaning.impact.extract import OperatorImpact
from commit_digest.meaning.impact.rules import ImpactRules
from commit_digest.meaning.relations.links import NO_LINKS, CommitLinks, commit_links
from commit_digest.meaning.releases import is_release_tag
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import (
    Analysis,
    AnalysisStatus,
    CommitRecord,
    GitHubAddresses,
    Importance,
    Label,
    LabelSource,
    LanguageCode,
)
from commit_digest.settings import DEFAULT_RELEASE_TAGS
from commit_digest.site.fingerprint import text_digest
from commit_digest.site.model.calendar import IsoWeek
from commit_digest.site.model.facts import SiteFacts, commit_impact
from commit_digest.site.model.wording import Worded, Wording
from commit_digest.store.narratives import WeekNarrative

if TYPE_CHECKING:
    from commit_digest.meaning.releases import Release
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


@dataclass(frozen=True)
class DayStats:
    total: int
    high: int
    medium: int
    low: int
    unanalysed: int


@dataclass(frozen=True)
class Day:
    date: date
    commits: tuple[SiteCommit, ...]  # oldest first: previous/next follow landing order

    @property
    def iso(self) -> str:
        return self.date.isoformat()

    @property
    def month(self) -> str:
        return self.date.strftime("%Y-%m")

    @property
    def week(self) -> IsoWeek:
        return IsoWeek.of(self.date)

    @property
    def newest_first(self) -> tuple[SiteCommit, ...]:
        return tuple(reversed(self.commits))

    def group(self, name: str) -> tuple[SiteCommit, ...]:
        return tuple(commit for commit in self.newest_first if commit.group == name)

    def label_counts(self, kind: str, order: Sequence[str]) -> list[tuple[str, int]]:
        """How many of the day's commits carry each platform or subsystem label (``kind``), in
        ``order`` (the taxonomy's), then labels outside it; labels no commit has are left out."""
        counts: dict[str, int] = {}
        for item in self.commits:
            for label in item.labels(kind):
                counts[label.id] = counts.get(label.id, 0) + 1
        known = [(label_id, counts.pop(label_id)) for label_id in order if label_id in counts]
        return known + sorted(counts.items())

    def with_label(self, kind: str, label_id: str) -> tuple[SiteCommit, ...]:
        """The day's commits with this label, newest first."""
        return tuple(item for item in self.newest_first if any(label.id == label_id for label in item.labels(kind)))

    @property
    def stats(self) -> DayStats:
        counts = {name: len(self.group(name)) for name in GROUP_ORDER}
        return DayStats(
            total=len(self.commits),
            high=counts[Importance.HIGH.value],
            medium=counts[Importance.MEDIUM.value],
            low=counts[Importance.LOW.value],
            unanalysed=counts[UNANALYSED],
        )


@dataclass(frozen=True)
class SiteRepository:
    """A repository the site follows, as the site model needs it."""

    name: str  # owner/name
    title: str  # what the pages call it
    taxonomy: Taxonomy | None = None  # the rules its commits are labelled by (default: the site's)
    platforms: tuple[str, ...] = ()  # every commit of it is on these platforms
    impact_rules: ImpactRules | None = None  # what its diffs' operator changes are (default: vLLM's)
    release_tags: str = DEFAULT_RELEASE_TAGS  # the tag names that are its releases (``re.search``)

    @classmethod
    def named(cls, name: str) -> SiteRepository:
        return cls(name=name, title=name.split("/", 1)[-1])


@dataclass(frozen=True)
class SiteNarrative:
    """A platform's week told by an LLM (stored like analyses; untrusted text), in the site's language."""

    week: str  # ISO week id, 2026-W03
    platform: str
    text: str
    model: str
    fingerprint: str  # of the stored narrative: the week page changes when it does
    original_language: LanguageCode | None = None  # when not worded in the site's language


def site_narratives(stored: Iterable[WeekNarrative], language: LanguageCode) -> dict[tuple[str, str], SiteNarrative]:
    """The stored narratives as the site shows them: in its language, or in the one they have
    (marked) when written before the site had this language."""
    found = {}
    for narrative in stored:
        text = narrative.text(language)
        original: LanguageCode | None = None
        if text is None:
            original, text = next(iter(narrative.texts.items()))
        analyzer = narrative.provenance.analyzer
        found[narrative.key] = SiteNarrative(
            week=narrative.week,
            platform=narrative.platform,
            text=text,
            model=analyzer.split(":", 1)[1] if analyzer.startswith("llm:") else analyzer,
            fingerprint=text_digest(narrative.model_dump_json()),
            original_language=original,
        )
    return found


@dataclass(frozen=True)
class SiteIndex:
    repository: str  # the first (the only one of most sites)
    days: tuple[Day, ...]  # newest first
    by_platform: dict[str, tuple[SiteCommit, ...]] = field(default_factory=dict)  # newest first
    by_subsystem: dict[str, tuple[SiteCommit, ...]] = field(default_factory=dict)
    repositories: tuple[SiteRepository, ...] = ()
    by_repository: dict[str, tuple[SiteCommit, ...]] = field(default_factory=dict)  # newest first
    # (week id, platform id) → the narrative of that platform's week, when the store has one.
    narratives: dict[tuple[str, str], SiteNarrative] = field(default_factory=dict)
    # Operator impact, related commits and releases of the commits above (derived when asked).
    facts: SiteFacts = field(default_factory=SiteFacts)

    @property
    def several_repositories(self) -> bool:
        """Whether pages name each commit's repository (and its pages' paths hold it)."""
        return len(self.repositories) > 1

    @property
    def months(self) -> dict[str, tuple[Day, ...]]:
        grouped: dict[str, list[Day]] = defaultdict(list)
        for day in self.days:
            grouped[day.month].append(day)
        return {month: tuple(days) for month, days in grouped.items()}


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


def _unique(labels: Sequence[Label]) -> tuple[Label, ...]:
    seen: dict[str, Label] = {}
    for label in labels:
        seen.setdefault(label.id, label)
    return tuple(seen.values())


def site_commits(
    records: Iterable[CommitRecord],
    *,
    repositories: Sequence[SiteRepository],
    zone: ZoneInfo,
    taxonomy: Taxonomy,
    wording: Wording | None,
    source: RecordSource | None = None,
) -> list[SiteCommit]:
    """The records of ``repositories`` as the site shows them, each labelled by its repository's
    taxonomy (``taxonomy``, the site's, when it has none of its own)."""
    followed = {item.name: item for item in repositories}
    commits = []
    for record in records:
        found = followed.get(record.commit.repository)
        if found is not None:
            rules = found.taxonomy or taxonomy
            commits.append(site_commit(record, zone, rules, wording, found.platforms, source, found.impact_rules))
    return commits


def build_index(
    records: Iterable[CommitRecord],
    *,
    repository: str | None = None,
    repositories: Sequence[SiteRepository] = (),
    zone: ZoneInfo,
    taxonomy: Taxonomy,
    language: LanguageCode = "zh",
    releases: Sequence[Release] = (),
    source: RecordSource | None = None,
) -> SiteIndex:
    """The site's commits: those of ``repositories`` (or of the one ``repository``), each
    labelled by its repository's taxonomy; ``taxonomy`` is the site's (names, order, pages).
    With a ``source`` (the store the records come from), the index keeps each commit's summary
    and pages read its record again when they show it: ``records`` may then be a stream."""
    if not repositories:
        if repository is None:
            raise ValueError("build_index needs a repository or repositories")
        repositories = (SiteRepository.named(repository),)
    wording = Wording(language, taxonomy)
    commits = site_commits(
        records, repositories=repositories, zone=zone, taxonomy=taxonomy, wording=wording, source=source
    )
    return index_of(commits, repositories=repositories, taxonomy=taxonomy, releases=releases)


def shown_releases(releases: Iterable[Release], repositories: Sequence[SiteRepository]) -> list[Release]:
    """The releases of ``repositories`` whose tags are their release tags: a store may hold others
    (restored before the filter, or kept from a wider ``release_tags``), and the site never shows them."""
    patterns = {item.name: item.release_tags for item in repositories}
    return [
        release
        for release in releases
        if release.repository in patterns and is_release_tag(release.tag, patterns[release.repository])
    ]


def index_of(
    commits: list[SiteCommit],
    *,
    repositories: Sequence[SiteRepository],
    taxonomy: Taxonomy,
    releases: Sequence[Release] = (),
) -> SiteIndex:
    """The index of the site's commits (in any order): by day, label and repository."""
    commits = sorted(commits, key=lambda item: (item.committed_at, item.sha))
    by_day: dict[date, list[SiteCommit]] = defaultdict(list)
    for item in commits:
        by_day[item.day].append(item)
    days = tuple(Day(date=day, commits=tuple(items)) for day, items in sorted(by_day.items(), reverse=True))
    newest_first = list(reversed(commits))
    by_platform: dict[str, list[SiteCommit]] = {rule.id: [] for rule in taxonomy.platforms}
    by_subsystem: dict[str, list[SiteCommit]] = {rule.id: [] for rule in taxonomy.subsystems}
    by_repository: dict[str, list[SiteCommit]] = {item.name: [] for item in repositories}
    for item in newest_first:
        for label in item.platforms:
            by_platform.setdefault(label.id, []).append(item)
        for label in item.subsystems:
            by_subsystem.setdefault(label.id, []).append(item)
        by_repository[item.repository].append(item)
    return SiteIndex(
        repository=repositories[0].name,
        days=days,
        by_platform={key: tuple(value) for key, value in by_platform.items()},
        by_subsystem={key: tuple(value) for key, value in by_subsystem.items()},
        repositories=tuple(repositories),
        by_repository={key: tuple(value) for key, value in by_repository.items()},
        facts=SiteFacts(
            newest_first,
            releases=shown_releases(releases, repositories),
            rules={item.name: item.impact_rules for item in repositories if item.impact_rules is not None},
        ),
    )
