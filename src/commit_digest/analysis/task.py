"""What a paid task is: the one interface the pipeline (``pipeline``) and the Batch API
(``batches``) run analyses, translations, week narratives and day briefs through.

A task knows its items: what to call one in a line, the claim it takes before paying, whether
the store still wants it once claimed, how to ask for it (reading and judging the reply against
the quality floor, asking again where its rules say), and where its result goes. The pipeline
knows the rest, the same for every task: the pool, the claims, the stop signal, the full store,
the progress line and the run's summary. Each task is a small class over its writer, as each
model family is a small class in simonw/llm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from commit_digest.analysis.llm_reply import ChatReply
from commit_digest.analysis.servers.session import ChatRequest
from commit_digest.models import AnalysisStatus, TokenUsage
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.words import counted

ItemT = TypeVar("ItemT")
ValueT = TypeVar("ValueT")
R = TypeVar("R")


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """One paid item's result: the value to store (status ok, or an analysis stored whatever its
    status), or the reason there is none, and the tokens it cost."""

    status: AnalysisStatus
    usage: TokenUsage
    value: R | None = None
    error: str | None = None


@dataclass(frozen=True)
class Skipped:
    """An item left alone once claimed: another run holds it, or did it meanwhile."""

    reason: str


@dataclass(frozen=True)
class TaskWords:
    """How a run's lines name what it does: "analysed 3 of 5 commits" (``unit``, and ``unit_one``
    for a count of one: "1 commit"), a progress line "analysing", a stop that kept "analyses", a
    line about one "analysis"."""

    verb: str
    unit: str
    unit_one: str
    doing: str
    kept: str
    one: str

    def units(self, count: int) -> str:
        """``count`` items: "1 commit", "3 commits"."""
        return counted(count, self.unit_one, self.unit)


class PaidTask(Protocol[ItemT, ValueT]):
    """One kind of paid request. Every method but ``ask`` is quick and local; ``ask`` pays."""

    words: TaskWords

    def name_of(self, item: ItemT) -> str:
        """The item in a log or summary line: a short sha, "2026-W03 rocm"."""
        ...

    def lease_name(self, item: ItemT) -> str:
        """The claim held in the store while the item is paid for."""
        ...

    def recheck(self, store: AnalysisStore, item: ItemT) -> ItemT | Skipped:
        """The item as the store has it now it is claimed, or why it is no longer wanted."""
        ...

    def ask(self, item: ItemT) -> Outcome[ValueT]:
        """The paid request(s) for the item; faults come back as an outcome, never raised."""
        ...

    def keep(self, store: AnalysisStore, item: ItemT, outcome: Outcome[ValueT]) -> bool:
        """Stores what ``outcome`` holds the moment it arrives; True when something was stored."""
        ...

    def done_line(self, item: ItemT, outcome: Outcome[ValueT]) -> str | None:
        """A line for the run's summary about one stored result, or None (most tasks say nothing)."""
        ...


@dataclass(frozen=True)
class BatchSpec:
    """Where a task's open batches are remembered in the store's meta, and how they are named."""

    meta_key: str
    file_name: str
    prompt_version: str


class BatchTask(PaidTask[ItemT, ValueT], Protocol):
    """A task the provider's Batch API can run: the same request as a direct call, read the same way."""

    batch: BatchSpec

    def custom_id(self, item: ItemT) -> str: ...

    def request(self, item: ItemT) -> ChatRequest:
        """The request a direct call sends first; the batch line's body is made from it."""
        ...

    def remembered(self, items: list[ItemT]) -> dict[str, Any]:
        """What the store's meta keeps about a submitted batch's lines (what ``waiting`` reads back)."""
        ...

    def waiting(self, info: dict[str, Any]) -> dict[str, str]:
        """The custom ids an open batch holds, each with what was remembered of it."""
        ...

    def submitted(self, store: AnalysisStore, items: list[ItemT], note: str) -> None:
        """What the store shows of items waiting in a batch (``note`` says which and since when)."""
        ...

    def item_of(self, store: AnalysisStore, custom_id: str, remembered: str) -> ItemT | None:
        """The item a finished line answers, as the store has it now; None when there is nothing
        left to attach it to (deleted, replaced or done meanwhile)."""
        ...

    def line_outcome(self, item: ItemT, reply: ChatReply | str) -> Outcome[ValueT]:
        """What one line comes to: its reply judged as a direct reply is (no asking again inside a
        batch), or why the line holds none."""
        ...
