"""Each build's view of every commit (``SiteCommit`` without the record), kept beside its
manifest so the next build parses only the records that changed.

Parsing and labelling every record is what a build after one new day would otherwise spend most
of its time on, however few commits arrived. The summaries are kept by the digest of each
record's stored text, with the build's shared digest (code, configuration, taxonomy): a record
whose text changed is read again, and a change of code or configuration reads everything.
The file sits in the published site, so it is JSON, validated when read; anything wrong with it
costs only time (every record is read), never a page.
"""

from __future__ import annotations

import gzip
import logging
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import StringConstraints, TypeAdapter, ValidationError

from commit_digest.impact.extract import OperatorChange, OperatorImpact
from commit_digest.models import AnalysisStatus, LabelId, LabelSource, restored_label
from commit_digest.relations import CommitLinks
from commit_digest.site.incremental import MANIFEST_PATH
from commit_digest.site.model import CommitSummary, SiteCommit
from commit_digest.site.record_source import RecordSource
from commit_digest.site.wording import Wording

logger = logging.getLogger("mkdocs.plugins.commit_digest.summaries")

FORMAT = 1


_LabelRow = tuple[LabelId, LabelSource, Annotated[str, StringConstraints(max_length=300)]]
# One commit, as plain values: pydantic checks rows of these far faster than the same commits as
# nested models and dataclasses (0.11 s for 6,000 commits).
_Row = tuple[
    str,  # repository
    str,  # sha
    str,  # short sha
    str,  # title
    str,  # author name
    datetime,  # committed at
    str,  # web URL
    str | None,  # pull request URL
    int | None,  # pull request number
    bool,  # analysed
    str,  # group
    str | None,  # change type
    AnalysisStatus,
    datetime,  # local time
    tuple[_LabelRow, ...],  # platforms
    tuple[_LabelRow, ...],  # subsystems
    str,  # fingerprint
    CommitLinks.Parts,
    tuple[OperatorChange, ...] | None,  # the operator impact's changes; None: not found yet
    bool,  # the operator impact is partial
]


@dataclass(frozen=True)
class _Kept:
    format: int
    shared: str
    commits: dict[str, _Row]  # by the digest of the record's stored text


_ADAPTER = TypeAdapter(_Kept)
PATH = Path(MANIFEST_PATH).parent / "summaries.json.gz"


def _row(commit: SiteCommit) -> _Row:
    summary, impact = commit.summary, commit.impact
    return (
        summary.repository,
        summary.sha,
        summary.short_sha,
        summary.title,
        summary.author_name,
        summary.committed_at,
        summary.web_url,
        summary.pr_url,
        summary.pr_number,
        summary.analysed,
        summary.group,
        summary.change_type,
        summary.status,
        commit.local_time,
        tuple((label.id, label.source, label.reason) for label in commit.platforms),
        tuple((label.id, label.source, label.reason) for label in commit.subsystems),
        commit.fingerprint,
        commit.links.parts(),
        None if impact is None else impact.changes,
        impact is not None and impact.partial,
    )


def _site_commit(row: _Row, wording: Wording | None, source: RecordSource | None) -> SiteCommit:
    platforms, subsystems, fingerprint, links, changes, partial = row[14:]
    return SiteCommit(
        summary=CommitSummary(*row[:13]),
        local_time=row[13],
        platforms=tuple(restored_label(*label) for label in platforms),
        subsystems=tuple(restored_label(*label) for label in subsystems),
        fingerprint=fingerprint,
        wording=wording,
        source=source,
        links=CommitLinks.of_parts(links),
        impact=None if changes is None else _impact(changes, partial),
    )


@lru_cache(maxsize=4)
def _no_impact(partial: bool) -> OperatorImpact:
    return OperatorImpact(partial=partial)


def _impact(changes: tuple[OperatorChange, ...], partial: bool) -> OperatorImpact:
    # Most commits change nothing an operator sees: they share one object.
    return OperatorImpact(changes=changes, partial=partial) if changes else _no_impact(partial)


class Summaries:
    """The summaries of one build, by the digest of each record's stored text."""

    def __init__(self, rows: dict[str, _Row] | None = None) -> None:
        self._rows: dict[str, _Row] = rows or {}

    def __len__(self) -> int:
        return len(self._rows)

    def commit(self, text_digest: str, wording: Wording | None, source: RecordSource | None) -> SiteCommit | None:
        """The kept commit whose record's text has this digest, with this process's wording and source."""
        row = self._rows.get(text_digest)
        return None if row is None else _site_commit(row, wording, source)

    def add(self, text_digest: str, commit: SiteCommit) -> None:
        self._rows[text_digest] = _row(commit)

    def retain(self, text_digests: Collection[str]) -> None:
        """Forgets the records this build no longer has (replaced or removed)."""
        if len(text_digests) != len(self._rows):
            self._rows = {text: row for text, row in self._rows.items() if text in text_digests}

    def write(self, site_dir: Path, shared: str) -> None:
        path = site_dir / PATH
        path.parent.mkdir(parents=True, exist_ok=True)
        # Sorted: a build after a new day writes the same file as a build from nothing.
        content = _ADAPTER.dump_json(_Kept(FORMAT, shared, dict(sorted(self._rows.items()))))
        path.write_bytes(gzip.compress(content, compresslevel=1, mtime=0))


def recall_summaries(site_dir: Path | None, shared: str) -> Summaries:
    """The summaries the build published at ``site_dir`` kept, when it had the same shared
    inputs; none otherwise (and when the file is missing or unreadable)."""
    if site_dir is None:
        return Summaries()
    path = site_dir / PATH
    if not path.is_file():
        return Summaries()
    try:
        kept = _ADAPTER.validate_json(gzip.decompress(path.read_bytes()))
    except (OSError, EOFError, ValidationError) as error:
        logger.info("commit-digest: ignoring %s: %s", path, str(error).splitlines()[0])
        return Summaries()
    if kept.format != FORMAT or kept.shared != shared:
        return Summaries()
    return Summaries(kept.commits)
