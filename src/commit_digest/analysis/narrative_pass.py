"""`narrate` over the store: a short narrative of each completed week per platform, written once.

The commits are the site's: the store read as the site reads it (``site.followed``: the followed
repositories, each labelled by its own taxonomy, days and weeks in the site's time zone), so a
narrative covers exactly the commits the week's page lists on that platform. A (week, platform)
gets a narrative when its week is over (its Sunday is before today in the site's zone), it has at
least ``MIN_COMMITS`` commits with an ok analysis, and no narrative is stored for it (or the run
was asked to rewrite). Each one is claimed in the store before its request
(``narrative/<week>/<platform>``) and the store is read again once claimed, so concurrent runs
pay once; the narrative is stored the moment it arrives.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import Enum

from rich.console import Console

from commit_digest import stopping
from commit_digest.analysis.claims import Claims, claimed, lease_seconds
from commit_digest.analysis.narration import (
    SUMMARY_CAP,
    TITLE_CAP,
    NarrativeCommit,
    NarrativeJob,
    NarrativeResult,
    NarrativeWriter,
    one_line,
)
from commit_digest.analysis.runner import run_pool
from commit_digest.errors import InputError
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import IMPORTANCE_ORDER, AnalysisStatus, Importance, TokenUsage
from commit_digest.settings import DigestSettings
from commit_digest.site.model.calendar import IsoWeek, weeks_between, weeks_until
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.followed import followed_repositories, site_records, site_taxonomy
from commit_digest.site.model.index import SiteIndex, build_index
from commit_digest.store.analysis_store import AnalysisStore

logger = logging.getLogger("mkdocs.plugins.commit_digest.analysis")

# A platform needs this many analysed commits in a week for a narrative of its own.
MIN_COMMITS = 3
# At most this many commits go into one request (the most important ones); the rest are counted.
MAX_COMMITS_SENT = 40
# With no week asked for, the last this many completed weeks.
DEFAULT_WEEKS = 8


def narrative_lease_name(week: str, platform: str) -> str:
    return f"narrative/{week}/{platform}"


def last_completed_week(today: date) -> IsoWeek:
    """The newest week whose Sunday is before ``today``."""
    return IsoWeek.of(today).previous


@dataclass(frozen=True)
class WeekRequest:
    """Which weeks a run considers: named ones, the weeks of a range of days, or the last ``count``."""

    weeks: tuple[IsoWeek, ...] = ()
    since: date | None = None
    until: date | None = None
    count: int = DEFAULT_WEEKS

    def resolve(self, today: date, first: IsoWeek | None) -> tuple[IsoWeek, ...]:
        """The completed weeks asked for, oldest first. ``first``: the week of the oldest stored
        commit (where a range without a start begins). A named week not over yet is an error."""
        last = last_completed_week(today)
        if self.weeks:
            open_weeks = [week.id for week in self.weeks if week > last]
            if open_weeks:
                raise InputError(
                    f"--week {', '.join(open_weeks)}: not over yet (today is {today.isoformat()} in the "
                    f"site's time zone; the newest completed week is {last.id})"
                )
            return tuple(sorted(set(self.weeks)))
        if self.since is None and self.until is None:
            return weeks_until(last, self.count)
        start = IsoWeek.of(self.since) if self.since is not None else first
        end = min(IsoWeek.of(self.until), last) if self.until is not None else last
        return () if start is None else tuple(weeks_between(start, end))


@dataclass(frozen=True)
class NarrativePlan:
    """What a run will write, and what it leaves because it is written or has too few commits."""

    jobs: list[NarrativeJob]
    written: int = 0  # stored already (and no rewrite asked)
    too_few: int = 0  # (week, platform) with some but fewer than MIN_COMMITS analysed commits


def site_index(store: AnalysisStore, settings: DigestSettings) -> tuple[SiteIndex, Taxonomy]:
    """The store as the site reads it (its repositories, labels and language) and the site's taxonomy."""
    taxonomy = site_taxonomy(settings)
    index = build_index(
        site_records(store, settings),
        repositories=followed_repositories(settings, taxonomy),
        zone=settings.zone,
        taxonomy=taxonomy,
        language=settings.language,
    )
    return index, taxonomy


def first_week(index: SiteIndex) -> IsoWeek | None:
    return index.days[-1].week if index.days else None


