"""The pages of what commits mean: operator impact (``impact/``), numbered series (``series/``) and
releases (``releases/``), and the helpers commit pages use to show a commit's own facts.

Page specs like ``pages.py``'s; each page's inputs digest what it shows, so an incremental build
re-renders a release page when a new tag or a new commit changes it, and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from markupsafe import Markup

from commit_digest.meaning.impact.extract import OperatorChange
from commit_digest.meaning.relations import Relation, Series
from commit_digest.site import paths
from commit_digest.site.fingerprint import digest
from commit_digest.site.model.calendar import IsoWeek
from commit_digest.site.model.facts import SiteFacts, SiteRelease
from commit_digest.site.model.index import Day, SiteCommit
from commit_digest.site.model.weeks import PLATFORM_LINES, SUBSYSTEM_LINES, WeekLine, fold_series, label_weeks
from commit_digest.site.rendering.budget import LIST_PAGE_BUDGET, first_within, size
from commit_digest.site.rendering.escape import title_html
from commit_digest.site.rendering.impact_view import (
    COMMIT_IMPACT_BYTES,
    ENTRY_IMPACT_BYTES,
    ENTRY_IMPACT_LINES,
    IMPACT_KINDS,
    ImpactCut,
    cut_changes,
    kind_name,
    kinds_of,
    platforms_of,
)
from commit_digest.site.rendering.render import render

if TYPE_CHECKING:
    from commit_digest.site.views.pages import PageSpec, _Context

RECENT_WEEKS = 8  # weeks of operator changes on the impact page; older ones are on month pages
RELEASE_OPERATOR_LINES = 60  # commits with operator changes listed on a release page
# A listing's operator changes per commit, in the order a page too large gives them up (each
# commit's page lists them all).
_ENTRY_LINES = (ENTRY_IMPACT_LINES, 2, 0)


class Meaning:
    """What templates call to show a commit's facts; every method returns escaped or trusted Markup."""

    def __init__(self, context: _Context) -> None:
        self.context = context
        self.facts: SiteFacts = context.index.facts

    def page_values(self, src_uri: str) -> dict[str, Any]:
        """The helpers that link from the page at ``src_uri``."""
        return {
            "relation_html": lambda relation, dated=True: self.relation_html(src_uri, relation, dated=dated),
        }

    def values(self) -> dict[str, Any]:
        """The helpers every page sees alike."""
        return {
            "facts": self.facts,
            "impact_kind_name": lambda kind: kind_name(kind, self.context.texts),
            "release_page": self.release_page,
            "series_page": lambda series: paths.series_page(series.slug),
            "series_progress": self.series_progress,
            "part_of": _part_of,
            "entry_platforms": self.entry_platforms,
            "impact_cut": self.impact_cut,
            "line_impact": self.line_impact,
            "commit_impact": self.commit_impact,
            "entry_kinds": lambda item: " ".join(kinds_of(self.facts.impact(item).changes)),
            "impact_index": paths.IMPACT_INDEX,
            "impact_month_page": paths.impact_month_page,
            "releases_index": paths.RELEASES_INDEX,
            "unreleased_page": paths.UNRELEASED,
            "series_index": paths.SERIES_INDEX,
            "github_tag_url": lambda release: (
                Markup("https://github.com/%s/releases/tag/%s") % (release.repository, quote(release.tag, safe=""))
            ),
            "github_compare_url": lambda base, release: (
                Markup("https://github.com/%s/compare/%s...%s")
                % (release.repository, quote(base.tag, safe=""), quote(release.tag, safe=""))
            ),
        }

    @cached_property
    def _release_pages(self) -> dict[tuple[str, str], str]:
        keys = (view.release.key for view in self.facts.releases)
        return paths.release_pages(keys, self.context.index.several_repositories)

    def release_page(self, release: Any) -> str:
        """The page of a release the site shows (the releases index and every link use this one map)."""
        return self._release_pages[release.key]

    def impact_cut(self, item: SiteCommit, lines: int = ENTRY_IMPACT_LINES) -> ImpactCut:
        """A listing's operator changes of ``item``: the first few, the rest on the commit's page."""
        return cut_changes(self.facts.impact(item).changes, self._line_size, budget=ENTRY_IMPACT_BYTES, lines=lines)

    def line_impact(self, line: WeekLine, lines: int = ENTRY_IMPACT_LINES) -> tuple[ImpactCut, SiteCommit | None]:
        """A week line's operator changes (of all its commits) cut as a listing's, and the commit
        whose page lists the first change left out (None when none is)."""
        found = [(item, change) for item in line.commits for change in self.facts.impact(item).changes]
        cut = cut_changes([change for _, change in found], self._line_size, budget=ENTRY_IMPACT_BYTES, lines=lines)
        return cut, found[len(cut.shown)][0] if cut.more else None

    def commit_impact(self, item: SiteCommit) -> ImpactCut:
        """A commit page's operator changes: as many as its budget holds, the rest in the diff."""
        return cut_changes(self.facts.impact(item).changes, self._line_size, budget=COMMIT_IMPACT_BYTES)

    @cached_property
    def _line_size(self) -> Callable[[OperatorChange], int]:
        impact_list = self.context.fragments.impact_list
        around = size(impact_list(()))  # the list's own tags, once per list
        return lambda change: size(impact_list((change,))) - around

    def relation_html(self, src_uri: str, relation: Relation, *, dated: bool = True) -> Markup:
        texts = self.context.texts
        other = self.facts.commit(relation.other)
        if other is not None:
            href = paths.href(src_uri, self.context.commit_page(other), self.context.options.directory_urls)
            when = Markup(' <span class="digest-nowrap">%s</span>') % other.day.isoformat() if dated else Markup("")
            return Markup('<a href="%s">%s</a>%s') % (href, title_html(other.title), when)
        if relation.reference is not None:
            repository, number = relation.reference
            label = texts("related_reference", repository=repository, number=number)
            return Markup('<a href="%s" rel="nofollow">%s</a>') % (relation.url, label)
        return texts("none")

    def series_progress(self, series: Series) -> Markup:
        texts = self.context.texts
        if series.total is None:
            return texts("series_progress_open", landed=series.landed)
        progress = texts("series_progress", landed=series.landed, total=series.total)
        if series.missing:
            progress += texts("list_separator") + texts(
                "series_missing", parts=", ".join(str(part) for part in series.missing)
            )
        return progress

    def entry_platforms(self, item: SiteCommit) -> str:
        """The platforms an impact entry is filtered by: its commit's and its changes' own (a
        requirements/rocm.txt bump is ROCm's even when the commit carries no ROCm label)."""
        found = dict.fromkeys(label.id for label in item.platforms)
        found.update(dict.fromkeys(platforms_of(self.facts.impact(item).changes)))
        return " ".join(found)


