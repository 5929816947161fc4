"""The offline analyzer on the embedded sample, and the demo command that loads it."""

from collections import Counter
from datetime import timedelta
from importlib import resources
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from commit_digest.cli import main
from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import ChangeType, Commit, CommitRecord, Importance
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.exchange import read_all_records
from commit_digest.store.sample_note import load_note_file

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
    # The legacy reports' own analyses (written by the legacy tool's model) for the real commits
    # they analyse; the rest, the invented day included, wait for the offline rules.
    sources = Counter(
        record.analysis.provenance.analyzer.partition(":")[0] if record.analysis else None for record in sample
    )
    assert sources == {"legacy": 127, None: 45}
    assert sum(1 for record in sample if record.analysis and record.analysis.ok) == 112
    assert [record.commit.title for record in sample if record.failure] == [
        "[Misc] Fix typo in scheduler log message (#32072)"
    ]
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
    assert "offline analysis: 60 analysed, 112 already had an analysis" in out
    with AnalysisStore(cache) as store:
        assert all(record.analysis is not None and record.analysis.ok for record in store.records())
        failed = [record for record in store.records() if record.failure is not None]
        # The failed analysis stays marked beside the offline one, as after a real night.
        assert [record.analysis.provenance.analyzer for record in failed if record.analysis] == ["offline"]
    # A second demo changes nothing and keeps the analyses.
    assert main(["demo", "--no-build", "--cache", str(cache)]) == 0
    assert "(0 new)" in capsys.readouterr().out


# Titles of the sample, by PR number (and how each title starts), with the importance the
# offline rules must give them. 2026-01-09 is the sample's synthesized day (SAMPLE.md): its rows
# say "made up".
IMPORTANCE_TABLE = [
    # A numbered series is rated as the series: an internal cleanup is never high, whatever the
    # part's size; a series adding a feature stays medium.
    (31774, Importance.LOW, "[Attention][2/n] Remove usage of deprecated `seq_lens_cpu`"),
    (31850, Importance.LOW, "[Attention][3/n] Remove usage of deprecated `seq_lens_cpu`"),
    (32001, Importance.LOW, "[Attention][4/n] Remove usage of deprecated `seq_lens_cpu`"),  # made up
    (31415, Importance.LOW, "[MoE Refactor][15/N] Apply Refactor to Fp8"),  # 501 lines
    (31692, Importance.LOW, "[MoE Refactor][16/N] Apply Refactor to NVFP4"),  # 532 lines
    (32369, Importance.LOW, "[Refactor] [10/N] to simplify the vLLM openai completion serving"),  # 250 lines
    (32396, Importance.LOW, "[Refactor] [11/N] to simplify the mcp architecture"),  # 8 lines
    (31924, Importance.LOW, "[0/N][Attention] Fix miscellaneous pre-commit issues"),
    # A series whose parts have titles of their own: each part is judged by its own title.
    (31838, Importance.LOW, "[1/2][lmcache connector] clean up lmcache multi-process adapter"),
    (32095, Importance.MEDIUM, "[2/2][lmcache connector] Support LMCache multi-process mode"),  # made up
    # Hangs, crashes, lost accuracy, security and changed defaults are high.
    (31990, Importance.HIGH, "[BugFix] Fix engine core hang when client disconnects"),  # made up
    (32055, Importance.HIGH, "[Bugfix] Fix pipeline parallel hang with async scheduling"),  # made up
    (32321, Importance.HIGH, "fix: avoid crash on zero-arg tool calls in glm4 parser"),
    (31816, Importance.HIGH, "[ROCm][AITER] bugfix accuracy regression in ROCM_AITER_TRITON_MLA"),
    (31931, Importance.HIGH, "[ROCm][LoRA] Fix MoE accuracy regression"),
    (30751, Importance.HIGH, "[Bugfix]: prevent leaking tokens in crash log"),  # security; a crash log is no crash
    (32339, Importance.HIGH, "[Attention][MLA] Make `FLASHINFER_MLA` the default MLA backend"),
    # Words that only look like those.
    (29197, Importance.MEDIUM, "[Frontend] Implement robust video frame recovery for corrupted videos"),
    (31880, Importance.MEDIUM, "[ROCm][AITER] fix wrong argument passed to"),
    (31841, Importance.MEDIUM, "[Bugfix] Fix race condition in async-scheduling"),
    (31855, Importance.LOW, "Change warning in get_current_vllm_config"),  # "change" holds no "hang"
    (32048, Importance.LOW, "[ROCm] Enable gfx950 in the default arch list"),  # made up; "default" alone
    # Typos, lint and CI are low.
    (32072, Importance.LOW, "[Misc] Fix typo in scheduler log message"),  # made up
    (31465, Importance.LOW, "fixed mypy warnings for files vllm/v1/attention"),
    (31183, Importance.LOW, "[CI] Add warmup run in test_fusion_attn"),
    (31829, Importance.LOW, "[ROCm][CI] Fix plugin tests (2 GPUs) failures on ROCm"),  # .buildkite/, tests/
    # The other high rules still hold.
    (30808, Importance.HIGH, "[Refactor][TPU] Remove torch_xla path"),  # a large core change
    (31758, Importance.HIGH, "[Model] Add LFM2-VL model support"),
]
# Parts of one series (one title but for the part number and what it applies to), in the sample.
SERIES = [(31774, 31850, 32001), (31415, 31692, 31998), (32369, 32396)]


@pytest.fixture(scope="module")
def sample_by_pr(sample: list[CommitRecord]) -> dict[int, Commit]:
    return {record.commit.pr_number: record.commit for record in sample if record.commit.pr_number}


@pytest.mark.parametrize(("pr_number", "importance", "title"), IMPORTANCE_TABLE)
def test_sample_titles_get_the_importance_a_reader_expects(
    sample_by_pr: dict[int, Commit], pr_number: int, importance: Importance, title: str
) -> None:
    commit = sample_by_pr[pr_number]
    assert commit.title.startswith(title)
    assert OfflineAnalyzer(load_taxonomy(), "en").analyze(commit).importance is importance


@pytest.mark.parametrize("parts", SERIES)
def test_every_part_of_a_series_gets_the_same_importance(sample_by_pr: dict[int, Commit], parts: tuple[int]) -> None:
    analyzer = OfflineAnalyzer(load_taxonomy(), "en")
    analyses = [analyzer.analyze(sample_by_pr[number]) for number in parts]
    assert len({analysis.importance for analysis in analyses}) == 1
    assert all("part " in analysis.conclusion and "of a series" in analysis.conclusion for analysis in analyses)


def test_no_invented_commit_is_put_in_a_real_persons_name(sample: list[CommitRecord]) -> None:
    note = load_note_file(
        resources.files("commit_digest").joinpath("data/sample-vllm.note.json").read_text(encoding="utf-8"), "note"
    )
    invented = [record.commit for record in sample if record.commit.sha in note.invented]
    real_authors = {record.commit.author_name for record in sample if record.commit.sha not in note.invented}
    assert len(invented) == 45
    assert all(commit.author_name.startswith("Sample Author ") for commit in invented)
    assert not {commit.author_name for commit in invented} & real_authors
