"""The offline analyzer on the embedded sample, and the demo command that loads it."""

from collections import Counter
from datetime import timedelta
from importlib import resources
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from commit_digest.analysis.offline import OfflineAnalyzer
from commit_digest.cli import main
from commit_digest.exchange import read_all_records
from commit_digest.models import ChangeType, CommitRecord, Importance
from commit_digest.store import AnalysisStore
from commit_digest.taxonomy import load_taxonomy

UTC = ZoneInfo("UTC")


@pytest.fixture(scope="module")
def sample() -> list[CommitRecord]:
    text = resources.files("commit_digest").joinpath("data/sample-vllm.jsonl").read_text(encoding="utf-8")
    return read_all_records(text.splitlines(), source="sample-vllm.jsonl")


def test_the_sample_holds_three_consecutive_days_of_forty_or_more(sample: list[CommitRecord]) -> None:
    per_day = Counter(record.commit.day(UTC) for record in sample)
    busy = sorted(day for day, count in per_day.items() if count >= 40)
    runs = [day for day in busy if day + timedelta(days=1) in busy and day + timedelta(days=2) in busy]
    assert runs, per_day
    assert all(record.analysis is None for record in sample)
    assert len({record.commit.sha for record in sample}) == len(sample)


def test_every_sample_commit_gets_a_complete_deterministic_analysis(sample: list[CommitRecord]) -> None:
    analyzer = OfflineAnalyzer(load_taxonomy(), "zh")
    analyses = [analyzer.analyze(record.commit) for record in sample]
    assert analyses == [analyzer.analyze(record.commit) for record in sample]
    assert all(analysis.ok and analysis.summary and analysis.conclusion for analysis in analyses)
    importance = Counter(analysis.importance for analysis in analyses)
    assert set(importance) == {Importance.HIGH, Importance.MEDIUM, Importance.LOW}
    # Rules rank docs, CI and tests low, and never call most of a day high.
    for record, analysis in zip(sample, analyses, strict=True):
        if analysis.change_type in (ChangeType.DOCS, ChangeType.CI_BUILD, ChangeType.TEST):
            assert analysis.importance is Importance.LOW, record.commit.title
    assert importance[Importance.HIGH] < len(analyses) * 0.2
    labelled = sum(1 for analysis in analyses if analysis.platforms or analysis.subsystems)
    assert labelled >= len(analyses) * 0.9


def test_demo_loads_and_analyses_the_sample_without_building(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    assert main(["demo", "--no-build", "--cache", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "sample: 172 commits (172 new) over 4 days" in out
    assert "offline analysis: 172 analysed" in out
    with AnalysisStore(cache) as store:
        assert all(record.analysis is not None and record.analysis.ok for record in store.records())
    # A second demo changes nothing and keeps the analyses.
    assert main(["demo", "--no-build", "--cache", str(cache)]) == 0
    assert "(0 new)" in capsys.readouterr().out
