"""The MkDocs plugin: converts between MkDocs objects and ``commit_digest.site`` and nothing more.

At ``mkdocs build`` time it reads the store (never the network), generates the pages in memory
and leaves any page a site owner wrote (in docs/ or with mkdocs-gen-files) in place.
"""

from __future__ import annotations

import dataclasses
import html
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

from commit_digest import api
from commit_digest.errors import CommitDigestError
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.settings import DigestSettings, settings_from_mapping
from commit_digest.site.build.incremental import (
    MANIFEST_PATH,
    BuildManifest,
    PreviousBuild,
    read_manifest,
    write_manifest,
    written_files,
)
from commit_digest.site.build.output import (
    PendingSearchIndex,
    start_search_index,
    write_files,
    write_sitemap,
    write_status,
)
from commit_digest.site.build.status import status_facts
from commit_digest.site.model.followed import followed_repositories, site_taxonomy
from commit_digest.site.model.index import SiteIndex, SiteRepository
from commit_digest.site.model.record_source import RecordSource
from commit_digest.site.model.store_reading import read_site_index
from commit_digest.site.model.summaries import Summaries
from commit_digest.site.options import SiteOptions
from commit_digest.site.parallel import Started, available_cores
from commit_digest.site.rendering.chrome import EXTRA_KEY, chrome_context
from commit_digest.site.rendering.feed_list import Feed
from commit_digest.site.rendering.sanitize import sanitize_html
from commit_digest.site.views.about import ABOUT, about_page
from commit_digest.site.views.base import PageSpec
from commit_digest.site.views.registry import SiteViews
from commit_digest.words import counted
from commit_digest_mkdocs.config import PluginConfig
from commit_digest_mkdocs.fingerprint import shared_inputs_digest
from commit_digest_mkdocs.frames import toc_tokens
from commit_digest_mkdocs.generated_pages import GeneratedPages
from commit_digest_mkdocs.languages import choose_page_variants, localize_chrome
from commit_digest_mkdocs.navigation import NAV_PAGES, add_site_assets, add_site_files, navigation
from commit_digest_mkdocs.page_heads import PageHeads, add_robots_file
from commit_digest_mkdocs.search_frame import add_search_page_frame, frame_search_page
from commit_digest_mkdocs.slim_frame import SLIM_TEMPLATE, add_frame_files, add_slim_frame, uses_slim_frame