def platform_name(taxonomy: Taxonomy, platform: str) -> str:
    rule = taxonomy.platform(platform)
    if rule is None:
        return platform
    return rule.name.en if rule.name.en == rule.name.zh else f"{rule.name.en} / {rule.name.zh}"


def narrative_commit(item: SiteCommit) -> NarrativeCommit:
    analysis = item.analysis
    assert analysis is not None and analysis.importance is not None, "only analysed commits are narrated"
    return NarrativeCommit(
        sha=item.short_sha,
        title=one_line(item.record.commit.title, TITLE_CAP),
        importance=analysis.importance,
        change_type=analysis.change_type.value,
        summary=one_line(analysis.summary[0], SUMMARY_CAP),
    )


def _importance_rank(item: SiteCommit) -> int:
    return IMPORTANCE_ORDER.index(Importance(item.group))


def narrative_jobs(
    index: SiteIndex,
    taxonomy: Taxonomy,
    weeks: Sequence[IsoWeek],
    *,
    written: Collection[tuple[str, str]],
    rewrite: bool = False,
    limit: int | None = None,
    min_commits: int = MIN_COMMITS,
    max_sent: int = MAX_COMMITS_SENT,
) -> NarrativePlan:
    """The narratives to write: newest week first, platforms in the taxonomy's order.

    Each job's commits are the week's analysed commits on the platform, high importance first,
    then medium, then low, oldest first within each; at most ``max_sent`` of them."""
    wanted = set(weeks)
    by_week: dict[tuple[IsoWeek, str], list[SiteCommit]] = defaultdict(list)
    for platform, commits in index.by_platform.items():
        for item in commits:
            if item.analysed and item.week in wanted:
                by_week[(item.week, platform)].append(item)
    jobs: list[NarrativeJob] = []
    already = too_few = 0
    for week in sorted(wanted, reverse=True):
        for platform in index.by_platform:
            chosen = by_week.get((week, platform))
            if not chosen:
                continue
            if len(chosen) < min_commits:
                too_few += 1
                continue
            if (week.id, platform) in written and not rewrite:
                already += 1
                continue
            ordered = sorted(chosen, key=lambda item: (_importance_rank(item), item.record.commit.committed_at))
            jobs.append(
                NarrativeJob(
                    week=week,
                    platform=platform,
                    platform_name=platform_name(taxonomy, platform),
                    commits=tuple(narrative_commit(item) for item in ordered[:max_sent]),
                    total=len(ordered),
                )
            )
    return NarrativePlan(jobs=jobs[:limit] if limit is not None else jobs, written=already, too_few=too_few)


class NarrativeSkip(Enum):
    CLAIMED = "another run is writing it"
    WRITTEN = "written by another run meanwhile"


@dataclass(frozen=True)
class Narrated:
    job: NarrativeJob
    result: NarrativeResult | None = None
    skipped: NarrativeSkip | None = None


@dataclass
class NarrateSummary:
    selected: int = 0
    already_written: int = 0
    too_few: int = 0
    by_status: dict[AnalysisStatus, int] = field(default_factory=dict)
    skipped: dict[NarrativeSkip, int] = field(default_factory=dict)
    errors: int = 0  # narratives whose writing raised (a bug): nothing stored, retried next run
    usage: TokenUsage = field(default_factory=TokenUsage)
    seconds: float = 0.0
    written: list[str] = field(default_factory=list)  # "<week> <platform>: written from N commits"
    problems: list[str] = field(default_factory=list)  # "<week> <platform>: <status>: <reason>"

    def count(self, status: AnalysisStatus) -> int:
        return self.by_status.get(status, 0)

    @property
    def failed(self) -> int:
        return sum(self.by_status.values()) - self.count(AnalysisStatus.OK) + self.errors

    @property
    def all_ok(self) -> bool:
        """Every narrative this run did not leave to another run was written and stored."""
        return self.failed == 0

    def tally(self, job: NarrativeJob, result: NarrativeResult) -> None:
        self.by_status[result.status] = self.count(result.status) + 1
        self.usage += result.usage
        if result.value is not None:
            left_out = f" ({job.omitted} more left out)" if job.omitted else ""
            self.written.append(f"{job.name}: written from {len(job.commits)} commits{left_out}")
        else:
            self.problems.append(f"{job.name}: {result.status.value}: {result.error}")

    def add_error(self, job: NarrativeJob, error: Exception) -> None:
        self.errors += 1
        self.problems.append(f"{job.name}: error: {type(error).__name__}: {error}")

    def figures(self) -> tuple[int, int]:
        return self.failed, self.usage.prompt_tokens + self.usage.completion_tokens

    def lines(self) -> list[str]:
        counts = [f"{status.value} {self.count(status)}" for status in AnalysisStatus if self.count(status)]
        if self.errors:
            counts.append(f"error {self.errors}")
        done = sum(self.by_status.values()) + self.errors
        left = []
        if self.already_written:
            left.append(f"{self.already_written} written before (--rewrite to replace)")
        if self.too_few:
            left.append(f"{self.too_few} with fewer than {MIN_COMMITS} analysed commits: no narrative")
        return [
            f"narrated {done} of {self.selected} weeks per platform in {self.seconds:.1f} s: "
            + (", ".join(counts) or "nothing to do"),
            *left,
            *self.written,
            *(f"{count} skipped: {reason.value}" for reason, count in self.skipped.items()),
            f"tokens: prompt {self.usage.prompt_tokens} (cached {self.usage.cached_tokens}), "
            f"completion {self.usage.completion_tokens}",
            *self.problems,
        ]


