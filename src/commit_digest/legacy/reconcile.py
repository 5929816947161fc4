"""Placeholder commits of a legacy import meet their real commits after a fetch.

A legacy row without a sha is stored under a placeholder (see ``importer``). Once the real
commit is in the store, the placeholder's analysis is merged onto it (the usual preference
applies: it never replaces a better analysis) and the placeholder record is removed, so the
commit is listed once. Run after every fetch and every legacy import; it is cheap and a no-op
when nothing matches.
"""

from __future__ import annotations

import logging

from commit_digest.legacy.importer import find_real_commit, is_placeholder
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore

logger = logging.getLogger("mkdocs.plugins.commit_digest.legacy")


def reconcile_placeholders(store: AnalysisStore, repository: str) -> int:
    """Moves every placeholder onto its real commit; returns how many were moved."""
    records = list(store.records(repository))
    real = [record.commit for record in records if not is_placeholder(record.commit.sha)]
    moved = 0
    for record in records:
        if not is_placeholder(record.commit.sha):
            continue
        target = find_real_commit(record.commit, real)
        if target is None:
            continue
        store.merge(CommitRecord(commit=target, analysis=record.analysis, failure=record.failure))
        store.delete(repository, record.commit.sha)
        logger.info("legacy placeholder %s of %r is commit %s", record.commit.sha, target.title, target.sha)
        moved += 1
    return moved
