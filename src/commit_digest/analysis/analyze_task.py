"""Analysing a commit as a paid task: a stored commit in, its analysis stored whatever its status
(a failed analysis is data: its commit gets a page marked so, and the next run asks again).

``AnalyzeTask`` runs any analyzer (the offline rules too, without claims: nothing is paid for);
``LlmAnalyzeTask`` adds what the Batch API needs. A batch's commits show as pending analyses until
it is collected, and direct runs leave them alone meanwhile.
"""

from __future__ import annotations

from typing import Any

from commit_digest.analysis.base import Analyzer
from commit_digest.analysis.batches import waiting_ids
from commit_digest.analysis.llm_analyzer import LlmAnalyzer
from commit_digest.analysis.llm_reply import ChatReply
from commit_digest.analysis.prompt import PROMPT_VERSION
from commit_digest.analysis.selection import IsDone
from commit_digest.analysis.servers.session import ChatRequest
from commit_digest.analysis.task import BatchSpec, Outcome, Skipped, TaskWords
from commit_digest.models import Analysis, AnalysisStatus, CommitRecord, TokenUsage
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.leases import lease_name

BATCHES_META = "llm-batches"
ANALYSE_WORDS = TaskWords(
    verb="analysed", unit="commits", unit_one="commit", doing="analysing", kept="analyses", one="analysis"
)


def outcome_of(analysis: Analysis) -> Outcome[Analysis]:
    provenance = analysis.provenance
    return Outcome(provenance.status, provenance.usage or TokenUsage(), analysis, provenance.error)


def custom_id_of(record: CommitRecord) -> str:
    return f"{record.commit.repository}@{record.commit.sha}"


def split_custom_id(custom_id: str) -> tuple[str, str]:
    repository, _, sha = custom_id.rpartition("@")
    return repository, sha


class AnalyzeTask:
    """One commit: its analysis by ``analyzer``, unless the store has one ``is_done`` accepts."""

    words = ANALYSE_WORDS

    def __init__(self, analyzer: Analyzer, is_done: IsDone, *, replace: IsDone | None = None) -> None:
        self.analyzer = analyzer
        self.is_done = is_done
        # Which stored analyses a new result replaces whatever the merge rule says.
        self.replace = replace

    def name_of(self, item: CommitRecord) -> str:
        return item.commit.short_sha

    def lease_name(self, item: CommitRecord) -> str:
        return lease_name(*item.key)

    def recheck(self, store: AnalysisStore, item: CommitRecord) -> CommitRecord | Skipped:
        stored = store.get(*item.key)
        if stored is None:
            return item
        if self.is_done(stored.analysis) and stored.analysis != item.analysis:
            return Skipped("analysed by another run meanwhile")
        return stored

    def ask(self, item: CommitRecord) -> Outcome[Analysis]:
        return outcome_of(self.analyzer.analyze(item.commit))

    def keep(self, store: AnalysisStore, item: CommitRecord, outcome: Outcome[Analysis]) -> bool:
        if outcome.value is None:
            return False
        store.merge(CommitRecord(commit=item.commit, analysis=outcome.value), replace=self.replace)
        return True

    def done_line(self, item: CommitRecord, outcome: Outcome[Analysis]) -> str | None:
        return None


class LlmAnalyzeTask(AnalyzeTask):
    """The LLM's analyses, directly or through the Batch API."""

    batch = BatchSpec(meta_key=BATCHES_META, file_name="commit-digest-batch.jsonl", prompt_version=PROMPT_VERSION)

    def __init__(self, analyzer: LlmAnalyzer, is_done: IsDone) -> None:
        super().__init__(analyzer, is_done)
        self.llm = analyzer

    def custom_id(self, item: CommitRecord) -> str:
        return custom_id_of(item)

    def request(self, item: CommitRecord) -> ChatRequest:
        return self.llm.chat_request(self.llm.prompt_for(item.commit))

    def remembered(self, items: list[CommitRecord]) -> dict[str, Any]:
        return {"language": self.llm.language, "commits": [custom_id_of(item) for item in items]}

    @staticmethod
    def waiting(info: dict[str, Any]) -> dict[str, str]:
        commits = info.get("commits")
        return {str(custom_id): "" for custom_id in commits} if isinstance(commits, list) else {}

    def submitted(self, store: AnalysisStore, items: list[CommitRecord], note: str) -> None:
        for item in items:
            pending = self.llm.unsuccessful(item.commit, AnalysisStatus.PENDING, note, TokenUsage())
            store.merge(CommitRecord(commit=item.commit, analysis=pending))

    def item_of(self, store: AnalysisStore, custom_id: str, remembered: str) -> CommitRecord | None:
        return store.get(*split_custom_id(custom_id))

    def line_outcome(self, item: CommitRecord, reply: ChatReply | str) -> Outcome[Analysis]:
        if isinstance(reply, str):
            return outcome_of(self.llm.unsuccessful(item.commit, AnalysisStatus.FAILED, reply, TokenUsage()))
        verdict = self.llm.judge(reply)
        return outcome_of(self.llm.final(item.commit, verdict, reply.usage, note="batch reply unusable"))


def commits_in_open_batches(store: AnalysisStore) -> set[tuple[str, str]]:
    """The commits waiting in an open analysis batch: direct runs and later submits leave them alone."""
    return {
        split_custom_id(custom_id) for custom_id in waiting_ids(store, LlmAnalyzeTask.batch, LlmAnalyzeTask.waiting)
    }
