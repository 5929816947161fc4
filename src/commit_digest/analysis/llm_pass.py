"""The LLM analyzer over the store, as `analyze` and `nightly` run it: the commits without a
current analysis (not waiting in a batch), claimed one by one so concurrent runs pay once."""

from __future__ import annotations

from rich.console import Console

from commit_digest.analysis.analyze_task import LlmAnalyzeTask, commits_in_open_batches
from commit_digest.analysis.claims import Claims, lease_seconds
from commit_digest.analysis.llm_analyzer import LlmAnalyzer
from commit_digest.analysis.pipeline import PassSummary, run_task
from commit_digest.analysis.selection import Selection, current_for, select_records
from commit_digest.models import CommitRecord
from commit_digest.settings import LlmSettings
from commit_digest.store.analysis_store import AnalysisStore


def records_for_llm(store: AnalysisStore, analyzer: LlmAnalyzer, selection: Selection) -> list[CommitRecord]:
    return select_records(
        store.records(selection.repository),
        is_done=current_for(analyzer.name),
        selection=selection,
        exclude=commits_in_open_batches(store),
    )


def analyse_with_llm(
    store: AnalysisStore,
    analyzer: LlmAnalyzer,
    settings: LlmSettings,
    selection: Selection,
    *,
    console: Console | None = None,
    claims: Claims | None = None,
) -> PassSummary:
    records = records_for_llm(store, analyzer, selection)
    return run_task(
        store,
        LlmAnalyzeTask(analyzer, current_for(analyzer.name)),
        records,
        # The server is asked how many it serves at once only when there is something to ask.
        concurrency=analyzer.concurrency() if records else settings.concurrency,
        claims=claims or Claims(seconds=lease_seconds(settings)),
        console=console,
    )
