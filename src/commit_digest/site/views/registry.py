"""The site's views, in the order their pages are made, and the one object a site generator
drives: ``SiteViews`` — every page and every file of one build (one language).

A new view is a new module and one line in ``VIEWS``. The MkDocs plugin (or any other adapter)
and its incremental build iterate ``SiteViews.pages()``: each spec carries the digest of its
own inputs, so a page whose inputs did not change is taken from the previous build.
"""

from __future__ import annotations

from collections.abc import Iterator

from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.site.model.index import SiteIndex
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.feed_list import Feed
from commit_digest.site.views.archive import ArchiveView
from commit_digest.site.views.base import PageSpec, SiteFile, View
from commit_digest.site.views.commits import CommitsView
from commit_digest.site.views.days import DaysView
from commit_digest.site.views.feeds import FeedsView
from commit_digest.site.views.home import HomeView
from commit_digest.site.views.impact import ImpactView
from commit_digest.site.views.labels import LabelsView
from commit_digest.site.views.releases import ReleasesView
from commit_digest.site.views.series import SeriesView
from commit_digest.site.views.weeks import WeeksView

VIEWS: tuple[View, ...] = (
    HomeView(),
    DaysView(),
    CommitsView(),
    ArchiveView(),
    WeeksView(),
    ImpactView(),
    ReleasesView(),
    SeriesView(),
    FeedsView(),
    LabelsView(),
)


class SiteViews:
    """Every view over one site index, sharing one rendering context (its names, fragments and
    rendered analyses are made once per build)."""

    def __init__(self, index: SiteIndex, taxonomy: Taxonomy, options: SiteOptions) -> None:
        self.context = SiteContext(index, taxonomy, options)

    def pages(self) -> Iterator[PageSpec]:
        """Every generated page; callers skip the paths a site owner wrote by hand."""
        for view in VIEWS:
            yield from view.pages(self.context)

    def files(self) -> Iterator[SiteFile]:
        """Every file written beside the pages (the feeds), made anew at each build."""
        for view in VIEWS:
            yield from view.files(self.context)

    @property
    def feeds(self) -> list[Feed]:
        """The site's feeds: which page announces which."""
        return self.context.feeds


def generate_pages(index: SiteIndex, taxonomy: Taxonomy, options: SiteOptions) -> Iterator[PageSpec]:
    """Every generated page of a site index (tests and scripts: one call, no plugin)."""
    return SiteViews(index, taxonomy, options).pages()
