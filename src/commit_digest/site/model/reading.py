"""The site's commits read from the store by worker processes, each over part of its records.

Reading the archive (parsing every record, labelling it, finding its links and operator impact)
is the costliest step a build takes before it knows what changed. Forked workers share it, and
each sends back only the compact ``SiteCommit``s: the parent never holds a parsed record, so its
memory is the summaries' (parsing's garbage stays in the workers, which exit). What the previous
build made of a record whose stored text is unchanged is taken from its kept summaries
(site.summaries), so a build after one new day parses that day's records only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from zoneinfo import ZoneInfo

from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import LanguageCode
from commit_digest.site.fingerprint import text_digest
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.index import SiteRepository, site_commits
from commit_digest.site.model.record_source import RecordSource
from commit_digest.site.model.summaries import Summaries
from commit_digest.site.model.wording import Wording
from commit_digest.site.parallel import batches_of, map_batches
from commit_digest.store.analysis_store import AnalysisStore


def read_site_commits(
    source: RecordSource,
    *,
    repositories: Sequence[SiteRepository],
    zone: ZoneInfo,
    taxonomy: Taxonomy,
    language: LanguageCode,
    workers: int,
    summaries: Summaries | None = None,
) -> list[SiteCommit]:
    """Every stored commit of ``repositories`` as the site shows it (in no set order). A record
    whose stored text the ``summaries`` know is taken from there; the others are read by
    ``workers`` processes, and ``summaries`` learn them."""
    summaries = Summaries() if summaries is None else summaries
    wording = Wording(language, taxonomy)
    found: list[SiteCommit] = []
    with AnalysisStore(source.directory) as store:
        keys = [(repository.name, sha) for repository in repositories for sha in store.shas(repository.name)]
        if len(summaries):
            unknown = []
            for key in keys:
                text = store.record_text(*key)
                if text is None:
                    continue  # removed while we read
                kept = summaries.commit(text_digest(text), wording, source)
                if kept is None:
                    unknown.append(key)
                else:
                    found.append(kept)
            keys = unknown
        summaries.forget_unasked()
    batches = batches_of(len(keys), workers, per_worker=1)

    def read(number: int) -> list[tuple[str, SiteCommit]]:
        read_here: list[tuple[str, SiteCommit]] = []
        with AnalysisStore(source.directory) as store:
            for position in batches[number]:
                repository, sha = keys[position]
                text = store.record_text(repository, sha)
                if text is None:
                    continue
                record = store.parse_record(repository, sha, text)
                for item in site_commits(
                    [record], repositories=repositories, zone=zone, taxonomy=taxonomy, wording=None, source=source
                ):
                    # Sent back without what belongs to this process: the parent attaches its own.
                    read_here.append((text_digest(text), dataclasses.replace(item, wording=None, source=None)))
        return read_here

    for read_there in map_batches(read, len(batches), workers=workers):
        for stored, item in read_there:
            summaries.add(stored, item)
            found.append(dataclasses.replace(item, wording=wording, source=source))
    return found
