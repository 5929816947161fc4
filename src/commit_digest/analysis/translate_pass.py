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

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from commit_digest.analysis.analyze_task import custom_id_of, split_custom_id
from commit_digest.analysis.batches import waiting_ids
from commit_digest.analysis.claims import Claims, lease_seconds
from commit_digest.analysis.llm_reply import ChatReply
from commit_digest.analysis.pipeline import PassSummary, run_task
from commit_digest.analysis.selection import Selection, select_records
from commit_digest.analysis.servers.session import ChatRequest
from commit_digest.analysis.task import BatchSpec, Skipped, TaskWords
from commit_digest.analysis.translation import TRANSLATE_PROMPT_VERSION, TranslationResult, Translator
from commit_digest.models import LANGUAGE_CODES, Analysis, AnalysisStatus, CommitRecord, LanguageCode, TokenUsage
from commit_digest.settings import LlmSettings
from commit_digest.store.analysis_store import AnalysisStore

OFFLINE_ANALYZER = "offline"
TRANSLATE_BATCHES_META = "llm-translate-batches"
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


def job_custom_id(job: Job) -> str:
    # A repository name has no colon: "en:owner/name@sha" splits back unambiguously.
    return f"{job.language}:{custom_id_of(job.record)}"


def split_job_custom_id(custom_id: str) -> JobKey | None:
    language, _, rest = custom_id.partition(":")
    if language not in LANGUAGE_CODES:
        return None
    repository, sha = split_custom_id(rest)
    return (repository, sha, language)  # type: ignore[return-value]


class TranslateTask:
    """One (commit, language): the analysis's own wording in that language, stored into the analysis
    it was made from. A batch remembers that analysis: a line whose analysis was replaced meanwhile
    translates text the commit no longer shows, and is dropped."""

    words = TaskWords(
        verb="translated",
        unit="analyses",
        unit_one="analysis",
        doing="translating",
        kept="translations",
        one="translation",
    )
    batch = BatchSpec(
        meta_key=TRANSLATE_BATCHES_META,
        file_name="commit-digest-translate-batch.jsonl",
        prompt_version=TRANSLATE_PROMPT_VERSION,
    )

    def __init__(self, translator: Translator) -> None:
        self.translator = translator

    def name_of(self, item: Job) -> str:
        return f"{item.record.commit.short_sha} into {item.language}"

    def lease_name(self, item: Job) -> str:
        return translation_lease_name(item.language, *item.record.key)

    def recheck(self, store: AnalysisStore, item: Job) -> Job | Skipped:
        stored = store.get(*item.record.key)
        if stored is None or item.language not in missing_languages(stored.analysis, (item.language,)):
            return Skipped("translated by another run meanwhile, or its analysis replaced")
        return Job(stored, item.language)

    def ask(self, item: Job) -> TranslationResult:
        return self.translator.translate(item.record.commit, item.analysis, item.language)

    def keep(self, store: AnalysisStore, item: Job, outcome: TranslationResult) -> bool:
        if outcome.value is None:
            return False
        translated = item.analysis.with_translation(item.language, outcome.value)
        store.merge(CommitRecord(commit=item.record.commit, analysis=translated))
        return True

    def done_line(self, item: Job, outcome: TranslationResult) -> str | None:
        return None

    def custom_id(self, item: Job) -> str:
        return job_custom_id(item)

    def request(self, item: Job) -> ChatRequest:
        return self.translator.request(item.record.commit, item.analysis, item.language)

    def remembered(self, items: list[Job]) -> dict[str, Any]:
        return {"translations": {job_custom_id(job): job.analysis.identity for job in items}}

    @staticmethod
    def waiting(info: dict[str, Any]) -> dict[str, str]:
        found = info.get("translations")
        return {str(key): str(value) for key, value in found.items()} if isinstance(found, dict) else {}

    def submitted(self, store: AnalysisStore, items: list[Job], note: str) -> None:
        """Nothing to show: the analyses stay as they are until their translations come."""

    def item_of(self, store: AnalysisStore, custom_id: str, remembered: str) -> Job | None:
        key = split_job_custom_id(custom_id)
        record = store.get(key[0], key[1]) if key is not None else None
        if key is None or record is None or record.analysis is None:
            return None
        if record.analysis.identity != remembered or not missing_languages(record.analysis, (key[2],)):
            return None  # replaced or translated meanwhile: the next run sees what is left
        return Job(record, key[2])

    def line_outcome(self, item: Job, reply: ChatReply | str) -> TranslationResult:
        if isinstance(reply, str):
            return TranslationResult(AnalysisStatus.FAILED, TokenUsage(), error=reply)
        verdict = self.translator.judge(reply, item.analysis.text(), item.language)
        return self.translator.result(verdict, item.language, reply.usage)


def translations_in_open_batches(store: AnalysisStore) -> set[JobKey]:
    """The translations waiting in an open batch: direct runs and later submits leave them alone."""
    keys = (
        split_job_custom_id(custom_id) for custom_id in waiting_ids(store, TranslateTask.batch, TranslateTask.waiting)
    )
    return {key for key in keys if key is not None}


def translate_all(
    store: AnalysisStore,
    translator: Translator,
    jobs: list[Job],
    settings: LlmSettings,
    *,
    console: Console | None = None,
    claims: Claims | None = None,
) -> PassSummary:
    """Translates ``jobs`` with up to ``llm.concurrency`` in flight; each result is stored by its worker."""
    return run_task(
        store,
        TranslateTask(translator),
        jobs,
        concurrency=settings.concurrency,
        claims=claims or Claims(seconds=lease_seconds(settings)),
        console=console,
    )
