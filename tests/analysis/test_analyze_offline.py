"""`analyze --offline`: the offline analyzer over stored commits, with no key and no request,
through the same runner and summary as the LLM path."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import AnalysisStatus, CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from tests.analysis.conftest import make_commit
from tests.core.test_store import analysis


@pytest.fixture(autouse=True)
def _no_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: a request would fail


def _analyses(cache: Path) -> dict[str, tuple[str, AnalysisStatus, str]]:
    with AnalysisStore(cache) as store:
        return {
            record.commit.sha: (
                record.analysis.provenance.analyzer,
                record.analysis.provenance.status,
                record.analysis.summary[0] if record.analysis.summary else "",
            )
            for record in store.records()
            if record.analysis is not None
        }


def test_offline_analyses_every_commit_without_an_ok_one_and_keeps_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    bare, with_llm, failed_llm = make_commit(1), make_commit(2), make_commit(3)
    failed = analysis("llm:m").model_copy(
        update={
            "provenance": analysis("llm:m").provenance.model_copy(
                update={"status": AnalysisStatus.FAILED, "error": "HTTP 503"}
            )
        }
    )
    with AnalysisStore(cache) as store:
        store.merge(CommitRecord(commit=bare))
        store.merge(CommitRecord(commit=with_llm, analysis=analysis("llm:m")))
        store.merge(CommitRecord(commit=failed_llm, analysis=failed))

    assert main(["analyze", "--offline", "--cache", str(cache)]) == 0
    output = capsys.readouterr().err
    assert "analysed 2 of 2 commits" in output and "2 ok" in output
    analyses = _analyses(cache)
    assert analyses[bare.sha][:2] == ("offline", AnalysisStatus.OK)
    assert analyses[failed_llm.sha][:2] == ("offline", AnalysisStatus.OK)
    assert analyses[with_llm.sha][0] == "llm:m"
    with AnalysisStore(cache) as store:
        kept = store.get(failed_llm.repository, failed_llm.sha)
        assert kept is not None and kept.failure is not None and kept.failure.error == "HTTP 503"

    assert main(["analyze", "--offline", "--cache", str(cache)]) == 0
    assert "analysed 0 of 0 commits" in capsys.readouterr().err


def test_offline_reanalyze_redoes_offline_analyses_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    offline_zh, with_llm = make_commit(4), make_commit(5)
    with AnalysisStore(cache) as store:
        store.merge(
            CommitRecord(commit=offline_zh, analysis=OfflineAnalyzer(load_taxonomy(), "zh").analyze(offline_zh))
        )
        store.merge(CommitRecord(commit=with_llm, analysis=analysis("llm:m")))
    before = _analyses(cache)

    assert main(["analyze", "--offline", "--cache", str(cache), "--language", "en"]) == 0
    assert _analyses(cache) == before  # nothing lacked an ok analysis
    assert main(["analyze", "--offline", "--reanalyze", "--cache", str(cache), "--language", "en"]) == 0
    assert "analysed 1 of 1 commit" in capsys.readouterr().err
    after = _analyses(cache)
    assert after[with_llm.sha] == before[with_llm.sha]
    assert after[offline_zh.sha][0] == "offline" and after[offline_zh.sha][2] != before[offline_zh.sha][2]
    assert not re.search(r"[\u4e00-\u9fff]", after[offline_zh.sha][2])  # worded in English now


def test_offline_and_batch_do_not_go_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--offline", "--batch", "submit", "--cache", str(tmp_path / "cache")]) == 2
    assert "--offline and --batch" in capsys.readouterr().err
