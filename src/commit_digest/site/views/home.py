"""The home page: the newest days, the activity chart, the platform filter."""

from __future__ import annotations

from collections.abc import Iterator

from commit_digest.site import paths
from commit_digest.site.rendering.budget import size
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.render import render
from commit_digest.site.views.base import PageSpec, View, plain

# The home page's content keeps under this many bytes (the theme adds about 20 KB around it).
HOME_BUDGET = 120_000


def home_page(context: SiteContext) -> PageSpec:
    def content() -> str:
        """The newest ``days_on_home`` days, fewer when they would pass the home page's budget:
        a busy week (each commit listed under every platform it touches) drops its oldest days,
        never the newest, which stays whole however large."""
        days = list(context.index.days[: context.options.days_on_home])
        chart = context.chart(paths.HOME, context.activity.home_chart())
        while True:
            html = render(
                "home.html.j2",
                **context.for_page(paths.HOME, days=days, platform_choices=context.taxonomy.platform_ids, chart=chart),
            )
            if len(days) <= 1 or size(html) <= HOME_BUDGET:
                return html
            days.pop()

    return PageSpec(paths.HOME, plain(context.texts("home_title")), content)


class HomeView(View):
    def pages(self, context: SiteContext) -> Iterator[PageSpec]:
        yield home_page(context)