def _part_of(series: Series, item: SiteCommit) -> int | None:
    key = (item.repository, item.sha)
    return next((part for part, found in series.parts if found == key), None)


def _filters(meaning: Meaning, commits: tuple[SiteCommit, ...]) -> dict[str, list[tuple[str, int]]]:
    """Filter choices with counts: each impact kind, each platform (taxonomy order)."""
    kinds: dict[str, int] = {}
    platforms: dict[str, int] = {}
    for item in commits:
        for kind in kinds_of(meaning.facts.impact(item).changes):
            kinds[kind] = kinds.get(kind, 0) + 1
        for platform in meaning.entry_platforms(item).split():
            platforms[platform] = platforms.get(platform, 0) + 1
    order = meaning.context.taxonomy.platform_ids
    return {
        "kinds": [(kind, kinds[kind]) for kind in IMPACT_KINDS if kind in kinds],
        "platforms": [(platform, platforms[platform]) for platform in order if platform in platforms],
    }


def _impact_entries(commits: tuple[SiteCommit, ...]) -> list[tuple[str, list[SiteCommit]]]:
    grouped: dict[str, list[SiteCommit]] = {}
    for item in commits:
        grouped.setdefault(item.week.id, []).append(item)
    return list(grouped.items())


def impact_pages(context: _Context, meaning: Meaning, page: type[PageSpec]) -> Iterator[PageSpec]:
    commits = meaning.facts.impact_commits  # newest first
    weeks = _impact_entries(commits)
    recent = weeks[:RECENT_WEEKS]
    by_month: dict[str, list[SiteCommit]] = {}
    for item in commits:
        by_month.setdefault(item.month, []).append(item)
    months = [(month, len(items)) for month, items in by_month.items()]
    uri = paths.IMPACT_INDEX

    def index_form(weeks: int, lines: int) -> str:
        shown = recent[:weeks]
        values = {
            "groups": [(IsoWeek.parse(week), items) for week, items in shown],
            "filters": _filters(meaning, tuple(item for _, items in shown for item in items)),
            "months": months,
            "feed": next((feed for feed in context.feeds if feed.kind == "impact"), None),
            "impact_lines": lines,
        }
        return render("impact.html.j2", **context.for_page(uri, **values))

    def index_content() -> str:
        """The latest weeks, fewer when they would pass the budget (the months' pages list them
        all), then fewer changes per commit; the newest week always stays."""
        forms = [(weeks, ENTRY_IMPACT_LINES) for weeks in range(len(recent), 0, -1)]
        forms += [(1, lines) for lines in _ENTRY_LINES[1:]]
        return first_within(LIST_PAGE_BUDGET, (lambda form=form: index_form(*form) for form in forms))

    yield page(
        uri,
        context.texts("impact_title").unescape(),
        index_content,
        digest("impact", [(week, [item.fingerprint for item in items]) for week, items in recent], months),
    )
    for month, items in by_month.items():
        month_uri = paths.impact_month_page(month)
        entries = tuple(items)

        def month_content(month_uri: str = month_uri, month: str = month, entries: Any = entries) -> str:
            values = {
                "month": month,
                "groups": [(IsoWeek.parse(week), found) for week, found in _impact_entries(entries)],
                "filters": _filters(meaning, entries),
                "months": months,
            }
            # Every commit of the month stays: a busy month shows fewer changes of each.
            forms = (
                lambda lines=lines: render(
                    "impact_month.html.j2", **context.for_page(month_uri, impact_lines=lines, **values)
                )
                for lines in _ENTRY_LINES
            )
            return first_within(LIST_PAGE_BUDGET, forms)

        yield page(
            month_uri,
            context.texts("impact_month_title", month=month).unescape(),
            month_content,
            digest("impact-month", month, [item.fingerprint for item in entries], months),
        )


