"""The repositories a site follows, from its settings: each with the taxonomy its commits are
labelled by, and the taxonomy the site's pages are organised by."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from commit_digest.collect.fetch import last_fetch_time
from commit_digest.meaning.impact.rules import impact_rules
from commit_digest.meaning.releases import Release
from commit_digest.meaning.taxonomy import Taxonomy, load_taxonomy
from commit_digest.meaning.taxonomy_file import combine_overrides
from commit_digest.models import CommitRecord
from commit_digest.settings import DigestSettings
from commit_digest.site.model.index import SiteRepository
from commit_digest.store.analysis_store import AnalysisStore


def site_taxonomy(settings: DigestSettings) -> Taxonomy:
    """The site-wide taxonomy with every repository's additions: a platform one repository adds
    has its pages. A repository dropping a label (null) drops it for its own commits only."""
    merged = settings.taxonomy
    for repository in settings.repositories:
        merged = combine_overrides(merged, repository.taxonomy, keep_removals=False)
    return load_taxonomy(merged or None, settings.taxonomy_file)


def followed_repositories(settings: DigestSettings, site: Taxonomy) -> tuple[SiteRepository, ...]:
    """Each repository with its own taxonomy (the site's when it has no overrides)."""
    followed = []
    for repository in settings.repositories:
        own = (
            load_taxonomy(settings.taxonomy_for(repository.name), settings.taxonomy_file)
            if repository.taxonomy
            else site
        )
        followed.append(
            SiteRepository(
                name=repository.name,
                title=repository.display_name,
                taxonomy=own,
                platforms=repository.platforms,
                impact_rules=impact_rules(repository.impact) if repository.impact else None,
                release_tags=repository.release_tags,
            )
        )
    return tuple(followed)


def site_records(store: AnalysisStore, settings: DigestSettings) -> Iterator[CommitRecord]:
    for name in settings.repository_names:
        yield from store.records(name)


def site_last_fetch(store: AnalysisStore, settings: DigestSettings) -> datetime | None:
    """When the site's data was last fetched: the stalest of its repositories (None if one never was)."""
    times = [last_fetch_time(store, name) for name in settings.repository_names]
    known = [time for time in times if time is not None]
    return min(known) if known and len(known) == len(times) else None


def site_releases(store: AnalysisStore, settings: DigestSettings) -> Iterator[Release]:
    for name in settings.repository_names:
        yield from store.releases(name)
