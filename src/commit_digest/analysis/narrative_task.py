"""Writing a week's narrative on one platform as a paid task: written once, stored the moment it
arrives under ``narrative/<week>/<platform>``, replaced only when a rewrite is asked for."""

from __future__ import annotations

from datetime import datetime

from commit_digest.analysis.narration import NarrativeJob, NarrativeResult, NarrativeWriter
from commit_digest.analysis.task import Skipped, TaskWords
from commit_digest.store.analysis_store import AnalysisStore


def narrative_lease_name(week: str, platform: str) -> str:
    return f"narrative/{week}/{platform}"


class NarrateTask:
    """One (week, platform); ``started``: a narrative stored after it was written by another run of this one's kind."""

    words = TaskWords(verb="narrated", unit="weeks per platform", doing="narrating", kept="narratives", one="narrative")

    def __init__(self, writer: NarrativeWriter, *, rewrite: bool, started: datetime) -> None:
        self.writer = writer
        self.rewrite = rewrite
        self.started = started

    def name_of(self, item: NarrativeJob) -> str:
        return item.name

    def lease_name(self, item: NarrativeJob) -> str:
        return narrative_lease_name(*item.key)

    def recheck(self, store: AnalysisStore, item: NarrativeJob) -> NarrativeJob | Skipped:
        stored = store.narrative(*item.key)
        if stored is not None and (not self.rewrite or stored.provenance.created_at > self.started):
            return Skipped("written by another run meanwhile")
        return item

    def ask(self, item: NarrativeJob) -> NarrativeResult:
        return self.writer.write(item)

    def keep(self, store: AnalysisStore, item: NarrativeJob, outcome: NarrativeResult) -> bool:
        if outcome.value is None:
            return False
        store.put_narrative(outcome.value)
        return True

    def done_line(self, item: NarrativeJob, outcome: NarrativeResult) -> str | None:
        left_out = f" ({item.omitted} more left out)" if item.omitted else ""
        return f"{item.name}: written from {len(item.commits)} commits{left_out}"
