"""The theme's frame around generated pages, rendered by MkDocs once per kind of page.

A generated page (a day, a commit, a label's month…) is never in the navigation, so the theme
draws the same header, tabs, navigation and footer around each: they differ only in the links'
relative prefixes (the page's depth) and in the page's own title, address, description, head
tags (``rendering.head``), table of contents and content. ``ThemeFrames`` renders the theme's
template once per (depth, section, has a table of contents, has its own <h1>) with markers in
those places, runs the other plugins' page events on it, and hands back a ``Frame`` that each
page fills with a string join.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import jinja2
from mkdocs.commands.build import get_context
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc
from mkdocs.utils import get_relative_url

from commit_digest.site.build.frame import Frame, FrameError, FrameMarkers, Slot
from commit_digest.site.rendering.head import PageHead
from commit_digest.site.views.base import Heading

logger = logging.getLogger("mkdocs.plugins.commit_digest.frames")

PAGE_TEMPLATE = "main.html"
TOC_TEMPLATE = "partials/toc.html"
NO_HEAD = PageHead(description="", tags="")


@dataclass(frozen=True)
class FrameKey:
    """What makes two generated pages' frames the same text."""

    has_toc: bool
    has_h1: bool
    base_url: str  # the relative prefix of every root-level link (depends on depth)
    section: str  # the first path segment: links into it are shorter from inside it
    inside: tuple[str, ...]  # relative links to listed pages below that section


