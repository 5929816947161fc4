"""Writing a week's narrative on one platform as a paid task: written once, stored the moment it
arrives under ``narrative/<week>/<platform>``, replaced only when a rewrite is asked for."""

from __future__ import annotations

from commit_digest.analysis.narration import NarrativeJob
from commit_digest.analysis.task import Skipped, TaskWords
from commit_digest.analysis.written_task import WrittenTask
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.narratives import WeekNarrative


def narrative_lease_name(week: str, platform: str) -> str:
    return f"{NarrateTask.lease_prefix}/{week}/{platform}"


class NarrateTask(WrittenTask[NarrativeJob, WeekNarrative]):
    """One (week, platform)."""

    words = TaskWords(
        verb="narrated",
        unit="weeks per platform",
        unit_one="week per platform",
        doing="narrating",
        kept="narratives",
        one="narrative",
    )
    lease_prefix = "narrative"

    def recheck(self, store: AnalysisStore, item: NarrativeJob) -> NarrativeJob | Skipped:
        stored = store.narrative(*item.key)
        if stored is not None and (not self.rewrite or stored.provenance.created_at > self.started):
            return Skipped("written by another run meanwhile")
        return item

    def put(self, store: AnalysisStore, value: WeekNarrative) -> None:
        store.put_narrative(value)
