"""Writing a day's brief as a paid task: stored the moment it arrives under
``brief/<day>/<platform>``, asked again only when the day's analyses it covers change (its
``inputs`` fingerprint no longer matches), a language of the site is missing, or a rewrite is asked for."""

from __future__ import annotations

from datetime import datetime

from commit_digest.analysis.briefing import BriefJob, BriefResult, BriefWriter
from commit_digest.analysis.task import Skipped, TaskWords
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.briefs import DayBrief


def brief_lease_name(day: str, platform: str) -> str:
    return f"brief/{day}/{platform}"


def brief_is_current(stored: DayBrief | None, inputs: str, languages: tuple[str, ...]) -> bool:
    """Whether ``stored`` was written from these analyses (``inputs``) in every one of ``languages``."""
    return stored is not None and stored.inputs == inputs and all(code in stored.texts for code in languages)


class BriefTask:
    """One (day, platform); ``started``: a brief stored after it was written by another run of this one's kind."""

    words = TaskWords(verb="briefed", unit="days per platform", doing="briefing", kept="briefs", one="brief")

    def __init__(self, writer: BriefWriter, *, rewrite: bool, started: datetime) -> None:
        self.writer = writer
        self.rewrite = rewrite
        self.started = started

    def name_of(self, item: BriefJob) -> str:
        return item.name

    def lease_name(self, item: BriefJob) -> str:
        return brief_lease_name(*item.key)

    def recheck(self, store: AnalysisStore, item: BriefJob) -> BriefJob | Skipped:
        stored = store.brief(*item.key)
        if stored is not None and stored.provenance.created_at > self.started:
            return Skipped("written by another run meanwhile")
        if not self.rewrite and brief_is_current(stored, item.inputs, item.languages):
            return Skipped("written by another run meanwhile")
        return item

    def ask(self, item: BriefJob) -> BriefResult:
        return self.writer.write(item)

    def keep(self, store: AnalysisStore, item: BriefJob, outcome: BriefResult) -> bool:
        if outcome.value is None:
            return False
        store.put_brief(outcome.value)
        return True

    def done_line(self, item: BriefJob, outcome: BriefResult) -> str | None:
        left_out = f" ({item.omitted} more left out)" if item.omitted else ""
        return f"{item.name}: written from {len(item.commits)} commits{left_out}"
