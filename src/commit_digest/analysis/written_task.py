"""What a task writing one stored text per key holds (a week's narrative per platform, a day's brief
per platform): its writer, whether a rewrite was asked for, when the run started, and the lines it
says. The store's key and what "written already" means are each task's own."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from commit_digest.analysis.task import Outcome, TaskWords
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.words import counted


class Job(Protocol):
    @property
    def key(self) -> tuple[str, str]: ...

    @property
    def name(self) -> str: ...

    @property
    def commits(self) -> tuple[Any, ...]: ...

    @property
    def omitted(self) -> int: ...


class Writer(Protocol):
    def write(self, job: Any) -> Outcome[Any]: ...


JobT = TypeVar("JobT", bound=Job)
ValueT = TypeVar("ValueT")


class WrittenTask(Generic[JobT, ValueT]):
    """``started``: a text stored after it was written by another run of this one's kind."""

    words: TaskWords
    lease_prefix: str  # "narrative": claims are "narrative/<week>/<platform>"

    def __init__(self, writer: Writer, *, rewrite: bool, started: datetime) -> None:
        self.writer = writer
        self.rewrite = rewrite
        self.started = started

    def name_of(self, item: JobT) -> str:
        return item.name

    def lease_name(self, item: JobT) -> str:
        return f"{self.lease_prefix}/{item.key[0]}/{item.key[1]}"

    def ask(self, item: JobT) -> Outcome[ValueT]:
        return self.writer.write(item)

    def keep(self, store: AnalysisStore, item: JobT, outcome: Outcome[ValueT]) -> bool:
        if outcome.value is None:
            return False
        self.put(store, outcome.value)
        return True

    def put(self, store: AnalysisStore, value: ValueT) -> None:
        raise NotImplementedError

    def done_line(self, item: JobT, outcome: Outcome[ValueT]) -> str | None:
        left_out = f" ({item.omitted} more left out)" if item.omitted else ""
        return f"{item.name}: written from {counted(len(item.commits), 'commit', 'commits')}{left_out}"
