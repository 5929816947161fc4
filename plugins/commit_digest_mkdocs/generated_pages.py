"""The generated pages outside the navigation: reused from the previous build when their inputs
did not change, else rendered into their theme frame after MkDocs' own pages, in batches over
worker processes, and written straight to the site.

The plugin's event handlers decide which pages these are (``add``) and when to write them
(``link_reused``, ``write``); this module holds the machinery, so the handlers stay short.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from pathlib import Path

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Navigation

from commit_digest.site.build.incremental import BuildManifest, OutputRecord, PreviousBuild
from commit_digest.site.build.output import link_reused_pages
from commit_digest.site.fingerprint import digest
from commit_digest.site.parallel import batches_of, map_batches
from commit_digest.site.rendering.head import PageHead
from commit_digest.site.views.base import PageSpec
from commit_digest.words import counted
from commit_digest_mkdocs.frames import PAGE_TEMPLATE, TOC_TEMPLATE, ThemeFrames
from commit_digest_mkdocs.slim_frame import SLIM_TEMPLATE, SLIM_TOC, uses_slim_frame

logger = logging.getLogger("mkdocs.plugins.commit_digest.plugin")


class GeneratedPages:
    """One build's generated pages outside the navigation, and where each comes from."""

    def __init__(self, previous: PreviousBuild, manifest: BuildManifest, shared: str) -> None:
        self._previous = previous
        self._manifest = manifest
        self._shared = shared
        self.reused: list[tuple[Path, str]] = []  # (previous output file, path in the new site)
        # Rendered in their theme frame by this plugin (not by MkDocs) after the build, as
        # (spec, output path, URL).
        self.framed: list[tuple[PageSpec, str, str]] = []
        self.frames: ThemeFrames | None = None  # made by ``write``: the theme frames it filled

    def add(self, spec: PageSpec, config: MkDocsConfig) -> None:
        """A page outside the navigation: copied from the previous build when its inputs are
        unchanged, else rendered into its theme frame after the build (``write``)."""
        page_digest = digest(self._shared, spec.src_uri, spec.inputs) if spec.inputs else ""
        previous = self._previous.page(spec.src_uri, page_digest) if spec.inputs else None
        if previous is not None:
            output = self._previous.manifest.pages[spec.src_uri].output  # type: ignore[union-attr]
            self.reused.append((previous, output))
        else:
            file = File.generated(config, spec.src_uri, content="", inclusion=InclusionLevel.NOT_IN_NAV)
            output = file.dest_uri
            self.framed.append((spec, output, file.url))
        if spec.inputs:
            # Made, not validated: one per page of the archive, from values this build made.
            self._manifest.pages[spec.src_uri] = OutputRecord.model_construct(digest=page_digest, output=output)

    def urls(self, base_url: str) -> list[str]:
        """Every page's address, for the sitemap."""
        reused = [base_url + output.removesuffix("index.html") for _, output in self.reused]
        return reused + [base_url + url for _, _, url in self.framed]

    def link_reused(self, site_dir: Path) -> None:
        link_reused_pages(site_dir, self.reused)

    def write(
        self,
        config: MkDocsConfig,
        env: jinja2.Environment,
        nav: Navigation,
        files: Files,
        *,
        site_dir: Path,
        head: Callable[[PageSpec, str], PageHead],  # a page's head tags, from its spec and URL
        workers: int,
    ) -> None:
        """Each page rendered once into its theme frame and written to the site, in batches over
        worker processes."""
        templates = (SLIM_TEMPLATE, SLIM_TOC) if uses_slim_frame(config, nav) else (PAGE_TEMPLATE, TOC_TEMPLATE)
        frames = self.frames = ThemeFrames(config, env, nav, files, template=templates[0], toc_template=templates[1])
        # A day page and its commits' pages in one batch: they share rendered analyses.
        pages = sorted(self.framed, key=lambda page: page[0].group)
        batches = batches_of(len(pages), workers)

        def write_batch(number: int) -> int:
            for position in batches[number]:
                spec, output, url = pages[position]
                rendered = spec.render()
                title = html.escape(spec.title)
                page = frames.page(spec.src_uri, url, title, rendered.headings, rendered.html, head(spec, url))
                target = site_dir / output
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(page.encode("utf-8", errors="xmlcharrefreplace"))
            return len(batches[number])

        written = sum(map_batches(write_batch, len(batches), workers=workers))
        logger.info(
            "commit-digest: rendered %s in %s (%s)",
            counted(written, "page", "pages"),
            counted(len(batches), "batch", "batches"),
            counted(workers, "worker", "workers"),
        )
