"""The offline analysis beside a failed LLM attempt: a commit whose LLM analysis failed (or was
refused) and that has no ok analysis gets the offline one, so its page shows an analysis, marked
as offline, next to a note that the LLM analysis will be retried. The failed attempt stays in the
record (``failure``); its details are in the store (``show``) and the logs, never on a page.
"""

from __future__ import annotations

from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore


def offline_beside_failures(store: AnalysisStore, analyzer: OfflineAnalyzer, llm_name: str, repository: str) -> int:
    """Stores the offline analysis of every commit of ``repository`` whose current analysis is a
    failed or refused attempt by ``llm_name``; how many it stored. A later LLM run asks again
    (the offline analysis is not the LLM's) and its ok analysis replaces the offline one."""
    stored = 0
    for record in store.records(repository):
        analysis = record.analysis
        if analysis is None or analysis.ok or analysis.provenance.analyzer != llm_name:
            continue
        if store.merge(CommitRecord(commit=record.commit, analysis=analyzer.analyze(record.commit))):
            stored += 1
    return stored
