"""A week of the site as its week page shows it: the notable changes per platform and subsystem
(high importance first, a numbered series folded into one line), the counts against the week
before, the deprecations and removals, the new models and what operators must know.

Pure: the index's days in, plain data out. Built from the analyses alone; a narrative an LLM
wrote for a platform's week (stored like analyses) is attached when the store has one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from commit_digest.meaning.relations.series import SeriesPart, series_part
from commit_digest.models import ChangeType
from commit_digest.site.model.calendar import IsoWeek
from commit_digest.site.model.commit import GROUP_ORDER, SiteCommit
from commit_digest.site.model.index import Day, DayStats, SiteIndex, SiteNarrative

if TYPE_CHECKING:
    from commit_digest.site.model.facts import SiteFacts

# Lines per label on a week page: the rest is a link to the label's own pages.
PLATFORM_LINES = 8
SUBSYSTEM_LINES = 5
HIGHLIGHT_LINES = 15
SECTION_LINES = 12
RELATED_LABELS = 3  # "mostly MoE (12), attention (8), quantization (5)"

_DEPRECATION = re.compile(r"deprecat|弃用|废弃", re.I)
_REMOVAL = re.compile(r"\b(remov(e|es|ed|ing)|drop(s|ped)?\s+(support|the)|delete[sd]?)\b|移除|删除", re.I)
_MODEL_TAG = re.compile(r"^(\s*\[[^\]]*\])*\s*\[(new\s*)?models?\]", re.I)
_ADDS = re.compile(r"\b(add(s|ed|ing)?|support(s|ed|ing)?|new|introduc(e|es|ed|ing)|initial)\b|新增|支持", re.I)
_NEW_MODEL = re.compile(r"\b(add(s|ed)?|support(s|ed)?|new|introduc(e|es|ed))\b.{0,60}\bmodel\b|新增.{0,20}模型", re.I)
_OPERATOR_TYPES = frozenset({ChangeType.CONFIG.value, ChangeType.DEPENDENCY.value})
MODELS_SUBSYSTEM = "models"


@dataclass(frozen=True)
class WeekLine:
    """One line of a week list: a commit, or the parts of a numbered series in part order."""

    commits: tuple[SiteCommit, ...]
    series: SeriesPart | None = None

    @property
    def size(self) -> int:
        return len(self.commits)

    @cached_property
    def lead(self) -> SiteCommit:
        """The commit the line is named after and links first: its most important part."""
        return min(self.commits, key=lambda item: GROUP_ORDER.index(item.group))

    @cached_property
    def group(self) -> str:
        return self.lead.group

    @cached_property
    def platform_ids(self) -> tuple[str, ...]:
        """The platforms of the line's commits, each once (what the reader's platform filter matches)."""
        return tuple(dict.fromkeys(label.id for item in self.commits for label in item.platforms))

    @property
    def parts(self) -> tuple[tuple[str, SiteCommit], ...]:
        """Each part's marker ("2/3") and commit."""
        found = []
        for item in self.commits:
            part = series_part(item.title)
            total = part.total if part else None
            marker = f"{part.part}/{total or 'n'}" if part and part.numbered else str(part.part if part else "?")
            found.append((marker, item))
        return tuple(found)


@dataclass(frozen=True)
class LabelWeek:
    """A platform's or subsystem's week: its count against the week before and its notable lines."""

    kind: str
    label_id: str
    count: int
    previous: int
    high: int
    lines: tuple[WeekLine, ...]  # shown
    more: int  # commits of the week not shown in ``lines``
    related: tuple[tuple[str, int], ...]  # the other kind's labels with most commits this week
    related_kind: str | None = None
    narrative: SiteNarrative | None = None
    # Per platform: the label's commits this week, and those of them its lines leave out. What
    # the week page shows once the reader picks a platform (the page's script swaps the counts).
    by_platform: tuple[tuple[str, int], ...] = ()
    more_by_platform: tuple[tuple[str, int], ...] = ()

    @property
    def change(self) -> int:
        return self.count - self.previous


