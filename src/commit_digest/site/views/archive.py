"""The archive: every month with its days, and the weeks' table."""

from __future__ import annotations

from collections.abc import Iterator

from commit_digest.site import paths
from commit_digest.site.fingerprint import digest
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.describe import commits_description
from commit_digest.site.rendering.render import render
from commit_digest.site.views.base import PageSpec, View, plain


def archive_pages(context: SiteContext) -> Iterator[PageSpec]:
    months = context.index.months
    archive_title = plain(context.texts("archive_title"))
    yield PageSpec(
        paths.ARCHIVE_INDEX,
        archive_title,
        lambda: render(
            "archive_index.html.j2",
            **context.for_page(paths.ARCHIVE_INDEX, months=list(months.items()), week_rows=context.week_rows),
        ),
        describe=lambda: commits_description(
            archive_title, [item for day in context.index.days for item in day.commits], context.texts, titles=False
        ),
    )
    for month, days in months.items():
        uri = paths.month_page(month)
        title = plain(context.texts("month_title", month=month))
        yield PageSpec(
            uri,
            title,
            lambda uri=uri, month=month, days=days: render(
                "month.html.j2", **context.for_page(uri, month=month, days=days)
            ),
            digest("month", month, [(day.iso, [item.fingerprint for item in day.commits]) for day in days]),
            describe=lambda title=title, days=days: commits_description(
                title, [item for day in days for item in day.commits], context.texts
            ),
        )


class ArchiveView(View):
    def pages(self, context: SiteContext) -> Iterator[PageSpec]:
        return archive_pages(context)
