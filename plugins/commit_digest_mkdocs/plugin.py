"""The MkDocs plugin: converts between MkDocs objects and ``commit_digest.site`` and nothing more.

At ``mkdocs build`` time it reads the store (never the network), generates the pages in memory
and leaves any page a site owner wrote (in docs/ or with mkdocs-gen-files) in place.
"""

from __future__ import annotations

import html
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

from commit_digest.errors import CommitDigestError
from commit_digest.models import CommitRecord
from commit_digest.search import search_documents, search_files, search_names
from commit_digest.search.page import SCRIPT, SEARCH_PAGE, STYLE, asset, search_page_markdown
from commit_digest.settings import DigestSettings, settings_from_mapping
from commit_digest.site import SiteIndex, SiteOptions, build_index, generate_pages, paths, sanitize_html
from commit_digest.site.i18n import Texts
from commit_digest.site.pages import Heading, PageSpec
from commit_digest.site.status import STATUS_FILE, site_status
from commit_digest.store import AnalysisStore
from commit_digest.taxonomy import Taxonomy, load_taxonomy
from commit_digest_mkdocs.config import PluginConfig

logger = logging.getLogger("mkdocs.plugins.commit_digest.plugin")
_NAV_PAGES = frozenset({paths.HOME, paths.ARCHIVE_INDEX, paths.PLATFORMS_INDEX, paths.SUBSYSTEMS_INDEX})


@contextmanager
def _as_plugin_error() -> Iterator[None]:
    """The one place where the library's errors become what MkDocs reports."""
    try:
        yield
    except CommitDigestError as error:
        raise PluginError(f"commit-digest: {error}") from error


