"""The site index of one build, read from the store: its commits (by worker processes), its
narratives, briefs and releases, the store's revision and when a fetch last completed.

What a site generator calls once per build before it asks the views for anything; the MkDocs
plugin does, and keeps the record source open for the pages that read a record again.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from commit_digest.meaning.releases import Release
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.settings import DigestSettings
from commit_digest.site.model.briefs import site_briefs
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.followed import site_last_fetch, site_releases
from commit_digest.site.model.index import SiteIndex, SiteRepository, index_of, site_narratives
from commit_digest.site.model.reading import read_site_commits
from commit_digest.site.model.record_source import RecordSource
from commit_digest.site.model.summaries import Summaries, recall_summaries
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.briefs import DayBrief
from commit_digest.store.narratives import WeekNarrative
from commit_digest.store.sample_note import SAMPLE_META, SampleNote, read_sample_note

logger = logging.getLogger("mkdocs.plugins.commit_digest.plugin")


@dataclass
class StoreReading:
    """What one build read of the store."""

    index: SiteIndex
    source: RecordSource | None  # where pages read the records they show; None without a store
    summaries: Summaries  # every commit's summary, kept for the next build
    revision: str | None
    last_fetch: datetime | None


def read_site_index(
    settings: DigestSettings,
    taxonomy: Taxonomy,
    repositories: tuple[SiteRepository, ...],
    *,
    previous_site: Path | None,
    shared: str,
    workers: int,
) -> StoreReading:
    """The site index from the store's records (read by worker processes; pages read a record
    again when they show it), its narratives, briefs and releases; the store's revision and when a fetch
    last completed without error. ``previous_site`` holds the summaries of the build whose
    shared inputs digest to ``shared``: records they know are not parsed again."""
    source: RecordSource | None = None
    summaries = Summaries()
    commits: list[SiteCommit] = []
    narratives: list[WeekNarrative] = []
    briefs: list[DayBrief] = []
    releases: list[Release] = []
    revision: str | None = None
    last_fetch: datetime | None = None
    sample: SampleNote | None = None
    if not settings.cache_dir.is_dir():
        logger.warning("commit-digest: no store at %s; the site has no commits", settings.cache_dir)
    else:
        source = RecordSource(settings.cache_dir)
        summaries = recall_summaries(previous_site, shared)
        with AnalysisStore(settings.cache_dir) as store:
            revision, last_fetch = store.revision(), site_last_fetch(store, settings)
            narratives, releases = list(store.narratives()), list(site_releases(store, settings))
            briefs = list(store.briefs())
            sample = read_sample_note(store.get_meta(SAMPLE_META))
        commits = read_site_commits(
            source,
            repositories=repositories,
            zone=settings.zone,
            taxonomy=taxonomy,
            language=settings.language,
            workers=workers,
            summaries=summaries,
        )
    index = index_of(commits, repositories=repositories, taxonomy=taxonomy, releases=releases)
    days = {day.date: day.commits for day in index.days}
    index = dataclasses.replace(
        index,
        narratives=site_narratives(narratives, settings.language),
        briefs=site_briefs(briefs, days, settings.language, settings.languages),
        sample=sample,
    )
    return StoreReading(index, source, summaries, revision, last_fetch)