logger = logging.getLogger("mkdocs.plugins.commit_digest.plugin")


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
        self.repositories: tuple[SiteRepository, ...] = ()
        self.site_options = SiteOptions()
        self._sanitized: set[str] = set()
        self._specs: dict[str, PageSpec] = {}
        self._index: SiteIndex | None = None
        self._views: SiteViews | None = None  # this build's pages and files, made by on_files
        # Set by ``run_build`` to the published site: unchanged pages are taken from there.
        self.previous_site_dir: Path | None = None
        # Set by ``run_build`` when it will publish this build by updating the previous site in
        # place: unchanged pages and search partitions stay where they are, not copied.
        self.publish_in_place = False
        # Set by ``run_build`` to the published site's manifest, which it has read already.
        self.previous_manifest: BuildManifest | None = None
        self.written_manifest: BuildManifest | None = None  # this build's, once written
        # Set by ``run_build`` to every language the site is published in, the default first (this
        # build's is ``settings.language``). None when MkDocs runs on its own: one language, no selector.
        self.site_languages: tuple[str, ...] | None = None
        self._shared = ""
        self._revision: str | None = None
        self._previous = PreviousBuild(None, None, "")
        self._manifest = BuildManifest(shared="")
        self._page_urls: list[str] = []
        self._last_fetch: datetime | None = None
        self._feeds_by_page: dict[str, list[Feed]] = {}
        self._heads = PageHeads()  # this build's, made by on_files
        # Generated pages outside the navigation: reused, or framed by this plugin after the build.
        self._generated = GeneratedPages(self._previous, self._manifest, "")
        self._nav: Navigation | None = None
        self._env: jinja2.Environment | None = None
        self._files: Files | None = None
        self._source: RecordSource | None = None  # where pages read the records they show
        # Started by on_files, finished by on_post_build (see _start_outputs).
        self._search_index: PendingSearchIndex | None = None
        self._summaries_written: Started[None] | None = None
        self._summaries = Summaries()  # every commit's summary, kept for the next build

    # Before material's search reads the theme language.
    @event_priority(50)
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        # Before anything below changes the configuration: run_build computes the same digest.
        self._shared = shared_inputs_digest(config)
        self._index, self._revision = None, None  # read the store anew for every build
        self._cancel_outputs()  # none is left from an earlier build, but be sure (mkdocs serve)
        # Before any plugin asks for the site index (gen-files scripts do, before on_files).
        previous_site, self.written_manifest = self.previous_site_dir, None
        previous_manifest = self.previous_manifest
        if previous_manifest is None and previous_site is not None:
            previous_manifest = read_manifest(previous_site)
        self._previous = PreviousBuild(previous_site, previous_manifest, self._shared)
        base = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
        with _as_plugin_error():
            settings = settings_from_mapping(
                self.config.digest_options(), where=f"{config.config_file_path}: plugins.commit-digest"
            ).relative_to(base)
            self.taxonomy = site_taxonomy(settings)
            self.repositories = followed_repositories(settings, self.taxonomy)
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
        with _as_plugin_error():
            localize_chrome(
                config,
                language=settings.language,
                site_languages=self.site_languages or (settings.language,),
                site_names=self.config.site_name,
                site_descriptions=self.config.site_description,
            )
        # Feeds name this language's site and link its pages absolutely (en/ under the root).
        self.site_options = dataclasses.replace(
            self.site_options, site_url=config.site_url or None, site_name=config.site_name
        )
        add_site_assets(config)
        add_slim_frame(config)
        return config

    # After mkdocs-gen-files (priority 0), so pages site owners generate also take precedence.
    @event_priority(-50)
    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        assert self.settings is not None and self.taxonomy is not None  # set by on_config
        # Before anything reads the pages: about.en.md becomes about.md in the English build.
        choose_page_variants(files, config, self.settings.language)
        docs_dir = Path(config.docs_dir).resolve()
        self._sanitized = {
            file.src_uri
            for file in files.documentation_pages()
            if file.generated_by is not None
            or (file.abs_src_path is not None and not Path(file.abs_src_path).resolve().is_relative_to(docs_dir))
        }
        self._specs = {}
        owned = set(files.src_uris)
        with _as_plugin_error():
            index = self._site_index()
            self._manifest = BuildManifest(shared=self._shared, store_revision=self._revision)
            self._generated = GeneratedPages(self._previous, self._manifest, self._shared)
            added = skipped = 0
            self._views = views = SiteViews(index, self.taxonomy, self.site_options)
            # The about page of the configuration too, unless the site owner wrote one (docs/about.md).
            for spec in (*views.pages(), about_page(views.context)):
                if spec.src_uri in owned:
                    skipped += 1
                    logger.debug("%s exists in the docs; not generating it", spec.src_uri)
                    continue
                added += 1
                if spec.src_uri not in NAV_PAGES and spec.src_uri != ABOUT:
                    self._generated.add(spec, config)
                    continue
                # Nav pages (about/ after the sections, as an owner's pages): always rendered.
                files.append(File.generated(config, spec.src_uri, content="", inclusion=InclusionLevel.INCLUDED))
                self._specs[spec.src_uri] = spec
            add_site_files(files, config, owned, self.site_options.language)
            add_frame_files(files, config, owned)
            add_search_page_frame(files, config, owned, self.site_options.language)
            add_robots_file(files, config, language=self.settings.language, site_languages=self.site_languages)
            self._feeds_by_page = {}
            for feed in views.feeds:
                self._feeds_by_page.setdefault(feed.page, []).append(feed)
            self._heads = PageHeads(
                config,
                language=self.settings.language,
                site_languages=self.site_languages,
                feeds_by_page=self._feeds_by_page,
            )
        logger.info(
            "commit-digest: %s from %s (%s reused from the previous build, %s left to hand-written pages)",
            counted(added, "page", "pages"),
            counted(sum(len(day.commits) for day in index.days), "commit", "commits"),
            self._previous.reused_pages,
            skipped,
        )
        if config.nav is None:
            config.nav = navigation(files, self.site_options.language, several_repositories=len(self.repositories) > 1)
        # For the theme's 404 template (docs/overrides/404.html): its words and links.
        config.extra[EXTRA_KEY] = chrome_context(
            index, self.site_options.language, directory_urls=config.use_directory_urls
        )
        base_url = config.site_url or "/"
        self._page_urls = [base_url + file.url for file in files.documentation_pages()]
        self._page_urls += self._generated.urls(base_url)
        with _as_plugin_error():
            self._start_outputs(config)
        return files

    def _start_outputs(self, config: MkDocsConfig) -> None:
        """Starts, in workers of their own, what needs only the site index: the changed search
        partitions and the summaries kept for the next build. They run while MkDocs renders its
        pages and this plugin its framed ones; on_post_build waits for them."""
        assert self._index is not None and self.taxonomy is not None
        site_dir = Path(config.site_dir)
        self._search_index = start_search_index(
            site_dir,
            self._index,
            self.taxonomy,
            language=self.site_options.language,
            directory_urls=config.use_directory_urls,
            previous=self._previous,
            manifest=self._manifest,
            workers=self._workers,
            in_place=self._in_place,
        )
        shared, summaries = self._shared, self._summaries
        self._summaries_written = Started(
            lambda _: summaries.write(site_dir, shared), 1, workers=self._workers, isolated=True
        )

    @property
    def _in_place(self) -> bool:
        return self.publish_in_place and self._previous.usable

    def on_build_error(self, *, error: Exception) -> None:
        """Stops the workers started for this build: its folder is about to be removed."""
        self._cancel_outputs()

    def _cancel_outputs(self) -> None:
        if self._search_index is not None:
            self._search_index.cancel()
        if self._summaries_written is not None:
            self._summaries_written.cancel()
        self._search_index, self._summaries_written = None, None

    def on_nav(self, nav: Navigation, /, *, config: MkDocsConfig, files: Files) -> Navigation:
        self._nav = nav
        return nav

    def on_env(self, env: jinja2.Environment, /, *, config: MkDocsConfig, files: Files) -> jinja2.Environment:
        self._env, self._files = env, files
        return env

    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        spec = self._specs.get(page.file.src_uri)
        if spec is not None:
            # The theme prints page titles into <title> and the header; as meta it arrives escaped.
            page.meta["title"] = html.escape(spec.title)
            page.meta["description"] = self._heads.rendered(page, spec).description  # escaped too
            if uses_slim_frame(config, self._nav):  # in the same frame as the other generated pages
                page.meta["template"] = SLIM_TEMPLATE
            return ""
        if uses_slim_frame(config, self._nav):
            frame_search_page(page, config)  # the weight a reader loads before the search index
        return markdown

    def on_page_content(self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        spec = self._specs.get(page.file.src_uri)
        if spec is not None:
            rendered = spec.render()
            page.toc = get_toc(toc_tokens(rendered.headings))
            return sanitize_html(rendered.html)
        if page.file.src_uri in self._sanitized:
            return sanitize_html(html)
        return html

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        """The page's card, languages and feeds in its <head> (``page_heads``)."""
        frames = self._generated.frames
        if frames is not None and frames.rendering:
            return output  # a frame shared by many pages: each fills its own (ThemeFrames.page)
        tags = self._heads.rendered(page, self._specs.get(page.file.src_uri)).tags
        return output.replace("</head>", tags + "</head>", 1)

    @property
    def _workers(self) -> int:
        return self.config.workers or available_cores()

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Reused pages, the status the footers show (the build time lives there, not in the
        pages), the search index, the sitemap and the manifest the next build reuses from."""
        if self._index is None or self.settings is None:
            return
        assert self.taxonomy is not None
        site_dir = Path(config.site_dir)
        if not self._in_place:
            self._generated.link_reused(site_dir)
        search_index, summaries_written = self._search_index, self._summaries_written
        assert search_index is not None and summaries_written is not None  # started by on_files
        with _as_plugin_error():
            try:
                assert self._nav is not None and self._env is not None and self._files is not None
                self._generated.write(
                    config,
                    self._env,
                    self._nav,
                    self._files,
                    site_dir=site_dir,
                    head=self._heads.generated,
                    workers=self._workers,
                )
                facts = status_facts(self._index, last_fetch=self._last_fetch)
                built_at = datetime.now(self.settings.zone)
                write_status(site_dir, facts, built_at=built_at, language=self.settings.language)
                self._manifest.status = facts
                assert self._views is not None  # made by on_files
                feeds = write_files(site_dir, ((file.path, file.content) for file in self._views.files()))
            except BaseException:
                self._cancel_outputs()
                raise
            self._search_index, self._summaries_written = None, None
            search_index.finish()
            list(summaries_written.results())
        write_sitemap(site_dir, self._page_urls)
        # What the next build deletes when it updates this site in place and no longer makes it.
        # The default language's site holds the others' (en/): they are theirs to list.
        languages = self.site_languages or ()
        others = list(languages[1:]) if languages and languages[0] == self.settings.language else []
        self._manifest.written = [*written_files(site_dir, skip=others), MANIFEST_PATH]
        write_manifest(site_dir, self._manifest)
        self.written_manifest = self._manifest
        if self._source is not None:
            self._source.close()
        logger.info(
            "commit-digest: reused %s and %s from the previous build; %s",
            counted(self._previous.reused_pages, "page", "pages"),
            counted(self._previous.reused_partitions, "search partition", "search partitions"),
            counted(feeds, "feed", "feeds"),
        )

    # -- helpers ------------------------------------------------------------------------------

    def digest(self) -> api.Digest:
        """The store as this build sees it, for site owners' mkdocs-gen-files scripts: read once
        per build and shared with the generated pages."""
        assert self.settings is not None
        with _as_plugin_error():
            return api.Digest.of_index(self._site_index(), self.settings)

    def _site_index(self) -> SiteIndex:
        if self._index is None:
            assert self.settings is not None and self.taxonomy is not None
            self._index = self._read_store(self.settings, self.taxonomy)
        return self._index

    def _read_store(self, settings: DigestSettings, taxonomy: Taxonomy) -> SiteIndex:
        """The site index from the store; notes the store's revision and when a fetch last
        completed without error, and keeps the record source open for the pages."""
        if self._source is not None:
            self._source.close()
        reading = read_site_index(
            settings,
            taxonomy,
            self.repositories,
            previous_site=self._previous.site_dir,
            shared=self._shared,
            workers=self._workers,
        )
        self._source, self._summaries = reading.source, reading.summaries
        self._revision, self._last_fetch = reading.revision, reading.last_fetch
        return reading.index
