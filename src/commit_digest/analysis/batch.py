"""Backfills through the provider's Batch API (about half the price, answers within 24 h).

``submit`` writes one request line per commit (the same body a direct call sends), uploads
it, starts a batch, marks each commit pending and remembers the batch in the store's meta.
``collect`` reads finished batches: each line becomes an analysis exactly as a direct
reply would (same validation); failed, expired or missing lines are stored as failed, so
the next ``analyze`` (direct or batch) queues them again. A batch cannot retry inside
itself, so a cut-off or invalid line is a failure here and is retried by the next run.

``start_batch``, ``batch_results`` and ``reply_of_line`` are the mechanics ``translate_batch``
shares.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from commit_digest import stopping
from commit_digest.analysis.llm_analyzer import LlmAnalyzer, utc_now
from commit_digest.analysis.llm_client import BATCH_ENDPOINT, BatchState, LlmClient
from commit_digest.analysis.llm_errors import InvalidReplyError
from commit_digest.analysis.llm_reply import ChatReply, reply_from_body
from commit_digest.analysis.prompt import PROMPT_VERSION
from commit_digest.models import Analysis, AnalysisStatus, CommitRecord, TokenUsage
from commit_digest.store.analysis_store import AnalysisStore

logger = logging.getLogger("mkdocs.plugins.commit_digest.llm")

BATCHES_META = "llm-batches"
MAX_LINES_PER_BATCH = 50_000  # the Batch API's limit per input file


def open_batches(store: AnalysisStore) -> dict[str, dict[str, object]]:
    value = store.get_meta(BATCHES_META)
    return dict(value) if isinstance(value, dict) else {}


def commits_in_open_batches(store: AnalysisStore) -> set[tuple[str, str]]:
    keys: set[tuple[str, str]] = set()
    for batch in open_batches(store).values():
        commits = batch.get("commits") if isinstance(batch, dict) else None
        for custom_id in commits or ():
            keys.add(split_custom_id(str(custom_id)))
    return keys


def custom_id_of(record: CommitRecord) -> str:
    return f"{record.commit.repository}@{record.commit.sha}"


def split_custom_id(custom_id: str) -> tuple[str, str]:
    repository, _, sha = custom_id.rpartition("@")
    return repository, sha


@dataclass
class BatchReport:
    submitted: dict[str, int] = field(default_factory=dict)  # batch id -> lines
    still_running: dict[str, str] = field(default_factory=dict)  # batch id -> status
    by_status: dict[AnalysisStatus, int] = field(default_factory=dict)
    usage: TokenUsage = field(default_factory=TokenUsage)
    problems: list[str] = field(default_factory=list)  # "<sha>: <what went wrong>", listed last

    def count(self, analysis: Analysis) -> None:
        self.tally(analysis.provenance.status, analysis.provenance.usage)

    def tally(self, status: AnalysisStatus, used: TokenUsage | None) -> None:
        self.by_status[status] = self.by_status.get(status, 0) + 1
        self.usage += used or TokenUsage()

    def lines(self) -> list[str]:
        out = [
            f"submitted batch {batch_id} with {count} commits" for batch_id, count in self.submitted.items()
        ]
        out += [f"batch {batch_id} is still {status}" for batch_id, status in self.still_running.items()]
        if self.by_status:
            counts = ", ".join(f"{status.value} {number}" for status, number in self.by_status.items())
            out.append(
                f"collected: {counts}; tokens: prompt {self.usage.prompt_tokens}, "
                f"completion {self.usage.completion_tokens}"
            )
        out += self.problems
        return out or ["nothing to do"]


def start_batch(
    client: LlmClient, requests: list[tuple[str, dict[str, object]]], *, file_name: str, metadata: dict[str, str]
) -> tuple[BatchState, str]:
    """Uploads one line per (custom id, request body) and starts a batch; its state and input file."""
    lines = [
        json.dumps({"custom_id": custom_id, "method": "POST", "url": BATCH_ENDPOINT, "body": body}, ensure_ascii=False)
        for custom_id, body in requests
    ]
    file_id = client.upload_batch_file(("\n".join(lines) + "\n").encode("utf-8"), file_name)
    return client.create_batch(file_id, metadata), file_id


def remember_batch(
    store: AnalysisStore,
    meta_key: str,
    started: tuple[BatchState, str],
    *,
    model: str,
    prompt_version: str,
    submitted_at: datetime,
    **lines: object,
) -> None:
    """Keeps an open batch in the store's metadata under ``meta_key`` (what collect reads back):
    its input file, model, prompt version, time, and what its lines are for (``lines``)."""
    state, file_id = started
    batches = store.get_meta(meta_key)
    batches = dict(batches) if isinstance(batches, dict) else {}
    batches[state.id] = {
        "input_file_id": file_id,
        "model": model,
        "prompt_version": prompt_version,
        "submitted_at": submitted_at.isoformat(),
        **lines,
    }
    store.set_meta(meta_key, batches)


def submit(
    store: AnalysisStore,
    analyzer: LlmAnalyzer,
    client: LlmClient,
    records: list[CommitRecord],
    *,
    clock: Callable[[], datetime] = utc_now,
) -> BatchReport:
    report = BatchReport()
    records = records[:MAX_LINES_PER_BATCH]
    if not records or stopping.stop_requested():
        return report
    requests = [(custom_id_of(record), analyzer.request_body(analyzer.prompt_for(record.commit))) for record in records]
    started = start_batch(
        client,
        requests,
        file_name="commit-digest-batch.jsonl",
        metadata={"tool": "commit-digest", "prompt_version": PROMPT_VERSION},
    )
    state = started[0]
    submitted_at = clock()
    remember_batch(
        store,
        BATCHES_META,
        started,
        model=client.settings.model,
        prompt_version=PROMPT_VERSION,
        submitted_at=submitted_at,
        language=analyzer.language,
        commits=[custom_id_of(record) for record in records],
    )
    for record in records:
        pending = analyzer.unsuccessful(
            record.commit,
            AnalysisStatus.PENDING,
            f"waiting for batch {state.id} (submitted {submitted_at:%Y-%m-%d %H:%M} UTC)",
            TokenUsage(),
        )
        store.merge(CommitRecord(commit=record.commit, analysis=pending))
    report.submitted[state.id] = len(records)
    logger.info("submitted batch %s with %s commits", state.id, len(records))
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


def _analysis_of_line(analyzer: LlmAnalyzer, record: CommitRecord, line: dict[str, object]) -> Analysis:
    reply = reply_of_line(line)
    if isinstance(reply, str):
        return analyzer.unsuccessful(record.commit, AnalysisStatus.FAILED, reply, TokenUsage())
    verdict = analyzer.judge(reply)
    if verdict.value is not None:
        return analyzer.successful(record.commit, verdict.value, reply.usage)
    if verdict.refusal is not None:
        return analyzer.unsuccessful(
            record.commit, AnalysisStatus.REFUSED, f"the model refused: {verdict.refusal}", reply.usage
        )
    reason = "the reply was cut off at the output limit" if verdict.cut_off else verdict.invalid
    return analyzer.unsuccessful(
        record.commit, AnalysisStatus.FAILED, f"batch reply unusable: {reason}", reply.usage
    )


def collect(store: AnalysisStore, analyzer: LlmAnalyzer, client: LlmClient) -> BatchReport:
    report = BatchReport()
    batches = open_batches(store)
    for batch_id, info in list(batches.items()):
        if stopping.stop_requested():
            break  # each batch is collected whole or not at all: the rest wait for the next run
        state = client.batch_state(batch_id)
        if not state.finished:
            report.still_running[batch_id] = state.status
            continue
        results = batch_results(client, state)
        commits = info.get("commits") if isinstance(info, dict) else None
        for custom_id in commits or ():
            repository, sha = split_custom_id(str(custom_id))
            record = store.get(repository, sha)
            if record is None:
                continue  # deleted from the store since: nothing to attach the result to
            line = results.get(str(custom_id))
            if line is None:
                analysis = analyzer.unsuccessful(
                    record.commit,
                    AnalysisStatus.FAILED,
                    f"batch {batch_id} ended {state.status} without this commit",
                    TokenUsage(),
                )
            else:
                analysis = _analysis_of_line(analyzer, record, line)
            store.merge(CommitRecord(commit=record.commit, analysis=analysis))
            stopping.kept("analyses")
            report.count(analysis)
        del batches[batch_id]
        store.set_meta(BATCHES_META, batches)
        logger.info("collected batch %s (%s)", batch_id, state.status)
    return report
