"""The about page (about/): what the site is, the repositories it follows (linked), what each
tab holds and where the analyses come from — all from the site's configuration, in the page's
language, so a site of any repository speaks of that repository and nothing else.

A site owner's own ``docs/about.md`` (and its ``about.en.md`` variant) takes its place: the
adapter generates no page at a path a hand-written file has. The page is in the navigation,
after the site's sections, as a site owner's pages are.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from markupsafe import Markup

from commit_digest.search.page import SEARCH_PAGE
from commit_digest.site import paths
from commit_digest.site.model.index import SiteRepository
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.escape import html_text
from commit_digest.site.rendering.render import render
from commit_digest.site.views.base import PageSpec, plain

ABOUT = "about.md"


@dataclass(frozen=True)
class FollowedRepository:
    """A repository as the about page names it: its link, its title when it has one of its own,
    and the platforms every commit of it is on."""

    link: Markup
    title: Markup | None
    platforms: Markup | None


@dataclass(frozen=True)
class Tab:
    """A tab of the site's navigation and what it holds."""

    page: str  # its source path, linked from the about page
    name: Markup
    holds: Markup


def about_page(context: SiteContext) -> PageSpec:
    """The about page of the site's configuration (always rendered: it is one small page)."""
    texts = context.texts
    return PageSpec(
        ABOUT,
        plain(texts("about_title")),
        lambda: render(
            "about.html.j2",
            **context.for_page(ABOUT, repositories=_followed(context), tabs=_tabs(context)),
        ),
    )


def _followed(context: SiteContext) -> list[FollowedRepository]:
    followed = []
    for repository in context.index.repositories:
        link = Markup('<a href="https://github.com/%s">%s</a>') % (quote(repository.name, safe="/"), repository.name)
        own_title = repository.title != SiteRepository.named(repository.name).title
        followed.append(
            FollowedRepository(
                link=link,
                title=html_text(repository.title) if own_title else None,
                platforms=_names(context, [p for p in repository.platforms if p in context.taxonomy.platform_ids]),
            )
        )
    return followed


def _names(context: SiteContext, platform_ids: list[str] | tuple[str, ...]) -> Markup | None:
    """Platforms' names in the page's language, listed; None for none."""
    if not platform_ids:
        return None
    separator = context.texts("list_separator")
    return separator.join(context.label_name("platforms", platform_id) for platform_id in platform_ids)


def _tabs(context: SiteContext) -> list[Tab]:
    """The site's own tabs, in the navigation's order."""
    texts = context.texts
    platforms = _names(context, context.taxonomy.platform_ids) or Markup("")
    tabs = [
        Tab(paths.HOME, texts("nav_home"), texts("about_home")),
        Tab(paths.ARCHIVE_INDEX, texts("nav_archive"), texts("about_archive")),
        Tab(paths.WEEKS_INDEX, texts("nav_weeks"), texts("about_weeks")),
        Tab(paths.IMPACT_INDEX, texts("nav_impact"), texts("about_impact")),
        Tab(paths.RELEASES_INDEX, texts("nav_releases"), texts("about_releases")),
        Tab(paths.PLATFORMS_INDEX, texts("nav_platforms"), texts("about_platforms", platforms=platforms)),
        Tab(paths.SUBSYSTEMS_INDEX, texts("nav_subsystems"), texts("about_subsystems")),
    ]
    if context.index.several_repositories:
        tabs.append(Tab(paths.REPOSITORIES_INDEX, texts("nav_repositories"), texts("about_repositories")))
    tabs.append(Tab(SEARCH_PAGE, texts("nav_search"), texts("about_search")))
    tabs.append(Tab(paths.SUBSCRIBE, texts("nav_subscribe"), texts("about_subscribe")))
    return tabs