class ThemeFrames:
    def __init__(
        self,
        config: MkDocsConfig,
        env: jinja2.Environment,
        nav: Navigation,
        files: Files,
        *,
        template: str = PAGE_TEMPLATE,  # the theme's template of a page, and of its table of contents
        toc_template: str = TOC_TEMPLATE,
    ) -> None:
        self._config = config
        self._env = env
        self._nav = nav
        self._doc_files = files.documentation_pages()
        self._markers = FrameMarkers.new()
        self._frames: dict[FrameKey, tuple[Frame, dict[str, Any]] | None] = {}
        self._targets = [page.url for page in nav.pages]
        self._template = template
        self._toc = env.get_template(toc_template)
        self.rendering = False  # true while the other plugins' page events see a frame

    def key(self, url: str, headings: Sequence[Heading], content: str) -> FrameKey:
        section = url.split("/", 1)[0] if "/" in url else ""
        inside = tuple(
            get_relative_url(target, url) for target in self._targets if section and target.startswith(section + "/")
        )
        return FrameKey(
            has_toc=bool(headings),
            has_h1="<h1" in content,
            base_url=get_relative_url(".", url),
            section=section,
            inside=inside,
        )

    def page(
        self,
        src_uri: str,
        url: str,
        title_html: str,
        headings: Sequence[Heading],
        content: str,
        head: PageHead = NO_HEAD,
    ) -> str:
        """The whole HTML of a generated page at ``url`` (its title already escaped)."""
        key = self.key(url, headings, content)
        if key not in self._frames:
            self._frames[key] = self._frame(src_uri, key)
        found = self._frames[key]
        if found is None:  # the theme cannot be framed: the whole template, as MkDocs would
            return self.whole_page(src_uri, title_html, headings, content, head)
        frame, context = found
        toc = get_toc(toc_tokens(headings))
        values = {
            Slot.TITLE: title_html,
            Slot.CANONICAL: _canonical(self._config, url),
            Slot.URL: url,
            Slot.TOC: self._toc.render({**context, "page": _TocPage(toc)}) if headings else "",
            Slot.SKIP: headings[0].id if headings else "",
            Slot.CONTENT: content,
            Slot.DESCRIPTION: head.description,
            Slot.HEAD: head.tags,
        }
        return frame.fill(values)

    def whole_page(
        self, src_uri: str, title_html: str, headings: Sequence[Heading], content: str, head: PageHead = NO_HEAD
    ) -> str:
        """The page rendered by the theme's whole template, as MkDocs renders a page: the fallback
        for a theme whose page cannot be framed, and what a framed page must equal but for the
        whitespace and escapes its frame leaves out (``compact_page``)."""
        page = self._page(src_uri, title_html, content, headings, head.description)
        self.rendering = True
        try:
            rendered, _ = self._render_page(page)
        finally:
            self.rendering = False
        return rendered.replace("</head>", head.tags + "</head>", 1) if head.tags else rendered

    def _page(self, src_uri: str, title_html: str, content: str, headings: Sequence[Heading], description: str) -> Page:
        file = File.generated(self._config, src_uri, content="", inclusion=InclusionLevel.NOT_IN_NAV)
        page = Page(None, file, self._config)
        page.markdown = ""
        # The theme prints the description as it is: the head's is attribute-escaped already.
        page.meta = {"title": title_html, "template": self._template, "description": description}
        page.content = content
        page.toc = get_toc(toc_tokens(headings))
        return page

    def _render_page(self, page: Page) -> tuple[str, dict[str, Any]]:
        """The theme's template for ``page`` with the other plugins' page events, as MkDocs does."""
        config = self._config
        page.active = True
        try:
            context = get_context(self._nav, self._doc_files, config, page)
            # What the theme's base template imports for its partials (the toc's words).
            context["lang"] = self._env.get_template("partials/language.html").make_module(dict(context))
            template = self._env.get_template(page.meta.get("template", "main.html"))
            context = config.plugins.on_page_context(context, page=page, config=config, nav=self._nav)
            rendered = template.render(context)
            return config.plugins.on_post_page(rendered, page=page, config=config), dict(context)
        finally:
            page.active = False

    def _frame(self, src_uri: str, key: FrameKey) -> tuple[Frame, dict[str, Any]] | None:
        """The theme's page for ``src_uri`` with markers where the page's own values go; None
        when the theme shows one of them in a form the markers cannot find."""
        markers = self._markers
        content_marker = ("<h1" if key.has_h1 else "") + markers.content
        headings = (Heading(2, markers.toc_anchor, markers.title),) if key.has_toc else ()
        page = self._page(src_uri, markers.title, content_marker, headings, markers.description)
        canonical = page.canonical_url
        page.canonical_url = markers.canonical if canonical else None
        self.rendering = True
        try:
            rendered, context = self._render_page(page)
        finally:
            self.rendering = False
        # The page's own head tags go where the theme's head ends.
        rendered = rendered.replace("</head>", markers.head + "</head>", 1)
        places = {
            content_marker: Slot.CONTENT,
            markers.title: Slot.TITLE,
            markers.description: Slot.DESCRIPTION,
            markers.head: Slot.HEAD,
        }
        required = [Slot.CONTENT]
        if canonical:
            places[markers.canonical] = Slot.CANONICAL
        if key.has_toc:
            places[self._toc.render({**context, "page": page})] = Slot.TOC
            places[markers.toc_anchor] = Slot.SKIP
            required.append(Slot.TOC)
        if page.url and page.url in rendered:
            places[page.url] = Slot.URL
        try:
            frame = Frame.of(rendered, places, required=tuple(required)).compacted()
        except FrameError as error:
            logger.info("commit-digest: pages like %s are rendered whole: %s", src_uri, error)
            return None
        return frame, context


@dataclass(frozen=True)
class _TocPage:
    """What the theme's table-of-contents partial reads of a page."""

    toc: Any


def _canonical(config: MkDocsConfig, url: str) -> str:
    return urljoin(config.site_url, url) if config.site_url else ""


def toc_tokens(headings: Sequence[Heading]) -> list[Any]:
    """MkDocs' table-of-contents tokens (what the Markdown toc extension makes) from the headings
    the page's HTML has: each heading nests under the nearest one of a lower level."""
    root: list[Any] = []
    stack: list[tuple[int, list[Any]]] = [(0, root)]
    for heading in headings:
        token = {"level": heading.level, "id": heading.id, "name": heading.title, "children": []}
        while stack[-1][0] >= heading.level:
            stack.pop()
        stack[-1][1].append(token)
        stack.append((heading.level, token["children"]))
    return root
