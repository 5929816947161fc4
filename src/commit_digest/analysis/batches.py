"""Any batch task through the provider's Batch API (about half the price, answers within 24 h).

``submit`` writes one line per item (the body made from the same ``ChatRequest`` a direct call
sends first), uploads it, starts a batch and remembers it in the store's meta under the task's
key, with what the task keeps about its lines. ``collect`` reads finished batches: each line the
task still wants is judged exactly as a direct reply is and stored at once, like the pipeline's
worker stores it; a stop signal leaves the batches not yet read for the next run (each batch is
collected whole or not at all). A batch cannot ask again inside itself: a cut-off or invalid line
is a failure here, asked again by the next run.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from commit_digest import stopping
from commit_digest.analysis.llm_client import BATCH_ENDPOINT, BatchState, LlmClient
from commit_digest.analysis.llm_errors import InvalidReplyError
from commit_digest.analysis.llm_reply import ChatReply, reply_from_body
from commit_digest.analysis.task import BatchSpec, BatchTask, Outcome, TaskWords
from commit_digest.models import AnalysisStatus, TokenUsage
from commit_digest.store.analysis_store import AnalysisStore

logger = logging.getLogger("mkdocs.plugins.commit_digest.llm")

MAX_LINES_PER_BATCH = 50_000  # the Batch API's limit per input file

ItemT = TypeVar("ItemT")
ValueT = TypeVar("ValueT")


def open_batches(store: AnalysisStore, meta_key: str) -> dict[str, dict[str, Any]]:
    value = store.get_meta(meta_key)
    return {str(key): info for key, info in value.items() if isinstance(info, dict)} if isinstance(value, dict) else {}


def waiting_ids(store: AnalysisStore, spec: BatchSpec, waiting: Callable[[dict[str, Any]], dict[str, str]]) -> set[str]:
    """The custom ids of every line waiting in an open batch of a task (``spec``, its ``waiting``)."""
    return {custom_id for info in open_batches(store, spec.meta_key).values() for custom_id in waiting(info)}


@dataclass
class BatchReport:
    words: TaskWords  # its units name what a batch holds: "1 commit", "3 analyses"
    submitted: dict[str, int] = field(default_factory=dict)  # batch id -> lines
    still_running: dict[str, str] = field(default_factory=dict)  # batch id -> status
    by_status: dict[AnalysisStatus, int] = field(default_factory=dict)
    usage: TokenUsage = field(default_factory=TokenUsage)
    kept: int = 0
    problems: list[str] = field(default_factory=list)  # "<item>: <status>: <why>", listed last

    def tally(self, status: AnalysisStatus, used: TokenUsage | None) -> None:
        self.by_status[status] = self.by_status.get(status, 0) + 1
        self.usage += used or TokenUsage()

    def lines(self) -> list[str]:
        out = [
            f"submitted batch {batch_id} with {self.words.units(count)}" for batch_id, count in self.submitted.items()
        ]
        out += [f"batch {batch_id} is still {status}" for batch_id, status in self.still_running.items()]
        if self.by_status:
            counts = ", ".join(f"{number} {status.value}" for status, number in self.by_status.items())
            out.append(
                f"collected: {counts}; tokens: prompt {self.usage.prompt_tokens}, "
                f"completion {self.usage.completion_tokens}"
            )
        out += self.problems
        return out or ["nothing to do"]


def submit(
    store: AnalysisStore,
    task: BatchTask[ItemT, ValueT],
    client: LlmClient,
    items: list[ItemT],
    *,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> BatchReport:
    report = BatchReport(task.words)
    items = items[:MAX_LINES_PER_BATCH]
    if not items or stopping.stop_requested():
        return report
    lines = []
    for item in items:
        request = task.request(item)
        body = client.chat_body(
            request.system, request.user, schema=request.schema, max_output_tokens=request.max_output_tokens
        )
        line = {"custom_id": task.custom_id(item), "method": "POST", "url": BATCH_ENDPOINT, "body": body}
        lines.append(json.dumps(line, ensure_ascii=False))
    spec = task.batch
    file_id = client.upload_batch_file(("\n".join(lines) + "\n").encode("utf-8"), spec.file_name)
    state = client.create_batch(file_id, {"tool": "commit-digest", "prompt_version": spec.prompt_version})
    submitted_at = clock()
    batches = open_batches(store, spec.meta_key)
    batches[state.id] = {
        "input_file_id": file_id,
        "model": client.settings.model,
        "prompt_version": spec.prompt_version,
        "submitted_at": submitted_at.isoformat(),
        **task.remembered(items),
    }
    store.set_meta(spec.meta_key, batches)
    task.submitted(store, items, f"waiting for batch {state.id} (submitted {submitted_at:%Y-%m-%d %H:%M} UTC)")
    report.submitted[state.id] = len(items)
    logger.info("submitted batch %s with %s", state.id, task.words.units(len(items)))
    return report


def collect(store: AnalysisStore, task: BatchTask[ItemT, ValueT], client: LlmClient) -> BatchReport:
    report = BatchReport(task.words)
    spec = task.batch
    batches = open_batches(store, spec.meta_key)
    for batch_id, info in list(batches.items()):
        if stopping.stop_requested():
            break  # each batch is collected whole or not at all: the rest wait for the next run
        state = client.batch_state(batch_id)
        if not state.finished:
            report.still_running[batch_id] = state.status
            continue
        results = batch_results(client, state)
        for custom_id, remembered in task.waiting(info).items():
            item = task.item_of(store, custom_id, remembered)
            if item is None:
                continue  # deleted, replaced or done since: nothing to attach the line to
            line = results.get(custom_id)
            outcome: Outcome[ValueT] = task.line_outcome(
                item, reply_of_line(line) if line is not None else f"batch {batch_id} ended {state.status} without it"
            )
            if task.keep(store, item, outcome):
                stopping.kept(task.words.one, task.words.kept)
            if outcome.status is not AnalysisStatus.OK:
                report.problems.append(f"{task.name_of(item)}: {outcome.status.value}: {outcome.error}")
            report.tally(outcome.status, outcome.usage)
        del batches[batch_id]
        store.set_meta(spec.meta_key, batches)
        logger.info("collected batch %s (%s)", batch_id, state.status)
    return report


def _lines(text: str) -> list[dict[str, object]]:
    parsed = []
    for line in text.splitlines():
        if line.strip():
            try:
                parsed.append(json.loads(line))
            except json.JSONDecodeError:
                logger.warning("skipping a batch result line that is not JSON")
    return parsed


def reply_of_line(line: dict[str, object]) -> ChatReply | str:
    """The chat reply in one result line, or why the line holds none."""
    response = line.get("response") if isinstance(line.get("response"), dict) else None
    line_error = line.get("error")
    if response is None or response.get("status_code") != 200:  # type: ignore[union-attr]
        status = response.get("status_code") if response else None  # type: ignore[union-attr]
        reason = json.dumps(line_error or (response or {}).get("body"), ensure_ascii=False)[:500]  # type: ignore[union-attr]
        return f"batch line failed (HTTP {status}): {reason}"
    try:
        return reply_from_body(response.get("body"))  # type: ignore[union-attr]
    except InvalidReplyError as error:
        return str(error)


def batch_results(client: LlmClient, state: BatchState) -> dict[str, dict[str, object]]:
    """The result lines of a finished batch (output and error files), by custom id."""
    results: dict[str, dict[str, object]] = {}
    for file_id in (state.output_file_id, state.error_file_id):
        if file_id:
            for line in _lines(client.file_text(file_id)):
                results[str(line.get("custom_id"))] = line
    return results
