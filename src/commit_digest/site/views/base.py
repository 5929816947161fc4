"""What every view shares: the page spec it returns, and the shape of a view.

A view turns the site model (through ``rendering.context.SiteContext``) into pages — each a
``PageSpec`` with the digest of its own inputs, so the incremental build reuses a page whose
inputs did not change — and into files written beside them (feeds). Views import the model and
the rendering helpers, never each other; ``views.registry`` lists them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from markupsafe import Markup

from commit_digest.site.rendering.context import SiteContext

_HEADING = re.compile(r'<h([1-3]) id="([^"]+)">(.*?)<a class="headerlink"', re.S)
_LINK_IN_HEADING = re.compile(r"</?a\b[^>]*>")


@dataclass(frozen=True)
class Heading:
    level: int
    id: str
    title: str  # HTML (escaped text) as the page shows it


@dataclass(frozen=True)
class RenderedPage:
    html: str
    headings: tuple[Heading, ...]


@dataclass(frozen=True)
class PageSpec:
    src_uri: str
    title: str  # plain text (untrusted for commit pages): whoever puts it in HTML escapes it
    _render: Callable[[], str]
    # A digest of everything this page shows that is not shared by every page (shared inputs —
    # code, theme, configuration, taxonomy — are the build's). Equal inputs, equal page: an
    # incremental build reuses the previous output. "" for pages always rendered (nav pages).
    inputs: str = ""
    # Pages of one group are best rendered together (a day page and its commits' pages share
    # their commits' rendered analyses); "" for pages of no group.
    group: str = ""
    # What the page says of itself to search engines and link previews (its meta description,
    # plain text: ``rendering.describe``), asked only of a page that is rendered; None: the
    # site's description.
    describe: Callable[[], str] | None = None
    article: bool = False  # a page about one thing at one time (a commit): og:type "article"

    def description(self) -> str:
        """The page's description, "" for the site's."""
        return self.describe() if self.describe is not None else ""

    def render(self) -> RenderedPage:
        """The page's content HTML and its headings (for the table of contents)."""
        html = self._render()
        headings = tuple(
            Heading(int(level), anchor, _LINK_IN_HEADING.sub("", title).strip())
            for level, anchor, title in _HEADING.findall(html)
        )
        return RenderedPage(html, headings)


@dataclass(frozen=True)
class SiteFile:
    """A file a view writes beside the pages, anew at every build (a feed)."""

    path: str  # under the site's root
    content: bytes


class View:
    """One kind of output made from the site model: its pages and its other files.

    A view makes nothing it is not asked for: ``pages`` yields specs that render when asked,
    ``files`` is called once, at the end of a build."""

    def pages(self, context: SiteContext) -> Iterator[PageSpec]:
        return iter(())

    def files(self, context: SiteContext) -> Iterator[SiteFile]:
        return iter(())


def plain(text: Markup) -> str:
    """A title in the site's words as plain text (a spec's title is escaped where it is shown)."""
    return text.unescape()
