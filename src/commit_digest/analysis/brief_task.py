"""Writing a day's brief as a paid task: stored the moment it arrives under
``brief/<day>/<platform>``, asked again only when the day's analyses it covers change (its
``inputs`` fingerprint no longer matches), a language of the site is missing, or a rewrite is asked for."""

from __future__ import annotations

from commit_digest.analysis.briefing import BriefJob
from commit_digest.analysis.task import Skipped, TaskWords
from commit_digest.analysis.written_task import WrittenTask
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.briefs import DayBrief


def brief_lease_name(day: str, platform: str) -> str:
    return f"{BriefTask.lease_prefix}/{day}/{platform}"


def brief_is_current(stored: DayBrief | None, inputs: str, languages: tuple[str, ...]) -> bool:
    """Whether ``stored`` was written from these analyses (``inputs``) in every one of ``languages``."""
    return stored is not None and stored.inputs == inputs and all(code in stored.texts for code in languages)


class BriefTask(WrittenTask[BriefJob, DayBrief]):
    """One (day, platform or the whole day)."""

    words = TaskWords(
        verb="briefed",
        unit="days per platform",
        unit_one="day per platform",
        doing="briefing",
        kept="briefs",
        one="brief",
    )
    lease_prefix = "brief"

    def recheck(self, store: AnalysisStore, item: BriefJob) -> BriefJob | Skipped:
        stored = store.brief(*item.key)
        if stored is not None and stored.provenance.created_at > self.started:
            return Skipped("written by another run meanwhile")
        if not self.rewrite and brief_is_current(stored, item.inputs, item.languages):
            return Skipped("written by another run meanwhile")
        return item

    def put(self, store: AnalysisStore, value: DayBrief) -> None:
        store.put_brief(value)
