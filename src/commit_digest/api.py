"""A small read-only API for site owners' own pages (mkdocs-gen-files scripts, notebooks).

    from commit_digest import api
    with api.open_digest(api.load_site_settings("mkdocs.yml")) as digest:
        for day in digest.days(): ...

Untrusted text (titles, authors, analysis) must reach a page through ``api.text`` (one line) or
``api.paragraphs``; links to generated pages come from ``api.link``, to a commit's page with the
path ``Digest.commit_page`` gives (under its repository on a site of several).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from markupsafe import Markup

from commit_digest.meaning.impact import ChangeKind, ImpactKind
from commit_digest.models import CommitRecord
from commit_digest.settings import DigestSettings, plugin_options_in, settings_from_mapping
from commit_digest.site import paths
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.followed import followed_repositories, site_records, site_taxonomy
from commit_digest.site.model.index import Day, SiteIndex, build_index
from commit_digest.site.options import split_options
from commit_digest.site.rendering.escape import block_text, inline_text
from commit_digest.store.analysis_store import AnalysisStore

__all__ = [
    "Day",
    "Digest",
    "SiteCommit",
    "link",
    "load_site_settings",
    "open_digest",
    "open_store",
    "paragraphs",
    "text",
]

text = inline_text
paragraphs = block_text


def link(from_page: str, to_page: str, *, directory_urls: bool = True) -> Markup:
    """The relative URL from one page (by source path) to a generated page (``commit_page``,
    ``day_page``). It is the page's final URL, not a ``.md`` path: an incremental build copies
    unchanged generated pages instead of rendering them, so MkDocs does not know them as pages."""
    return paths.href(from_page, to_page, directory_urls)


# A commit's page by sha alone: right on a site of one repository (``Digest.commit_page`` is right on any).
commit_page = paths.commit_page
day_page = paths.day_page


def load_site_settings(config_file: Path | str = "mkdocs.yml") -> DigestSettings:
    """The settings of the commit-digest block of an mkdocs.yml, paths resolved against its folder."""
    config_path = Path(config_file)
    digest_options, _ = split_options(plugin_options_in(config_path))
    return settings_from_mapping(digest_options, where=str(config_path)).relative_to(config_path.resolve().parent)


class Digest:
    """The store seen as the site sees it: commits by day and month in the settings' time zone."""

    def __init__(self, store: AnalysisStore | None, settings: DigestSettings, index: SiteIndex | None = None) -> None:
        self.store = store
        self.settings = settings
        self._index = index

    @classmethod
    def of_index(cls, index: SiteIndex, settings: DigestSettings) -> Digest:
        """The digest of an index already built (the running build's: no second read of the store)."""
        return cls(None, settings, index)

    def records(self) -> Iterator[CommitRecord]:
        """The records of every repository the site follows."""
        if self.store is None:
            assert self._index is not None
            return (item.record for day in reversed(self._index.days) for item in day.commits)
        return site_records(self.store, self.settings)

    @property
    def index(self) -> SiteIndex:
        if self._index is None:
            taxonomy = site_taxonomy(self.settings)
            self._index = build_index(
                self.records(),
                repositories=followed_repositories(self.settings, taxonomy),
                zone=self.settings.zone,
                taxonomy=taxonomy,
                language=self.settings.language,
            )
        return self._index

    def commit_page(self, item: SiteCommit) -> str:
        """The page of one of the site's commits (for ``link``): under its repository's owner/name
        on a site of several, where two repositories' commits may share a sha."""
        return paths.commit_page(item.sha, item.repository if self.index.several_repositories else None)

    def days(self) -> tuple[Day, ...]:
        """Days newest first, each with its commits oldest first."""
        return self.index.days

    def day(self, when: date) -> Day | None:
        return next((day for day in self.index.days if day.date == when), None)

    def months(self) -> list[str]:
        """Months ("YYYY-MM") that have commits, newest first."""
        return list(self.index.months)

    def month(self, month: str) -> list[SiteCommit]:
        """Commits of a month, newest first."""
        return [item for day in self.index.months.get(month, ()) for item in day.newest_first]

    def deprecations(self, month: str) -> list[SiteCommit]:
        """Commits of a month that deprecate or remove something, newest first: by their analysis
        (change type "deprecation") or by their diff (a deprecation warning added, or an
        environment variable, flag, argument or dependency removed: their operator impact)."""
        facts = self.index.facts
        return [
            item
            for item in self.month(month)
            if item.change_type == "deprecation"
            or any(
                change.kind is ImpactKind.DEPRECATION or change.change is ChangeKind.REMOVED
                for change in facts.impact(item).changes
            )
        ]


def open_store(path: Path | str) -> AnalysisStore:
    """The store at ``path`` (close it, or use it as a context manager)."""
    return AnalysisStore(Path(path))


@contextmanager
def open_digest(settings: DigestSettings) -> Iterator[Digest]:
    """The digest of the store named by ``settings``.

    In a mkdocs-gen-files script, prefer ``mkdocs_gen_files.config.plugins["commit-digest"].digest()``:
    the running build's digest (its settings, any ``commit-digest build --cache`` override, and the
    store read once for the whole build); elsewhere ``load_site_settings("mkdocs.yml")``.
    """
    with open_store(settings.cache_dir) as store:
        yield Digest(store, settings)
