"""Which analysis wins when two records of the same commit meet (import, re-fetch, analyse).

Paid-for work is never thrown away: a successful LLM analysis is only replaced by another
successful LLM analysis that is newer, or by anything when forced.
"""

from __future__ import annotations

from commit_digest.models import Analysis, CommitRecord, Provenance


def _rank(analysis: Analysis) -> tuple[int, int]:
    """Higher is more valuable: (ok before not ok, llm before legacy before offline)."""
    provenance = analysis.provenance
    if provenance.is_llm:
        kind = 3
    elif provenance.is_legacy:
        kind = 2
    else:
        kind = 1
    return (1 if analysis.ok else 0, kind)


def preferred_analysis(existing: Analysis | None, incoming: Analysis | None, *, force: bool = False) -> Analysis | None:
    if incoming is None:
        return existing
    if existing is None or force:
        return incoming
    if _same_analysis(existing, incoming):
        # One analysis met again with more wordings (a translation, an import): keep every one.
        return existing.model_copy(update={"translations": {**existing.translations, **incoming.translations}})
    rank_existing, rank_incoming = _rank(existing), _rank(incoming)
    if rank_incoming != rank_existing:
        return incoming if rank_incoming > rank_existing else existing
    if incoming.provenance.created_at > existing.provenance.created_at:
        return incoming
    return existing


def _same_analysis(first: Analysis, second: Analysis) -> bool:
    one, other = first.provenance, second.provenance
    return (one.analyzer, one.created_at, one.language, one.status) == (
        other.analyzer,
        other.created_at,
        other.language,
        other.status,
    )


def merge_records(existing: CommitRecord | None, incoming: CommitRecord, *, force: bool = False) -> CommitRecord:
    """The record to store: commit facts from the richer side, the preferred analysis."""
    if existing is None:
        return incoming
    commit = incoming.commit if _richness(incoming) >= _richness(existing) else existing.commit
    analysis = preferred_analysis(existing.analysis, incoming.analysis, force=force)
    return CommitRecord(commit=commit, analysis=analysis, failure=_open_failure(analysis, existing, incoming))


def _open_failure(winner: Analysis | None, *records: CommitRecord) -> Provenance | None:
    """The newest unsuccessful attempt that is younger than the analysis kept, if any."""
    attempts = [record.failure for record in records if record.failure is not None]
    attempts += [
        record.analysis.provenance
        for record in records
        if record.analysis is not None and not record.analysis.ok and record.analysis is not winner
    ]
    newest = max(attempts, key=lambda provenance: provenance.created_at, default=None)
    if newest is None or winner is None or not winner.ok:
        return None
    return newest if newest.created_at > winner.provenance.created_at else None


def _richness(record: CommitRecord) -> tuple[int, int, int]:
    """Prefer the copy of a commit that knows more (files, patches, PR text)."""
    commit = record.commit
    patches = sum(1 for change in commit.files if change.patch)
    return (len(commit.files), patches, 1 if commit.pull_request else 0)
