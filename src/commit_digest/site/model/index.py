"""From stored records to what the site shows: its commits (``commit.py``) indexed by day, month,
platform, subsystem and repository, with the facts that relate them (``facts.py``), the
narratives and the releases. Pure: records, settings and taxonomy in, an index out; built once
per build and read by every view.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from commit_digest.meaning.impact.rules import ImpactRules
from commit_digest.meaning.releases import is_release_tag
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import CommitRecord, Importance, Label, LanguageCode
from commit_digest.settings import DEFAULT_RELEASE_TAGS
from commit_digest.site.fingerprint import text_digest
from commit_digest.site.model.briefs import BriefKey, SiteBrief
from commit_digest.site.model.calendar import IsoWeek
from commit_digest.site.model.commit import GROUP_ORDER, UNANALYSED, SiteCommit, site_commit
from commit_digest.site.model.facts import SiteFacts
from commit_digest.site.model.wording import Wording
from commit_digest.store.narratives import WeekNarrative
from commit_digest.store.sample_note import SampleNote

if TYPE_CHECKING:
    from commit_digest.meaning.releases import Release
    from commit_digest.site.model.record_source import RecordSource


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
    created_at: datetime | None = None  # when it was written: its feed entry's time


def site_narratives(stored: Iterable[WeekNarrative], language: LanguageCode) -> dict[tuple[str, str], SiteNarrative]:
    """The stored narratives as the site shows them: in its language, or in the one they have
    (marked) when written before the site had this language."""
    found = {}
    for narrative in stored:
        text = narrative.text(language)
        original: LanguageCode | None = None
        if text is None:
            original, text = next(iter(narrative.texts.items()))
        found[narrative.key] = SiteNarrative(
            week=narrative.week,
            platform=narrative.platform,
            text=text,
            model=narrative.provenance.model or narrative.provenance.analyzer,
            fingerprint=text_digest(narrative.model_dump_json()),
            original_language=original,
            created_at=narrative.provenance.created_at,
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
    # (day, platform id or None for the whole day's) → the day's brief, when the store has one.
    briefs: dict[BriefKey, SiteBrief] = field(default_factory=dict)
    # Operator impact, related commits and releases of the commits above (derived when asked).
    facts: SiteFacts = field(default_factory=SiteFacts)
    # What of the data is a sample loaded by ``demo`` (None: real data).
    sample: SampleNote | None = None

    @property
    def several_repositories(self) -> bool:
        """Whether pages name each commit's repository (and its pages' paths hold it)."""
        return len(self.repositories) > 1

    def brief(self, day: date, platform: str | None = None) -> SiteBrief | None:
        """The brief of ``day`` on ``platform`` (None: the whole day's), when there is one."""
        return self.briefs.get((day, platform))

    def day_briefs(self, day: date) -> tuple[SiteBrief, ...]:
        """Every brief of ``day``: an input of the pages that show them."""
        return self._briefs_by_day.get(day, ())

    @cached_property
    def _briefs_by_day(self) -> dict[date, tuple[SiteBrief, ...]]:
        grouped: dict[date, list[SiteBrief]] = defaultdict(list)
        for (day, _), brief in self.briefs.items():
            grouped[day].append(brief)
        return {day: tuple(briefs) for day, briefs in grouped.items()}

    @property
    def months(self) -> dict[str, tuple[Day, ...]]:
        grouped: dict[str, list[Day]] = defaultdict(list)
        for day in self.days:
            grouped[day.month].append(day)
        return {month: tuple(days) for month, days in grouped.items()}


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