@dataclass(frozen=True)
class Week:
    week: IsoWeek
    days: tuple[Day, ...]  # the week's days with commits, oldest first
    previous_total: int
    newer: IsoWeek | None  # the neighbouring weeks that have pages
    older: IsoWeek | None
    platforms: tuple[LabelWeek, ...]
    subsystems: tuple[LabelWeek, ...]
    repositories: tuple[LabelWeek, ...] = ()
    facts: SiteFacts | None = None  # the operator changes of the week's commits

    @cached_property
    def commits(self) -> tuple[SiteCommit, ...]:
        """Newest first."""
        return tuple(item for day in reversed(self.days) for item in day.newest_first)

    @cached_property
    def stats(self) -> DayStats:
        return Day(date=self.week.monday, commits=self.commits).stats

    @property
    def change(self) -> int:
        return self.stats.total - self.previous_total

    def platform_stats(self, label_id: str) -> DayStats:
        """The week's counts of one platform's commits (its header line once a reader picks it)."""
        mine = tuple(item for item in self.commits if any(label.id == label_id for label in item.platforms))
        return Day(date=self.week.monday, commits=mine).stats

    @cached_property
    def highlights(self) -> tuple[WeekLine, ...]:
        return tuple(fold_series(item for item in self.commits if item.group == "high"))

    @cached_property
    def deprecations(self) -> tuple[WeekLine, ...]:
        return tuple(fold_series(item for item in self.commits if is_deprecation(item)))

    @cached_property
    def new_models(self) -> tuple[WeekLine, ...]:
        return tuple(fold_series(item for item in self.commits if is_new_model(item)))

    @cached_property
    def operator_notes(self) -> tuple[WeekLine, ...]:
        """Commits whose diff changes what operators configure, then the analyses' compatibility warnings."""
        facts = self.facts
        return tuple(
            fold_series(
                item
                for item in self.commits
                if (facts is not None and facts.impact(item).changes) or is_operator_note(item)
            )
        )


def is_deprecation(item: SiteCommit) -> bool:
    """A deprecation, or the removal of something users had (not a line of dead code)."""
    title = item.title
    if item.change_type == ChangeType.DEPRECATION.value or _DEPRECATION.search(title):
        return True
    return item.group in ("high", "medium") and _REMOVAL.search(title) is not None


def is_new_model(item: SiteCommit) -> bool:
    """Support for a model added: the models subsystem, not a fix, and a title tagged [Model]
    that adds or supports something, or a title saying it adds or supports a model."""
    if not any(label.id == MODELS_SUBSYSTEM for label in item.subsystems):
        return False
    if item.change_type not in (None, ChangeType.FEATURE.value, ChangeType.OTHER.value):
        return False
    title = item.title
    if _MODEL_TAG.match(title) is not None:
        return _ADDS.search(title) is not None  # "[Model] Add Foo", not "[Model] Avoid a copy in Foo"
    return _NEW_MODEL.search(title) is not None


def is_operator_note(item: SiteCommit) -> bool:
    """What people who run the project must act on: a configuration or dependency change of some
    importance, or a high-importance change the analysis says affects compatibility."""
    if item.change_type in _OPERATOR_TYPES and item.group in ("high", "medium"):
        return True
    analysis = item.analysis
    return item.group == "high" and analysis is not None and bool(analysis.insights.compatibility)


def fold_series(commits: Iterable[SiteCommit]) -> list[WeekLine]:
    """Lines in importance order, newest first within an importance; the parts of a numbered
    series (same author and leading tags and total, or the same title) become one line."""
    lines: dict[object, list[SiteCommit]] = {}
    parts: dict[object, SeriesPart] = {}
    for item in commits:
        part = series_part(item.title)
        if part is None:
            lines[item.sha] = [item]
            continue
        # Parts of one series often differ after their tags: the same author numbering commits
        # under the same tags in one week is one series; otherwise the titles must match.
        key: object = (
            (item.repository, item.author_name, part.tags, part.total)
            if part.numbered and part.tags
            else (item.repository, part.key)
        )
        lines.setdefault(key, []).append(item)
        parts.setdefault(key, part)
    folded = []
    for key, items in lines.items():
        part = parts.get(key)
        if part is not None and len(items) > 1:
            ordered = sorted(items, key=lambda item: (_part_number(item), item.local_time))
            folded.append(WeekLine(tuple(ordered), part))
        else:
            folded.extend(WeekLine((item,)) for item in items)
    # Stable: lines keep newest-first order within an importance.
    return sorted(folded, key=lambda line: GROUP_ORDER.index(line.group))


def _part_number(item: SiteCommit) -> int:
    part = series_part(item.title)
    return part.part if part else 0


def _count(lines: Sequence[WeekLine]) -> int:
    return sum(len(line.commits) for line in lines)


def platform_counts(commits: Iterable[SiteCommit]) -> tuple[tuple[str, int], ...]:
    """How many of ``commits`` carry each platform, in first-seen order."""
    counts: dict[str, int] = {}
    for item in commits:
        for label in item.platforms:
            counts[label.id] = counts.get(label.id, 0) + 1
    return tuple(counts.items())


def line_platform_counts(lines: Iterable[WeekLine]) -> tuple[tuple[str, int], ...]:
    """``platform_counts`` of the commits of ``lines``."""
    return platform_counts(item for line in lines for item in line.commits)


