"""Gives every stored commit that has no analysis an offline one (never replacing a better one)."""

from __future__ import annotations

from dataclasses import dataclass

from commit_digest.analysis.offline import OfflineAnalyzer
from commit_digest.models import CommitRecord
from commit_digest.store import AnalysisStore


@dataclass(frozen=True)
class OfflinePassResult:
    analysed: int
    kept: int


def analyse_offline(
    store: AnalysisStore, analyzer: OfflineAnalyzer, repository: str | None = None
) -> OfflinePassResult:
    """Offline analyses for records that lack an ok one; LLM and legacy analyses are kept as they are."""
    analysed = kept = 0
    for record in list(store.records(repository)):
        if record.analysis is not None and record.analysis.ok:
            kept += 1
            continue
        store.merge(CommitRecord(commit=record.commit, analysis=analyzer.analyze(record.commit)))
        analysed += 1
    return OfflinePassResult(analysed=analysed, kept=kept)
