"""What `brief` writes: for each completed day, the whole day's brief and each platform's, from the
commits the day page lists (the store read as the site reads it, as for a week's narrative).

When a brief is asked again: its ``inputs`` are a fingerprint of the (sha, analysis identity) of
the analysed commits it covers, where an analysis's identity is who wrote it, when and with what
status. A commit analysed since, an analysis replaced (a new prompt, a reanalysis) or a commit
fetched late changes it, and only then is the brief paid for again; a translation added to an
analysis does not. A brief with the same inputs that lacks a language of the site (a language added
to the site) is asked for that language only, and the languages it has stay. A platform whose
commits that day are all of the day's gets the whole day's brief under its own key too, unpaid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from rich.console import Console

from commit_digest.analysis.brief_floor import DayCommit
from commit_digest.analysis.brief_task import BriefTask, brief_is_current
from commit_digest.analysis.briefing import BriefCommit, BriefJob, BriefWriter
from commit_digest.analysis.claims import Claims, lease_seconds
from commit_digest.analysis.narration import SUMMARY_CAP, TITLE_CAP, one_line
from commit_digest.analysis.pipeline import PassSummary, run_task
from commit_digest.errors import InputError
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import IMPORTANCE_ORDER, Importance, LanguageCode
from commit_digest.plans.weeks import platform_name, site_index
from commit_digest.settings import DigestSettings
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.index import Day, SiteIndex
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.briefs import WHOLE_DAY, DayBrief, brief_key, inputs_fingerprint

# At most this many commits go into one request (the most important ones); the rest are counted.
MAX_COMMITS_SENT = 40
# With no day asked for, the last this many completed days.
DEFAULT_DAYS = 3


@dataclass(frozen=True)
class DayRequest:
    """Which days a run considers: named ones, a range of days, or the last ``count`` completed ones."""

    days: tuple[date, ...] = ()
    since: date | None = None
    until: date | None = None
    count: int = DEFAULT_DAYS

    def resolve(self, today: date) -> set[date] | None:
        """The completed days asked for (None: every completed day from ``since``). A named day not
        over yet in the site's time zone is an error."""
        last = today - timedelta(days=1)
        if self.days:
            open_days = [day.isoformat() for day in self.days if day > last]
            if open_days:
                raise InputError(
                    f"--day {', '.join(open_days)}: not over yet (today is {today.isoformat()} in the "
                    f"site's time zone; the newest completed day is {last.isoformat()})"
                )
            return set(self.days)
        if self.since is None and self.until is None:
            return {last - timedelta(days=back) for back in range(self.count)}
        return None

    def wants(self, day: date, today: date, resolved: set[date] | None) -> bool:
        if day >= today:
            return False
        if resolved is not None:
            return day in resolved
        return (self.since is None or day >= self.since) and (self.until is None or day <= self.until)


@dataclass
class BriefPlan:
    """What a run will write, and what it leaves because it is current."""

    jobs: list[BriefJob] = field(default_factory=list)
    current: int = 0  # stored, written from the same analyses in every language (no rewrite asked)
    # (day, platforms): platforms holding all of the day's analysed commits, which get the whole
    # day's brief under their own key, unpaid.
    shared: list[tuple[str, list[str]]] = field(default_factory=list)

    def notes(self) -> list[str]:
        return (
            [f"{self.current} current: their analyses have not changed (--rewrite to replace)"] if self.current else []
        )


def _identity(item: SiteCommit) -> tuple[str, str]:
    analysis = item.record.analysis
    assert analysis is not None, "only analysed commits are briefed"
    return item.record.commit.sha, analysis.identity


def _brief_commit(item: SiteCommit) -> BriefCommit:
    analysis = item.analysis
    assert analysis is not None and analysis.importance is not None, "only analysed commits are briefed"
    return BriefCommit(
        sha=item.short_sha,
        title=one_line(item.record.commit.title, TITLE_CAP),
        importance=analysis.importance,
        change_type=analysis.change_type.value,
        summary=one_line(analysis.summary[0], SUMMARY_CAP),
    )


def _ordered(items: Sequence[SiteCommit]) -> list[SiteCommit]:
    """High importance first, then medium, then low; oldest first within each."""
    return sorted(
        items, key=lambda item: (IMPORTANCE_ORDER.index(Importance(item.group)), item.record.commit.committed_at)
    )