def notable_lines(commits: Sequence[SiteCommit], limit: int) -> tuple[tuple[WeekLine, ...], int]:
    """At most ``limit`` lines of high and medium importance (low ones when a label has nothing
    else), and how many of ``commits`` they leave out."""
    lines = fold_series(commits)
    notable = [line for line in lines if line.group in ("high", "medium")] or lines
    shown = tuple(notable[:limit])
    return shown, len(commits) - _count(shown)


def weeks_of(index: SiteIndex) -> list[tuple[IsoWeek, tuple[Day, ...]]]:
    """The weeks that have commits, newest first, each with its days oldest first."""
    grouped: dict[IsoWeek, list[Day]] = {}
    for day in index.days:  # newest first
        grouped.setdefault(day.week, []).append(day)
    return [(week, tuple(reversed(days))) for week, days in grouped.items()]


def _by_label(commits: Iterable[SiteCommit], kind: str) -> dict[str, list[SiteCommit]]:
    found: dict[str, list[SiteCommit]] = {}
    for item in commits:
        for label in item.labels(kind):
            found.setdefault(label.id, []).append(item)
    return found


def _related(commits: Sequence[SiteCommit], kind: str) -> tuple[tuple[str, int], ...]:
    counts = {label_id: len(items) for label_id, items in _by_label(commits, kind).items()}
    return tuple(sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))[:RELATED_LABELS])


def label_weeks(
    commits: Sequence[SiteCommit],
    previous: Sequence[SiteCommit],
    kind: str,
    order: Sequence[str],
    *,
    limit: int,
    other_kind: str | None,
    narratives: Mapping[str, SiteNarrative] | None = None,
) -> tuple[LabelWeek, ...]:
    """Every label of ``kind`` with commits this week, in ``order`` (then the others by name)."""
    current = _by_label(commits, kind)
    before = {label_id: len(items) for label_id, items in _by_label(previous, kind).items()}
    position = {label_id: rank for rank, label_id in enumerate(order)}
    found = []
    for label_id in sorted(current, key=lambda label_id: (position.get(label_id, len(order)), label_id)):
        items = current[label_id]
        lines, more = notable_lines(items, limit)
        every = platform_counts(items)
        shown = dict(line_platform_counts(lines))
        found.append(
            LabelWeek(
                kind=kind,
                label_id=label_id,
                count=len(items),
                previous=before.get(label_id, 0),
                high=sum(1 for item in items if item.group == "high"),
                lines=lines,
                more=more,
                related=_related(items, other_kind) if other_kind else (),
                related_kind=other_kind,
                narrative=(narratives or {}).get(label_id),
                by_platform=every,
                more_by_platform=tuple((other, count - shown.get(other, 0)) for other, count in every),
            )
        )
    return tuple(found)


def previous_days(weeks: Sequence[tuple[IsoWeek, tuple[Day, ...]]], position: int) -> tuple[Day, ...]:
    """The days of the week before ``weeks[position]`` (empty when it had no commits)."""
    if position + 1 < len(weeks) and weeks[position + 1][0] == weeks[position][0].previous:
        return weeks[position + 1][1]
    return ()


def week_summary(
    index: SiteIndex,
    weeks: Sequence[tuple[IsoWeek, tuple[Day, ...]]],
    position: int,
    *,
    platform_order: Sequence[str],
    subsystem_order: Sequence[str],
) -> Week:
    """The week at ``position`` of ``weeks`` (``weeks_of(index)``, newest first)."""
    week, days = weeks[position]
    commits = tuple(item for day in reversed(days) for item in day.newest_first)
    previous = tuple(item for day in previous_days(weeks, position) for item in day.commits)
    narratives = {platform: note for (week_id, platform), note in index.narratives.items() if week_id == week.id}
    repositories: tuple[LabelWeek, ...] = ()
    if index.several_repositories:
        order = [item.name for item in index.repositories]
        repositories = label_weeks(
            commits, previous, "repositories", order, limit=SUBSYSTEM_LINES, other_kind="platforms"
        )
    return Week(
        week=week,
        days=days,
        previous_total=len(previous),
        newer=weeks[position - 1][0] if position > 0 else None,
        older=weeks[position + 1][0] if position + 1 < len(weeks) else None,
        platforms=label_weeks(
            commits,
            previous,
            "platforms",
            platform_order,
            limit=PLATFORM_LINES,
            other_kind="subsystems",
            narratives=narratives,
        ),
        subsystems=label_weeks(
            commits, previous, "subsystems", subsystem_order, limit=SUBSYSTEM_LINES, other_kind="platforms"
        ),
        repositories=repositories,
        facts=index.facts,
    )
