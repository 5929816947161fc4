"""Numbered series of commits ("[2/3] …"): their index and a page per series, missing parts marked."""

from __future__ import annotations

from collections.abc import Iterator

from commit_digest.meaning.relations.series import Series
from commit_digest.site import paths
from commit_digest.site.fingerprint import digest
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.facts import SiteFacts
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.describe import commits_description, listing_description
from commit_digest.site.rendering.render import render
from commit_digest.site.views.base import PageSpec, View


def series_pages(context: SiteContext) -> Iterator[PageSpec]:
    meaning = context.meaning
    all_series = meaning.facts.relations.series
    facts = meaning.facts

    def rows() -> list[tuple[Series, SiteCommit | None]]:
        return [(series, facts.commit(series.parts[-1][1]) if series.parts else None) for series in all_series]

    yield PageSpec(
        paths.SERIES_INDEX,
        context.texts("series_title").unescape(),
        lambda: render("series_index.html.j2", **context.for_page(paths.SERIES_INDEX, rows=rows())),
        digest("series-index", [(series.slug, series.name, series.total, series.parts) for series in all_series]),
        describe=lambda: listing_description(
            context.texts("series_title").unescape(),
            [(series.name, series.landed) for series in all_series],
            context.texts,
        ),
    )
    for series in all_series:
        uri = paths.series_page(series.slug)
        parts = _series_rows(series, facts)
        yield PageSpec(
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
            describe=lambda series=series, parts=parts: commits_description(
                series.name, [item for _, item in parts if item is not None], context.texts
            ),
        )


def _series_rows(series: Series, facts: SiteFacts) -> list[tuple[int, SiteCommit | None]]:
    """Each part in order, a missing part as (number, None) where it belongs."""
    landed = [(part, facts.commit(key)) for part, key in series.parts]
    missing = [(part, None) for part in series.missing]
    return sorted([*landed, *missing], key=lambda row: row[0])


class SeriesView(View):
    def pages(self, context: SiteContext) -> Iterator[PageSpec]:
        return series_pages(context)