def day_jobs(
    day: Day,
    taxonomy: Taxonomy,
    languages: tuple[LanguageCode, ...],
    stored: Mapping[tuple[str, str], DayBrief],
    plan: BriefPlan,
    *,
    rewrite: bool = False,
    max_sent: int = MAX_COMMITS_SENT,
) -> None:
    """Adds ``day``'s briefs to ``plan``: the whole day's first, then each platform's in the taxonomy's order."""
    analysed = [item for item in day.commits if item.analysed]
    if not analysed:
        return
    day_commits = tuple(DayCommit(item.short_sha, item.record.commit.pr_number, item.title) for item in day.commits)
    whole = {item.short_sha for item in analysed}
    shared: list[str] = []
    plan.shared.append((day.iso, shared))
    scopes: list[tuple[str | None, list[SiteCommit]]] = [(None, analysed)]
    for platform, _ in day.label_counts("platforms", taxonomy.platform_ids):
        on_platform = [item for item in day.with_label("platforms", platform) if item.analysed]
        if on_platform:
            scopes.append((platform, on_platform))
    for platform, items in scopes:
        if platform is not None and {item.short_sha for item in items} == whole:
            shared.append(platform)  # the whole day's brief serves it: nothing to ask
            continue
        inputs = inputs_fingerprint(_identity(item) for item in items)
        kept = stored.get(brief_key(day.date, platform))
        if brief_is_current(kept, inputs, languages) and not rewrite:
            plan.current += 1
            continue
        ordered = _ordered(items)
        missing = tuple(code for code in languages if kept is None or code not in kept.texts)
        adds_languages = kept is not None and kept.inputs == inputs and not rewrite and missing
        plan.jobs.append(
            BriefJob(
                day=day.date,
                platform=platform,
                platform_name=platform_name(taxonomy, platform) if platform is not None else None,
                commits=tuple(_brief_commit(item) for item in ordered[:max_sent]),
                total=len(ordered),
                day_commits=day_commits,
                inputs=inputs,
                languages=missing if adds_languages else languages,
                kept=kept if adds_languages else None,
            )
        )


def brief_plan(
    index: SiteIndex,
    taxonomy: Taxonomy,
    request: DayRequest,
    today: date,
    languages: tuple[LanguageCode, ...],
    stored: Mapping[tuple[str, str], DayBrief],
    *,
    rewrite: bool = False,
    limit: int | None = None,
) -> BriefPlan:
    """The briefs to write: newest day first."""
    resolved = request.resolve(today)
    plan = BriefPlan()
    for day in index.days:  # newest first
        if request.wants(day.date, today, resolved):
            day_jobs(day, taxonomy, languages, stored, plan, rewrite=rewrite)
    if limit is not None:
        plan.jobs = plan.jobs[:limit]
    return plan


def brief_site(
    store: AnalysisStore,
    writer: BriefWriter,
    settings: DigestSettings,
    request: DayRequest,
    *,
    rewrite: bool = False,
    limit: int | None = None,
    console: Console | None = None,
    claims: Claims | None = None,
) -> PassSummary:
    """The briefs ``request`` asks for whose day's analyses changed since they were written (all of
    them with ``rewrite``); "today" is the writer's clock in the site's time zone."""
    today = writer.clock().astimezone(settings.zone).date()
    index, taxonomy = site_index(store, settings)
    stored = {brief.key: brief for brief in store.briefs()}
    plan = brief_plan(index, taxonomy, request, today, tuple(settings.languages), stored, rewrite=rewrite, limit=limit)
    summary = run_task(
        store,
        BriefTask(writer, rewrite=rewrite, started=writer.clock()),
        plan.jobs,
        concurrency=settings.llm.concurrency,
        claims=claims or Claims(seconds=lease_seconds(settings.llm)),
        summary=PassSummary(BriefTask.words, notes=plan.notes()),
        console=console,
    )
    copy_whole_days(store, plan.shared)
    return summary


def copy_whole_days(store: AnalysisStore, shared: Sequence[tuple[str, Sequence[str]]]) -> int:
    """Stores each day's whole brief under the platforms that hold all of that day's analysed
    commits (``BriefPlan.shared``), where it is not there yet; how many it stored."""
    copied = 0
    for day, platforms in shared:
        brief = store.brief(day, WHOLE_DAY) if platforms else None
        for platform in platforms if brief is not None else ():
            copy = brief.model_copy(update={"platform": platform})
            if store.brief(day, platform) != copy:
                store.put_brief(copy)
                copied += 1
    return copied
