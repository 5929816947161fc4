"""What each page tells search engines and link previews, on the MkDocs side: the head of a
generated page (from its spec: ``rendering.describe`` words it, ``rendering.head`` writes it),
the head tags added to the pages MkDocs renders itself (the navigation's generated pages and the
hand-written ones), and the site's robots.txt.

A framed page gets its head through its frame's slots (``ThemeFrames.page``); a page MkDocs
renders through ``on_post_page``, which writes the tags before ``</head>`` as the feed links
always were.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page

from commit_digest.site.build.robots import ROBOTS_PATH, robots_txt
from commit_digest.site.languages import language_root
from commit_digest.site.rendering.feed_list import Feed, feed_head_links
from commit_digest.site.rendering.head import PageHead, site_head
from commit_digest.site.views.base import PageSpec


class PageHeads:
    """One build's page heads: its site's facts and which page announces which feeds (without a
    configuration: a site of no name, description or URL, before the build has one)."""

    def __init__(
        self,
        config: MkDocsConfig | None = None,
        *,
        language: str = "zh",
        site_languages: Sequence[str] | None = None,
        feeds_by_page: Mapping[str, list[Feed]] | None = None,
    ) -> None:
        if config is None:
            self._site = site_head("", None, language, site_languages, None)
        else:
            self._site = site_head(config.site_name, config.site_description, language, site_languages, config.site_url)
        self._feeds = feeds_by_page or {}
        self._rendered: dict[str, PageHead] = {}  # the pages MkDocs renders, made once each

    def feed_links(self, src_uri: str) -> str:
        feeds = self._feeds.get(src_uri)
        return feed_head_links(feeds, self._site.site_url, self._site.site_name) if feeds else ""

    def generated(self, spec: PageSpec, url: str) -> PageHead:
        """A generated page's head: its description, card, languages and feeds."""
        return self._site.page(
            url,
            title=spec.title,
            description=spec.description(),
            article=spec.article,
            extra=self.feed_links(spec.src_uri),
        )

    def rendered(self, page: Page, spec: PageSpec | None) -> PageHead:
        """The head of a page MkDocs renders: a generated one's (``generated``), or a hand-written
        one's with its own description (front matter) or the site's, which the theme shows."""
        src_uri = page.file.src_uri
        if src_uri not in self._rendered:
            if spec is not None:
                head = self.generated(spec, page.url)
            else:
                own = page.meta.get("description")
                title = page.title or self._site.site_name
                extra = self.feed_links(src_uri)
                description = own if isinstance(own, str) else ""
                head = self._site.page(page.url, title=title, description=description, extra=extra)
            self._rendered[src_uri] = head
        return self._rendered[src_uri]


def add_robots_file(files: Files, config: MkDocsConfig, *, language: str, site_languages: Sequence[str] | None) -> None:
    """robots.txt at the site's root, written by the default language's build, unless the site
    owner wrote their own (docs/robots.txt)."""
    languages = tuple(site_languages or (language,))
    if language != languages[0] or files.get_file_from_path(ROBOTS_PATH) is not None:
        return
    root_url = (config.site_url or "").removesuffix(language_root(language, languages)) or None
    content = robots_txt(root_url, languages)
    files.append(File.generated(config, ROBOTS_PATH, content=content, inclusion=InclusionLevel.NOT_IN_NAV))