def series_pages(context: _Context, meaning: Meaning, page: type[PageSpec]) -> Iterator[PageSpec]:
    all_series = meaning.facts.relations.series
    facts = meaning.facts

    def rows() -> list[tuple[Series, SiteCommit | None]]:
        return [(series, facts.commit(series.parts[-1][1]) if series.parts else None) for series in all_series]

    yield page(
        paths.SERIES_INDEX,
        context.texts("series_title").unescape(),
        lambda: render("series_index.html.j2", **context.for_page(paths.SERIES_INDEX, rows=rows())),
        digest("series-index", [(series.slug, series.name, series.total, series.parts) for series in all_series]),
    )
    for series in all_series:
        uri = paths.series_page(series.slug)
        parts = _series_rows(series, facts)
        yield page(
            uri,
            series.name,
            lambda uri=uri, series=series, parts=parts: render(
                "series.html.j2", **context.for_page(uri, series=series, parts=parts)
            ),
            digest(
                "series",
                series.slug,
                series.name,
                series.total,
                [(part, item.fingerprint if item else None) for part, item in parts],
            ),
        )


def _series_rows(series: Series, facts: SiteFacts) -> list[tuple[int, SiteCommit | None]]:
    """Each part in order, a missing part as (number, None) where it belongs."""
    landed = [(part, facts.commit(key)) for part, key in series.parts]
    missing = [(part, None) for part in series.missing]
    return sorted([*landed, *missing], key=lambda row: row[0])


