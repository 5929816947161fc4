"""Releases: their index, a page per release (its notes: upgrade notes, highlights, each
platform's and subsystem's lines) and the commits not yet released."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from commit_digest.site import paths
from commit_digest.site.fingerprint import digest
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.facts import SiteRelease
from commit_digest.site.model.index import Day
from commit_digest.site.model.weeks import PLATFORM_LINES, SUBSYSTEM_LINES, WeekLine, fold_series, label_weeks
from commit_digest.site.rendering.budget import LIST_PAGE_BUDGET, first_within
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.describe import commits_description, listing_description
from commit_digest.site.rendering.impact_view import ENTRY_IMPACT_LINES
from commit_digest.site.rendering.meaning import Meaning
from commit_digest.site.rendering.render import render
from commit_digest.site.views.base import PageSpec, View

RELEASE_OPERATOR_LINES = 60  # commits with operator changes listed on a release page


def release_pages(context: SiteContext) -> Iterator[PageSpec]:
    meaning = context.meaning
    facts = meaning.facts
    releases = facts.releases  # newest first
    unreleased = facts.unreleased
    uri = paths.RELEASES_INDEX
    texts = context.texts
    title = texts("releases_title").unescape()
    yield PageSpec(
        uri,
        title,
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
        describe=lambda: listing_description(title, [(view.tag, len(view.commits)) for view in releases], texts),
    )
    for view in releases:
        release_uri = meaning.release_page(view.release)
        yield PageSpec(
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
            describe=lambda view=view: commits_description(
                texts("release_on", tag=view.tag, date=view.release.tagged_at.date().isoformat()).unescape(),
                view.commits,
                texts,
            ),
        )
    yield PageSpec(
        paths.UNRELEASED,
        context.texts("unreleased_title").unescape(),
        lambda: _release_html(context, meaning, paths.UNRELEASED, None, unreleased),
        digest("unreleased", [item.fingerprint for item in unreleased]),
        describe=lambda: commits_description(texts("unreleased_title").unescape(), unreleased, texts),
    )


def _counts(commits: tuple[SiteCommit, ...]) -> tuple[int, int]:
    return len(commits), sum(1 for item in commits if item.group == "high")


def _release_html(
    context: SiteContext, meaning: Meaning, uri: str, view: SiteRelease | None, commits: tuple[SiteCommit, ...]
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
    context: SiteContext,
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


class ReleasesView(View):
    def pages(self, context: SiteContext) -> Iterator[PageSpec]:
        return release_pages(context)
