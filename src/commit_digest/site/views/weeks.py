"""The weeks: their table, and a page per ISO week (what changed per platform and subsystem,
the highlights, the narratives)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from commit_digest.site import paths
from commit_digest.site.fingerprint import digest
from commit_digest.site.model.weeks import line_platform_counts, previous_days, week_summary
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.describe import commits_description
from commit_digest.site.rendering.render import render
from commit_digest.site.views.base import PageSpec, View, plain


def by_platform(counts: Iterable[tuple[str, int]]) -> str:
    """Counts per platform as a count's ``data-by`` attribute ("rocm:3 cuda:1"): the page's script
    shows the reader's platform's, 0 for a platform not listed."""
    return " ".join(f"{label_id}:{count}" for label_id, count in counts)


def week_pages(context: SiteContext) -> Iterator[PageSpec]:
    weeks = context.weeks
    yield PageSpec(
        paths.WEEKS_INDEX,
        plain(context.texts("weeks_title")),
        lambda: render(
            "weeks_index.html.j2",
            **context.for_page(paths.WEEKS_INDEX, rows=context.week_rows, zone=context.options.timezone),
        ),
    )
    for position, (week, days) in enumerate(weeks):
        uri = paths.week_page(week)

        def content(uri: str = uri, position: int = position) -> str:
            summary = week_summary(
                context.index,
                weeks,
                position,
                platform_order=context.taxonomy.platform_ids,
                subsystem_order=context.taxonomy.subsystem_ids,
            )
            values = {
                "week": summary,
                "platform_choices": context.taxonomy.platform_ids,
                "platform_filter": True,  # the lines and counts carry what the reader's platform needs
                "by_platform": by_platform,
                "line_platform_counts": line_platform_counts,
            }
            return render("week.html.j2", **context.for_page(uri, **values))

        narratives = sorted(
            (platform, note.fingerprint)
            for (week_id, platform), note in context.index.narratives.items()
            if week_id == week.id
        )
        inputs = digest(
            "week",
            week.id,
            [item.fingerprint for day in days for item in day.commits],
            [item.fingerprint for day in previous_days(weeks, position) for item in day.commits],
            narratives,
            weeks[position - 1][0].id if position > 0 else None,
            weeks[position + 1][0].id if position + 1 < len(weeks) else None,
        )
        title = plain(context.texts("week_title", week=week.id))
        yield PageSpec(
            uri,
            title,
            content,
            inputs,
            describe=lambda title=title, days=days: commits_description(
                title, [item for day in days for item in day.commits], context.texts
            ),
        )


class WeeksView(View):
    def pages(self, context: SiteContext) -> Iterator[PageSpec]:
        return week_pages(context)
