"""`translate --batch`: translations through the provider's Batch API, with analyze's mechanics.

``submit`` sends one line per (commit, language), the same body a direct request sends, and
remembers the batch in the store's meta with the identity of each analysis it translates, so
direct runs and later submits leave those translations alone while the batch is open.
``collect`` validates each line exactly as a direct reply and stores a good translation at once
into the analysis it was made from; a failed, expired, missing or invalid line stores nothing
and is reported, and the next run (direct or batch) asks for it again. A line whose analysis was
replaced meanwhile is dropped: it translates text the commit no longer shows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from commit_digest import stopping
from commit_digest.analysis.batch import (
    MAX_LINES_PER_BATCH,
    BatchReport,
    batch_results,
    custom_id_of,
    remember_batch,
    reply_of_line,
    split_custom_id,
    start_batch,
)
from commit_digest.analysis.llm_analyzer import utc_now
from commit_digest.analysis.llm_client import LlmClient
from commit_digest.analysis.translate_pass import Job, JobKey, missing_languages
from commit_digest.analysis.translation import TRANSLATE_PROMPT_VERSION, TranslationResult, Translator
from commit_digest.models import LANGUAGE_CODES, Analysis, AnalysisStatus, CommitRecord, LanguageCode, TokenUsage
from commit_digest.store.analysis_store import AnalysisStore

logger = logging.getLogger("mkdocs.plugins.commit_digest.llm")

TRANSLATE_BATCHES_META = "llm-translate-batches"


def open_translate_batches(store: AnalysisStore) -> dict[str, dict[str, object]]:
    value = store.get_meta(TRANSLATE_BATCHES_META)
    return dict(value) if isinstance(value, dict) else {}


def job_custom_id(job: Job) -> str:
    # A repository name has no colon: "en:owner/name@sha" splits back unambiguously.
    return f"{job.language}:{custom_id_of(job.record)}"


def split_job_custom_id(custom_id: str) -> JobKey | None:
    language, _, rest = custom_id.partition(":")
    if language not in LANGUAGE_CODES:
        return None
    repository, sha = split_custom_id(rest)
    return (repository, sha, language)  # type: ignore[return-value]


def analysis_identity(analysis: Analysis) -> str:
    """Which analysis a translation was made from: what the store's merge calls the same analysis."""
    provenance = analysis.provenance
    return f"{provenance.analyzer}|{provenance.created_at.isoformat()}|{provenance.language}"


def _translations(info: object) -> dict[str, str]:
    found = info.get("translations") if isinstance(info, dict) else None
    return {str(key): str(value) for key, value in found.items()} if isinstance(found, dict) else {}


def translations_in_open_batches(store: AnalysisStore) -> set[JobKey]:
    keys: set[JobKey] = set()
    for info in open_translate_batches(store).values():
        for custom_id in _translations(info):
            key = split_job_custom_id(custom_id)
            if key is not None:
                keys.add(key)
    return keys


def submit(
    store: AnalysisStore,
    translator: Translator,
    client: LlmClient,
    jobs: list[Job],
    *,
    clock: Callable[[], datetime] = utc_now,
) -> BatchReport:
    report = BatchReport()
    jobs = jobs[:MAX_LINES_PER_BATCH]
    if not jobs or stopping.stop_requested():
        return report
    requests = [
        (job_custom_id(job), translator.request_body(job.record.commit, job.analysis, job.language)) for job in jobs
    ]
    started = start_batch(
        client,
        requests,
        file_name="commit-digest-translate-batch.jsonl",
        metadata={"tool": "commit-digest", "prompt_version": TRANSLATE_PROMPT_VERSION},
    )
    state = started[0]
    remember_batch(
        store,
        TRANSLATE_BATCHES_META,
        started,
        model=client.settings.model,
        prompt_version=TRANSLATE_PROMPT_VERSION,
        submitted_at=clock(),
        translations={job_custom_id(job): analysis_identity(job.analysis) for job in jobs},
    )
    report.submitted[state.id] = len(jobs)
    logger.info("submitted translation batch %s with %s translations", state.id, len(jobs))
    return report


def _result_of_line(
    translator: Translator, analysis: Analysis, language: LanguageCode, line: dict[str, object] | None, ended: str
) -> TranslationResult:
    if line is None:
        return TranslationResult(AnalysisStatus.FAILED, TokenUsage(), error=f"the batch ended {ended} without it")
    reply = reply_of_line(line)
    if isinstance(reply, str):
        return TranslationResult(AnalysisStatus.FAILED, TokenUsage(), error=reply)
    # No asking again inside a batch: an invalid line is a failure, retried by the next run.
    return translator.result(translator.judge(reply, analysis.text(), language), language, reply.usage)


def collect(store: AnalysisStore, translator: Translator, client: LlmClient) -> BatchReport:
    report = BatchReport()
    batches = open_translate_batches(store)
    for batch_id, info in list(batches.items()):
        if stopping.stop_requested():
            break  # each batch is collected whole or not at all: the rest wait for the next run
        state = client.batch_state(batch_id)
        if not state.finished:
            report.still_running[batch_id] = state.status
            continue
        results = batch_results(client, state)
        for custom_id, source in _translations(info).items():
            key = split_job_custom_id(custom_id)
            record = store.get(key[0], key[1]) if key is not None else None
            if key is None or record is None or record.analysis is None:
                continue  # deleted from the store since: nothing to attach the result to
            language = key[2]
            analysis = record.analysis
            if analysis_identity(analysis) != source or not missing_languages(analysis, (language,)):
                continue  # replaced or translated meanwhile: the next run sees what is left
            result = _result_of_line(translator, analysis, language, results.get(custom_id), state.status)
            if result.value is not None:
                translated = analysis.with_translation(language, result.value)
                store.merge(CommitRecord(commit=record.commit, analysis=translated))
                stopping.kept("translations")
            else:
                problem = f"into {language}: {result.status.value}: {result.error}"
                report.problems.append(f"{record.commit.short_sha}: {problem}")
            report.tally(result.status, result.usage)
        del batches[batch_id]
        store.set_meta(TRANSLATE_BATCHES_META, batches)
        logger.info("collected translation batch %s (%s)", batch_id, state.status)
    return report
