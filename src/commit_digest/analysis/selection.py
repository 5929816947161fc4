"""Which stored commits a run considers: the days asked for, the newest first, those without a
current analysis (all of them when reanalysing), up to a limit. The pipeline runs what is chosen."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from datetime import date
from zoneinfo import ZoneInfo

from commit_digest.analysis.prompt import PROMPT_VERSION
from commit_digest.models import SCHEMA_VERSION, Analysis, CommitRecord

IsDone = Callable[[Analysis | None], bool]


def is_current(analysis: Analysis | None, analyzer_name: str) -> bool:
    """An ok analysis by this analyzer with the current prompt and schema: nothing to redo."""
    if analysis is None or not analysis.ok:
        return False
    provenance = analysis.provenance
    return (
        provenance.analyzer == analyzer_name
        and provenance.prompt_version == PROMPT_VERSION
        and provenance.schema_version == SCHEMA_VERSION
    )


def current_for(analyzer_name: str) -> IsDone:
    return lambda analysis: is_current(analysis, analyzer_name)


@dataclass(frozen=True)
class Selection:
    """Which stored commits a run considers."""

    zone: ZoneInfo  # the site's, in which commits fall on days
    repository: str | None = None
    since: date | None = None
    until: date | None = None
    limit: int | None = None  # the newest ``limit`` of those that need an analysis
    reanalyze: bool = False


def select_records(
    records: Iterable[CommitRecord],
    *,
    is_done: IsDone,
    selection: Selection,
    exclude: Collection[tuple[str, str]] = (),
) -> list[CommitRecord]:
    """The records to analyse, newest first: not done (or all with ``reanalyze``) within the days.

    ``exclude``: commits waiting in a batch, left out unless reanalysing."""
    since, until, reanalyze = selection.since, selection.until, selection.reanalyze
    chosen = []
    for record in records:
        day = record.commit.day(selection.zone)
        if (since is not None and day < since) or (until is not None and day > until):
            continue
        if record.key in exclude and not reanalyze:
            continue
        if reanalyze or not is_done(record.analysis):
            chosen.append(record)
    chosen.sort(key=lambda record: record.commit.committed_at, reverse=True)
    return chosen[: selection.limit] if selection.limit is not None else chosen
