"""What a failed LLM analysis publishes: that it failed and will be retried, in the reader's
language, and nothing of the endpoint (its address, the server's error text, its file paths)."""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest

from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import AnalysisStatus, CommitRecord, Provenance
from commit_digest.site.model.index import build_index
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.context import SiteContext
from tests.site.factories import CREATED, REPOSITORY, make_commit, not_ok_analysis

ERROR = (
    "chat completion: HTTP 500 from http://10.1.2.3:35673/v1/: response_format.type: Input should be "
    "'text' or 'json_object' (File \"/srv/venv/lib/python3.11/site-packages/llama_cpp/server/app.py\")"
)
LEAKS = ("10.1.2.3", "35673", "response_format", "site-packages", "app.py", "HTTP 500")


def _records() -> list[CommitRecord]:
    taxonomy = load_taxonomy(None, None)
    failed = make_commit("failed-1", "[Core] A commit the LLM failed on (#1)", CREATED)
    kept = make_commit("kept-1", "[Core] A commit with its offline analysis kept (#2)", CREATED + timedelta(hours=1))
    return [
        CommitRecord(commit=failed, analysis=not_ok_analysis(AnalysisStatus.FAILED, ERROR)),
        CommitRecord(
            commit=kept,
            analysis=OfflineAnalyzer(taxonomy, "zh").analyze(kept),
            failure=Provenance(
                analyzer="llm:gemma3-270m", created_at=CREATED, status=AnalysisStatus.FAILED, error=ERROR
            ),
        ),
    ]


@pytest.mark.parametrize(
    ("language", "retried", "offline"),
    [("zh", "下次运行时会重试", "离线分析"), ("en", "next run", "the offline analysis")],
)
def test_a_failed_analysis_says_it_will_be_retried_and_nothing_of_the_endpoint(
    language: str, retried: str, offline: str
) -> None:
    taxonomy = load_taxonomy(None, None)
    index = build_index(_records(), repository=REPOSITORY, zone=UTC, taxonomy=taxonomy, language=language)
    context = SiteContext(index, taxonomy, SiteOptions(language=language))
    failed, kept = sorted((item for day in index.days for item in day.commits), key=lambda item: item.sha)
    failed, kept = (failed, kept) if failed.analysis is not None and not failed.analysis.ok else (kept, failed)
    for item in (failed, kept):
        note = str(context.fragments.status_note(item))
        assert retried in note, note
        assert not any(leak in note for leak in LEAKS), note
    assert offline in str(context.fragments.status_note(kept))