@dataclass(frozen=True)
class _Worker:
    """One (week, platform): claim, look again, write, store, let go. Runs on a pool thread."""

    store: AnalysisStore
    writer: NarrativeWriter
    claims: Claims | None
    rewrite: bool
    started: datetime  # a narrative stored after this was written by another run of this one's kind

    def __call__(self, job: NarrativeJob) -> Narrated:
        with claimed(self.store, narrative_lease_name(*job.key), self.claims) as taken:
            if not taken:
                return Narrated(job, skipped=NarrativeSkip.CLAIMED)
            stored = self.store.narrative(*job.key)
            if stored is not None and (not self.rewrite or stored.provenance.created_at > self.started):
                return Narrated(job, skipped=NarrativeSkip.WRITTEN)
            result = self.writer.write(job)
            if result.value is not None:
                self.store.put_narrative(result.value)
                stopping.kept("narratives")
            else:
                logger.warning("%s: narrative %s: %s", job.name, result.status.value, result.error)
            return Narrated(job, result=result)


def narrate_all(
    store: AnalysisStore,
    writer: NarrativeWriter,
    plan: NarrativePlan,
    settings: DigestSettings,
    *,
    rewrite: bool = False,
    console: Console | None = None,
    claims: Claims | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> NarrateSummary:
    """Writes ``plan``'s narratives with up to ``llm.concurrency`` in flight; each is stored by its worker."""
    summary = NarrateSummary(selected=len(plan.jobs), already_written=plan.written, too_few=plan.too_few)
    started = clock()

    def done(job: NarrativeJob, outcome: Narrated) -> None:
        if outcome.skipped is not None:
            summary.skipped[outcome.skipped] = summary.skipped.get(outcome.skipped, 0) + 1
            return
        assert outcome.result is not None, "an outcome is a result or a skip"
        summary.tally(job, outcome.result)

    def failed(job: NarrativeJob, error: Exception) -> None:
        logger.exception("%s: writing the narrative raised; it is retried next run", job.name)
        summary.add_error(job, error)

    if plan.jobs:
        run_pool(
            plan.jobs,
            _Worker(store, writer, claims or Claims(seconds=lease_seconds(settings.llm)), rewrite, writer.clock()),
            concurrency=settings.llm.concurrency,
            console=console or Console(stderr=True),
            doing="narrating",
            on_result=done,
            on_error=failed,
            figures=summary.figures,
        )
    summary.seconds = clock() - started
    return summary


def narrate_site(
    store: AnalysisStore,
    writer: NarrativeWriter,
    settings: DigestSettings,
    request: WeekRequest,
    *,
    rewrite: bool = False,
    limit: int | None = None,
    console: Console | None = None,
    claims: Claims | None = None,
) -> NarrateSummary:
    """The narratives ``request`` asks for that are not stored yet (all of them with ``rewrite``);
    "today" is the writer's clock in the site's time zone."""
    today = writer.clock().astimezone(settings.zone).date()
    index, taxonomy = site_index(store, settings)
    weeks = request.resolve(today, first_week(index))
    written = {narrative.key for narrative in store.narratives()}
    plan = narrative_jobs(index, taxonomy, weeks, written=written, rewrite=rewrite, limit=limit)
    return narrate_all(store, writer, plan, settings, rewrite=rewrite, console=console, claims=claims)
