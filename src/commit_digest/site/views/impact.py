"""Operator impact: the latest weeks' commits that change how vLLM is run (environment variables,
flags and engine arguments, dependencies, deprecations), and a page per month of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from commit_digest.site import paths
from commit_digest.site.fingerprint import digest
from commit_digest.site.model.calendar import IsoWeek
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.rendering.budget import LIST_PAGE_BUDGET, first_within
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.describe import commits_description
from commit_digest.site.rendering.impact_view import ENTRY_IMPACT_LINES, IMPACT_KINDS, kinds_of
from commit_digest.site.rendering.meaning import Meaning
from commit_digest.site.rendering.render import render
from commit_digest.site.views.base import PageSpec, View

RECENT_WEEKS = 8  # weeks of operator changes on the impact page; older ones are on month pages
# A listing's operator changes per commit, in the order a page too large gives them up (each
# commit's page lists them all).
_ENTRY_LINES = (ENTRY_IMPACT_LINES, 2, 0)


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


def impact_pages(context: SiteContext) -> Iterator[PageSpec]:
    meaning = context.meaning
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

    title = context.texts("impact_title").unescape()
    yield PageSpec(
        uri,
        title,
        index_content,
        digest("impact", [(week, [item.fingerprint for item in items]) for week, items in recent], months),
        describe=lambda: commits_description(title, [item for _, items in recent for item in items], context.texts),
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

        month_title = context.texts("impact_month_title", month=month).unescape()
        yield PageSpec(
            month_uri,
            month_title,
            month_content,
            digest("impact-month", month, [item.fingerprint for item in entries], months),
            describe=lambda month_title=month_title, entries=entries: commits_description(
                month_title, entries, context.texts
            ),
        )


class ImpactView(View):
    def pages(self, context: SiteContext) -> Iterator[PageSpec]:
        return impact_pages(context)