class CommitDigestPlugin(BasePlugin[PluginConfig]):
    def __init__(self) -> None:
        self.settings: DigestSettings | None = None
        self.taxonomy: Taxonomy | None = None
        self.site_options = SiteOptions()
        self._sanitized: set[str] = set()
        self._specs: dict[str, PageSpec] = {}
        self._index: SiteIndex | None = None

    # Before material's search reads the theme language.
    @event_priority(50)
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        base = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
        with _as_plugin_error():
            settings = settings_from_mapping(
                self.config.digest_options(), where=f"{config.config_file_path}: plugins.commit-digest"
            ).relative_to(base)
            self.taxonomy = load_taxonomy(settings.taxonomy, settings.taxonomy_file)
        if self.config.days_on_home < 1 or self.config.page_size < 1:
            raise PluginError("commit-digest: days_on_home and page_size must be at least 1")
        self.settings = settings
        self.site_options = SiteOptions.from_settings(
            settings,
            {
                "days_on_home": self.config.days_on_home,
                "page_size": self.config.page_size,
                "directory_urls": config.use_directory_urls,
            },
        )
        config.theme["language"] = settings.language
        return config

    # After mkdocs-gen-files (priority 0), so pages site owners generate also take precedence.
    @event_priority(-50)
    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        assert self.settings is not None and self.taxonomy is not None  # set by on_config
        docs_dir = Path(config.docs_dir).resolve()
        self._sanitized = {
            file.src_uri
            for file in files.documentation_pages()
            if file.generated_by is not None
            or (
                file.abs_src_path is not None
                and not Path(file.abs_src_path).resolve().is_relative_to(docs_dir)
            )
        }
        self._specs = {}
        owned = set(files.src_uris)
        with _as_plugin_error():
            records = self._read_store(self.settings)
            index = build_index(
                records, repository=self.settings.repository, zone=self.settings.zone, taxonomy=self.taxonomy
            )
            self._index = index
            added = skipped = 0
            for spec in generate_pages(index, self.taxonomy, self.site_options):
                if spec.src_uri in owned:
                    skipped += 1
                    logger.debug("%s exists in the docs; not generating it", spec.src_uri)
                    continue
                # Day, commit and listing pages are reached through links: the nav stays small.
                inclusion = (
                    InclusionLevel.INCLUDED if spec.src_uri in _NAV_PAGES else InclusionLevel.NOT_IN_NAV
                )
                # The page is rendered to HTML by the site package (on_page_content); MkDocs'
                # Markdown converter only ever sees an empty body.
                files.append(File.generated(config, spec.src_uri, content="", inclusion=inclusion))
                self._specs[spec.src_uri] = spec
                added += 1
            self._add_search_files(files, config, owned)
        logger.info(
            "commit-digest: %s pages from %s commits (%s left to hand-written pages)",
            added,
            sum(len(day.commits) for day in index.days),
            skipped,
        )
        if config.nav is None:
            config.nav = self._navigation(files)
        return files

    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        spec = self._specs.get(page.file.src_uri)
        if spec is not None:
            # The theme prints page titles into <title> and the header; as meta it arrives escaped.
            page.meta["title"] = html.escape(spec.title)
            return ""
        return markdown

    def on_page_content(self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        spec = self._specs.get(page.file.src_uri)
        if spec is not None:
            rendered = spec.render()
            page.toc = get_toc(_toc_tokens(rendered.headings))
            return sanitize_html(rendered.html)
        if page.file.src_uri in self._sanitized:
            return sanitize_html(html)
        return html

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Writes the status the page footers show: the build time lives here, not in the pages."""
        if self._index is None or self.settings is None:
            return
        status = site_status(
            self._index, built_at=datetime.now(self.settings.zone), language=self.settings.language
        )
        Path(config.site_dir, STATUS_FILE).write_text(
            json.dumps(status, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
        self._write_search_index(config)

    # -- helpers ------------------------------------------------------------------------------

    def _read_store(self, settings: DigestSettings) -> list[CommitRecord]:
        if not settings.cache_dir.is_dir():
            logger.warning("commit-digest: no store at %s; the site has no commits", settings.cache_dir)
            return []
        with AnalysisStore(settings.cache_dir) as store:
            return list(store.records(settings.repository))

    def _add_search_files(self, files: Files, config: MkDocsConfig, owned: set[str]) -> None:
        """The search page and its client; a site owner's own page at that path wins."""
        language = self.site_options.language
        if SEARCH_PAGE not in owned:
            files.append(File.generated(config, SEARCH_PAGE, content=search_page_markdown(language)))
        for path in (SCRIPT, STYLE):
            if path not in owned:
                files.append(File.generated(config, path, content=asset(path)))

    def _write_search_index(self, config: MkDocsConfig) -> None:
        """The sharded search index under search/, built one quarter at a time."""
        assert self._index is not None and self.taxonomy is not None
        target = Path(config.site_dir, "search")
        commit_page = paths.commit_page("{sha}")
        commit_url = commit_page[: -len(".md")] + ("/" if config.use_directory_urls else ".html")
        count = size = 0
        for relative, content in search_files(
            search_documents(self._index, self.taxonomy),
            search_names(self.taxonomy, self.site_options.language),
            commit_url=commit_url,
        ):
            path = target / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            count += 1
            size += len(content)
        logger.info("commit-digest: search index of %s files, %s bytes", count, size)

    def _navigation(self, files: Files) -> list[Any]:
        """Home, archive, platforms, subsystems and the site owner's pages; never days or commits."""
        texts = Texts(self.site_options.language)
        nav: list[Any] = [
            {str(texts("nav_home")): paths.HOME},
            {str(texts("nav_archive")): paths.ARCHIVE_INDEX},
            {str(texts("nav_platforms")): paths.PLATFORMS_INDEX},
            {str(texts("nav_subsystems")): paths.SUBSYSTEMS_INDEX},
        ]
        if files.get_file_from_path(SEARCH_PAGE) is not None:
            nav.append({str(texts("nav_search")): SEARCH_PAGE})
        listed = _NAV_PAGES | {SEARCH_PAGE}
        own_pages = sorted(
            file.src_uri
            for file in files.documentation_pages()
            if file.src_uri not in listed and not file.src_uri.startswith(paths.GENERATED_PREFIXES)
        )
        return nav + own_pages


def _toc_tokens(headings: tuple[Heading, ...]) -> list[Any]:
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
