"""The site's commits read from the store by worker processes, each over part of its records.

Reading the archive (parsing every record, labelling it, finding its links and operator impact)
is the costliest step a build takes before it knows what changed. Forked workers share it, and
each sends back only the compact ``SiteCommit``s: the parent never holds a parsed record, so its
memory is the summaries' (parsing's garbage stays in the workers, which exit).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from zoneinfo import ZoneInfo

from commit_digest.models import LanguageCode
from commit_digest.site.followed import labelling_taxonomies
from commit_digest.site.model import SiteCommit, SiteRepository, site_commits
from commit_digest.site.parallel import batches_of, map_batches
from commit_digest.site.record_source import RecordSource
from commit_digest.site.wording import Wording
from commit_digest.store import AnalysisStore
from commit_digest.taxonomy import Classification, Taxonomy

_Learned = dict[str, dict[str, Classification]]  # taxonomy fingerprint -> what a worker classified


def read_site_commits(
    source: RecordSource,
    *,
    repositories: Sequence[SiteRepository],
    zone: ZoneInfo,
    taxonomy: Taxonomy,
    language: LanguageCode,
    workers: int,
) -> list[SiteCommit]:
    """Every stored commit of ``repositories`` as the site shows it (in store order), read by
    ``workers`` processes; what they classified is remembered by ``taxonomy`` and the
    repositories' own taxonomies as if classified here."""
    taxonomies = labelling_taxonomies(taxonomy, repositories)
    with AnalysisStore(source.directory) as store:
        keys = [(repository.name, sha) for repository in repositories for sha in store.shas(repository.name)]
    batches = batches_of(len(keys), workers, per_worker=1)

    def read(number: int) -> tuple[list[SiteCommit], _Learned]:
        with AnalysisStore(source.directory) as store:
            records = (store.get(*keys[position]) for position in batches[number])
            commits = site_commits(
                (record for record in records if record is not None),
                repositories=repositories,
                zone=zone,
                taxonomy=taxonomy,
                wording=None,
                source=source,
            )
        # Sent back without what belongs to this process: the parent attaches its own.
        portable = [dataclasses.replace(item, wording=None, source=None) for item in commits]
        return portable, {fingerprint: found.remembered() for fingerprint, found in taxonomies.items()}

    wording = Wording(language, taxonomy)
    found: list[SiteCommit] = []
    for commits, learned in map_batches(read, len(batches), workers=workers):
        found += [dataclasses.replace(item, wording=wording, source=source) for item in commits]
        for fingerprint, classified in learned.items():
            taxonomies[fingerprint].remember(classified, asked=True)
    return found
