"""The offline analyzer over the store: every commit without an ok analysis (and, when asked,
the offline analyses again), through the same pipeline, progress and summary as the LLM."""

from __future__ import annotations

import dataclasses

from rich.console import Console

from commit_digest.analysis.analyze_task import AnalyzeTask
from commit_digest.analysis.pipeline import PassSummary, run_task
from commit_digest.analysis.selection import Selection, select_records
from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.models import Analysis
from commit_digest.store.analysis_store import AnalysisStore


def analyse_offline(
    store: AnalysisStore, analyzer: OfflineAnalyzer, selection: Selection, *, console: Console | None = None
) -> PassSummary:
    """Offline analyses where no ok one is stored; LLM and legacy analyses are kept as they are."""

    def is_offline(analysis: Analysis | None) -> bool:
        return analysis is not None and analysis.provenance.analyzer == analyzer.name

    def is_done(analysis: Analysis | None) -> bool:
        return analysis is not None and analysis.ok and not (selection.reanalyze and is_offline(analysis))

    # ``is_done`` already says what --reanalyze redoes: never the LLM's or legacy analyses.
    records = select_records(
        store.records(selection.repository), is_done=is_done, selection=dataclasses.replace(selection, reanalyze=False)
    )
    # Free and CPU-bound: one thread and no claims. The offline result carries the commit's
    # own time, so only ``replace`` lets a redone analysis take the old one's place.
    task = AnalyzeTask(analyzer, is_done, replace=is_offline if selection.reanalyze else None)
    return run_task(store, task, records, concurrency=1, claims=None, console=console)
