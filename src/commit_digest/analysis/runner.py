"""Running an analyzer over the store: which commits, how many at once, progress, writes.

Each result is merged into the store as soon as it arrives (on the calling thread; the
workers only talk to the endpoint), so an interrupted run keeps everything finished so
far, and the merge rule keeps an ok analysis when a newer attempt failed (the failure
goes into ``CommitRecord.failure`` for the site to mention).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import date
from zoneinfo import ZoneInfo

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from commit_digest.analysis.base import Analyzer
from commit_digest.analysis.prompt import PROMPT_VERSION
from commit_digest.models import SCHEMA_VERSION, Analysis, AnalysisStatus, CommitRecord, TokenUsage
from commit_digest.store import AnalysisStore


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


def select_records(
    records: Iterable[CommitRecord],
    *,
    analyzer_name: str,
    zone: ZoneInfo,
    since: date | None = None,
    until: date | None = None,
    limit: int | None = None,
    reanalyze: bool = False,
    exclude: Collection[tuple[str, str]] = (),
) -> list[CommitRecord]:
    """The records to analyse, newest first: not current (or all with ``reanalyze``) within the days."""
    chosen = []
    for record in records:
        day = record.commit.day(zone)
        if (since is not None and day < since) or (until is not None and day > until):
            continue
        if record.key in exclude and not reanalyze:
            continue
        if reanalyze or not is_current(record.analysis, analyzer_name):
            chosen.append(record)
    chosen.sort(key=lambda record: record.commit.committed_at, reverse=True)
    return chosen[:limit] if limit is not None else chosen


@dataclass
class RunSummary:
    selected: int = 0
    by_status: dict[AnalysisStatus, int] = field(default_factory=dict)
    usage: TokenUsage = field(default_factory=TokenUsage)
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)  # "<sha>: <status>: <reason>", for the end of the run

    def count(self, status: AnalysisStatus) -> int:
        return self.by_status.get(status, 0)

    @property
    def all_ok(self) -> bool:
        return self.count(AnalysisStatus.OK) == self.selected

    def add(self, record: CommitRecord, analysis: Analysis) -> None:
        status = analysis.provenance.status
        self.by_status[status] = self.count(status) + 1
        used = analysis.provenance.usage or TokenUsage()
        self.usage = TokenUsage(
            prompt_tokens=self.usage.prompt_tokens + used.prompt_tokens,
            completion_tokens=self.usage.completion_tokens + used.completion_tokens,
            cached_tokens=self.usage.cached_tokens + used.cached_tokens,
        )
        if status is not AnalysisStatus.OK:
            self.problems.append(f"{record.commit.short_sha}: {status.value}: {analysis.provenance.error}")

    def lines(self) -> list[str]:
        counts = ", ".join(
            f"{status.value} {self.count(status)}" for status in AnalysisStatus if self.count(status)
        )
        return [
            f"analysed {self.selected} commits in {self.seconds:.1f} s: {counts or 'nothing to do'}",
            f"tokens: prompt {self.usage.prompt_tokens} (cached {self.usage.cached_tokens}), "
            f"completion {self.usage.completion_tokens}",
            *self.problems,
        ]


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]analysing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("failed {task.fields[failed]}"),
        TextColumn("tokens {task.fields[tokens]}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def run_analysis(
    store: AnalysisStore,
    analyzer: Analyzer,
    records: list[CommitRecord],
    *,
    concurrency: int,
    console: Console | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> RunSummary:
    """Analyses ``records`` with up to ``concurrency`` requests in flight; merges each result."""
    summary = RunSummary(selected=len(records))
    started = clock()
    console = console or Console(stderr=True)
    with _progress(console) as progress, ThreadPoolExecutor(max_workers=concurrency) as pool:
        task = progress.add_task("analyse", total=len(records), failed=0, tokens=0)
        futures: dict[Future[Analysis], CommitRecord] = {
            pool.submit(analyzer.analyze, record.commit): record for record in records
        }
        try:
            for future in as_completed(futures):
                record = futures[future]
                analysis = future.result()
                store.merge(CommitRecord(commit=record.commit, analysis=analysis))
                summary.add(record, analysis)
                progress.update(
                    task,
                    advance=1,
                    failed=summary.selected
                    and sum(summary.by_status.values()) - summary.count(AnalysisStatus.OK),
                    tokens=summary.usage.prompt_tokens + summary.usage.completion_tokens,
                )
        except BaseException:
            # Ctrl-C or a bug: stop queued work; what finished is already stored.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    summary.seconds = clock() - started
    return summary
