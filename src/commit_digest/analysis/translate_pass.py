"""`translate` over the store: every ok analysis (LLM or legacy; offline ones the site words itself)
that lacks one of the site's languages gets that wording from the LLM, stored the moment it arrives.

Each (commit, language) is claimed in the store before its request, under a name of its own
(``translate/<language>/<repository>/<sha>``), and the stored analysis is read again once
claimed: what another run is translating, or has translated since this run chose, is skipped,
so concurrent runs pay once. The translation is merged into the analysis it was made from; if a
newer analysis replaced that one meanwhile, the merge keeps the newer one without it, and the
next run translates that.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from rich.console import Console

from commit_digest import stopping
from commit_digest.analysis.claims import Claims, claimed, lease_seconds
from commit_digest.analysis.runner import (
    RunSummary,
    Selection,
    Skip,
    run_pool,
    select_records,
)
from commit_digest.analysis.translation import TranslationResult, Translator
from commit_digest.models import Analysis, CommitRecord, LanguageCode
from commit_digest.settings import LlmSettings
from commit_digest.store.analysis_store import AnalysisStore

logger = logging.getLogger("mkdocs.plugins.commit_digest.analysis")

OFFLINE_ANALYZER = "offline"
# (repository, sha, language): a translation waiting in a batch.
JobKey = tuple[str, str, LanguageCode]


def translation_lease_name(language: str, repository: str, sha: str) -> str:
    return f"translate/{language}/{repository}/{sha}"


def missing_languages(analysis: Analysis | None, languages: Sequence[LanguageCode]) -> tuple[LanguageCode, ...]:
    """The ``languages`` a stored analysis should be translated into: none unless it is ok and
    worded by the LLM or a legacy report (the site words an offline analysis in any language)."""
    if analysis is None or not analysis.ok or analysis.provenance.analyzer == OFFLINE_ANALYZER:
        return ()
    return tuple(code for code in languages if code not in analysis.languages)


@dataclass(frozen=True)
class Job:
    """One translation to make: a record with an ok analysis, and the language it lacks."""

    record: CommitRecord
    language: LanguageCode

    @property
    def key(self) -> JobKey:
        return (*self.record.key, self.language)

    @property
    def analysis(self) -> Analysis:
        assert self.record.analysis is not None, "a job's record has the analysis to translate"
        return self.record.analysis


def translation_jobs(
    records: Iterable[CommitRecord],
    languages: Sequence[LanguageCode],
    selection: Selection,
    *,
    exclude: Collection[JobKey] = (),
) -> list[Job]:
    """What to translate, newest commit first, within the selection's days and limit (of commits);
    ``exclude``: translations waiting in a batch."""

    def needed(record: CommitRecord) -> list[LanguageCode]:
        return [code for code in missing_languages(record.analysis, languages) if (*record.key, code) not in exclude]

    chosen = select_records(
        (record for record in records if needed(record)), is_done=lambda analysis: False, selection=selection
    )
    return [Job(record, code) for record in chosen for code in needed(record)]


@dataclass(frozen=True)
class Translated:
    job: Job
    result: TranslationResult | None = None
    skipped: Skip | None = None


@dataclass(frozen=True)
class _Worker:
    """One (commit, language): claim, look again, translate, store, let go. Runs on a pool thread."""

    store: AnalysisStore
    translator: Translator
    claims: Claims | None

    def __call__(self, job: Job) -> Translated:
        with claimed(self.store, translation_lease_name(job.language, *job.record.key), self.claims) as taken:
            if not taken:
                return Translated(job, skipped=Skip.TRANSLATING)
            stored = self.store.get(*job.record.key)
            if stored is None or job.language not in missing_languages(stored.analysis, (job.language,)):
                return Translated(job, skipped=Skip.TRANSLATED)
            analysis = Job(stored, job.language).analysis
            result = self.translator.translate(stored.commit, analysis, job.language)
            if result.value is not None:
                translated = analysis.with_translation(job.language, result.value)
                self.store.merge(CommitRecord(commit=stored.commit, analysis=translated))
                stopping.kept("translations")
            else:
                logger.warning(
                    "%s: translation into %s %s: %s",
                    stored.commit.short_sha,
                    job.language,
                    result.status.value,
                    result.error,
                )
            return Translated(job, result=result)


def translate_all(
    store: AnalysisStore,
    translator: Translator,
    jobs: list[Job],
    settings: LlmSettings,
    *,
    console: Console | None = None,
    claims: Claims | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> RunSummary:
    """Translates ``jobs`` with up to ``llm.concurrency`` in flight; each result is stored by its worker."""
    summary = RunSummary(selected=len(jobs), verb="translated", unit="analyses")
    started = clock()

    def done(job: Job, outcome: Translated) -> None:
        if outcome.skipped is not None:
            summary.skipped[outcome.skipped] = summary.skipped.get(outcome.skipped, 0) + 1
            return
        result = outcome.result
        assert result is not None, "an outcome is a result or a skip"
        summary.tally(job.record, result.status, result.usage, f"into {job.language}: {result.error}")

    def failed(job: Job, error: Exception) -> None:
        logger.exception("%s: the translation raised; it is retried next run", job.record.commit.short_sha)
        summary.add_error(job.record, error)

    run_pool(
        jobs,
        _Worker(store, translator, claims or Claims(seconds=lease_seconds(settings))),
        concurrency=settings.concurrency,
        console=console or Console(stderr=True),
        doing="translating",
        on_result=done,
        on_error=failed,
        figures=summary.figures,
    )
    summary.seconds = clock() - started
    return summary