def release_pages(context: _Context, meaning: Meaning, page: type[PageSpec]) -> Iterator[PageSpec]:
    facts = meaning.facts
    releases = facts.releases  # newest first
    unreleased = facts.unreleased
    uri = paths.RELEASES_INDEX
    yield page(
        uri,
        context.texts("releases_title").unescape(),
        lambda: render(
            "releases_index.html.j2", **context.for_page(uri, releases=releases, unreleased=len(unreleased))
        ),
        digest(
            "releases",
            [
                (view.repository, view.tag, view.release.tagged_at.isoformat(), _counts(view.commits))
                for view in releases
            ],
            len(unreleased),
        ),
    )
    for view in releases:
        release_uri = meaning.release_page(view.release)
        yield page(
            release_uri,
            context.texts("release_title", tag=view.tag).unescape(),
            lambda release_uri=release_uri, view=view: _release_html(context, meaning, release_uri, view, view.commits),
            digest(
                "release",
                view.repository,
                view.tag,
                view.release.tagged_at.isoformat(),
                view.previous.tag if view.previous else None,
                [item.fingerprint for item in view.commits],
            ),
        )
    yield page(
        paths.UNRELEASED,
        context.texts("unreleased_title").unescape(),
        lambda: _release_html(context, meaning, paths.UNRELEASED, None, unreleased),
        digest("unreleased", [item.fingerprint for item in unreleased]),
    )


def _counts(commits: tuple[SiteCommit, ...]) -> tuple[int, int]:
    return len(commits), sum(1 for item in commits if item.group == "high")


def _release_html(
    context: _Context, meaning: Meaning, uri: str, view: SiteRelease | None, commits: tuple[SiteCommit, ...]
) -> str:
    """A release's page (or the unreleased commits') in its fullest form that keeps within the
    budget: a project's first release carries its whole history, thousands of commits."""
    stats = Day(date=commits[-1].day, commits=commits).stats if commits else None
    operators = tuple(item for item in commits if meaning.facts.impact(item).changes)
    highlights = tuple(fold_series(item for item in commits if item.group == "high"))

    def form(shape: _ReleaseForm) -> str:
        notes = _notes(context, commits, shape, stats=stats, operators=operators, highlights=highlights)
        return render("release.html.j2", **context.for_page(uri, view=view, notes=notes, impact_lines=shape[1]))

    return first_within(LIST_PAGE_BUDGET, (lambda shape=shape: form(shape) for shape in _RELEASE_FORMS))


# A release page's forms, fullest first: (commits listed under the upgrade notes, operator changes
# shown of each, lines per platform, lines per subsystem). Every list cut says how many it leaves
# out and links where they are (a commit's page, the impact page, a label's page); the highlights stay.
_ReleaseForm = tuple[int, int, int, int]
_RELEASE_FORMS: tuple[_ReleaseForm, ...] = (
    (RELEASE_OPERATOR_LINES, ENTRY_IMPACT_LINES, PLATFORM_LINES, SUBSYSTEM_LINES),
    (30, 2, 5, 3),
    (15, 0, 3, 2),
    (10, 0, 1, 1),
)


def _notes(
    context: _Context,
    commits: tuple[SiteCommit, ...],
    shape: _ReleaseForm,
    *,
    stats: Any,
    operators: tuple[SiteCommit, ...],
    highlights: tuple[WeekLine, ...],
) -> dict[str, Any]:
    """A release's notes: counts, upgrade notes (operator changes), highlights, then each platform's
    and subsystem's notable lines, importance first."""
    listed, _, platform_lines, subsystem_lines = shape
    taxonomy = context.taxonomy
    return {
        "stats": stats,
        "total": len(commits),
        "operators": operators[:listed],
        "more_operators": max(0, len(operators) - listed),
        "highlights": highlights,
        "platforms": label_weeks(
            commits, (), "platforms", taxonomy.platform_ids, limit=platform_lines, other_kind="subsystems"
        ),
        "subsystems": label_weeks(
            commits, (), "subsystems", taxonomy.subsystem_ids, limit=subsystem_lines, other_kind="platforms"
        ),
    }
