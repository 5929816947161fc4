"""What `narrate` writes: a short narrative of each completed week per platform, written once.

The commits are the site's: the store read as the site reads it (``site.followed``: the followed
repositories, each labelled by its own taxonomy, days and weeks in the site's time zone), so a
narrative covers exactly the commits the week's page lists on that platform. A (week, platform)
gets a narrative when its week is over (its Sunday is before today in the site's zone), it has at
least ``MIN_COMMITS`` commits with an ok analysis, and no narrative is stored for it (or the run
was asked to rewrite). Each one is claimed in the store before its request
(``narrative/<week>/<platform>``) and the store is read again once claimed, so concurrent runs
pay once; the narrative is stored the moment it arrives (``analysis.narrative_task`` on the pipeline).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date

from rich.console import Console

from commit_digest.analysis.claims import Claims, lease_seconds
from commit_digest.analysis.narration import (
    SUMMARY_CAP,
    TITLE_CAP,
    NarrativeCommit,
    NarrativeJob,
    NarrativeWriter,
    one_line,
)
from commit_digest.analysis.narrative_task import NarrateTask
from commit_digest.analysis.pipeline import PassSummary, run_task
from commit_digest.errors import InputError
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import IMPORTANCE_ORDER, Importance
from commit_digest.settings import DigestSettings
from commit_digest.site.model.calendar import IsoWeek, weeks_between, weeks_until
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.followed import followed_repositories, site_records, site_taxonomy
from commit_digest.site.model.index import SiteIndex, build_index
from commit_digest.store.analysis_store import AnalysisStore

# A platform needs this many analysed commits in a week for a narrative of its own.
MIN_COMMITS = 3
# At most this many commits go into one request (the most important ones); the rest are counted.
MAX_COMMITS_SENT = 40
# With no week asked for, the last this many completed weeks.
DEFAULT_WEEKS = 8


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
                    week=week.id,
                    monday=week.monday,
                    sunday=week.sunday,
                    platform=platform,
                    platform_name=platform_name(taxonomy, platform),
                    commits=tuple(narrative_commit(item) for item in ordered[:max_sent]),
                    total=len(ordered),
                )
            )
    return NarrativePlan(jobs=jobs[:limit] if limit is not None else jobs, written=already, too_few=too_few)


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
) -> PassSummary:
    """The narratives ``request`` asks for that are not stored yet (all of them with ``rewrite``);
    "today" is the writer's clock in the site's time zone."""
    today = writer.clock().astimezone(settings.zone).date()
    index, taxonomy = site_index(store, settings)
    weeks = request.resolve(today, first_week(index))
    written = {narrative.key for narrative in store.narratives()}
    plan = narrative_jobs(index, taxonomy, weeks, written=written, rewrite=rewrite, limit=limit)
    summary = PassSummary(NarrateTask.words, notes=plan_notes(plan))
    return run_task(
        store,
        NarrateTask(writer, rewrite=rewrite, started=writer.clock()),
        plan.jobs,
        concurrency=settings.llm.concurrency,
        claims=claims or Claims(seconds=lease_seconds(settings.llm)),
        summary=summary,
        console=console,
    )


def plan_notes(plan: NarrativePlan) -> list[str]:
    """What the plan left out, for the run's summary."""
    notes = []
    if plan.written:
        notes.append(f"{plan.written} written before (--rewrite to replace)")
    if plan.too_few:
        notes.append(f"{plan.too_few} with fewer than {MIN_COMMITS} analysed commits: no narrative")
    return notes
