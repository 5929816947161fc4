from datetime import UTC, datetime

import pytest

from commit_digest.analysis.offline import OfflineAnalyzer, clip_sentence, message_points
from commit_digest.models import ChangeType, FileChange, FileStatus, Importance
from commit_digest.taxonomy import load_taxonomy
from tests.factories import make_commit


@pytest.fixture(scope="module")
def analyzer() -> OfflineAnalyzer:
    return OfflineAnalyzer(load_taxonomy(), "zh")


def change(path: str, additions: int = 10, deletions: int = 2, status: FileStatus = FileStatus.MODIFIED) -> FileChange:
    return FileChange(path=path, status=status, additions=additions, deletions=deletions)


CASES = [
    # title, files, expected type, expected importance
    (
        "[Doc] Add Claude code usage example (#31188)",
        [change("docs/serving/claude_code.md", 80, 0)],
        ChangeType.DOCS,
        Importance.LOW,
    ),
    (
        "[CI] Skip Qwen-VL in multimodal processing tests (#31932)",
        [change("tests/models/multimodal/test_x.py", 3, 1)],
        ChangeType.CI_BUILD,
        Importance.LOW,
    ),
    (
        "[Bugfix] Fix bad words with speculative decoding (#31908)",
        [change("vllm/v1/sample/sampler.py", 30, 8), change("tests/v1/sample/test_bad_words.py", 40, 0)],
        ChangeType.BUGFIX,
        Importance.MEDIUM,
    ),
    (
        "[Model] Add Grok-2 (#31847)",
        [
            change("vllm/model_executor/models/grok2.py", 600, 0, FileStatus.ADDED),
            change("vllm/model_executor/models/registry.py", 1, 0),
        ],
        ChangeType.FEATURE,
        Importance.HIGH,
    ),
    (
        "[Refactor][TPU] Remove torch_xla path and use tpu-inference (#30808)",
        [
            change("vllm/platforms/tpu.py", 20, 400),
            change("vllm/v1/worker/tpu_model_runner.py", 0, 2000, FileStatus.REMOVED),
        ],
        ChangeType.REFACTOR,
        Importance.HIGH,
    ),
    (
        "[Bugfix]: prevent leaking tokens in crash log (#30751)",
        [change("vllm/v1/engine/core.py", 12, 3)],
        ChangeType.BUGFIX,
        Importance.HIGH,
    ),
    (
        "[Attention][MLA] Make `FLASHINFER_MLA` the default MLA backend on Blackwell (#32339)",
        [change("vllm/platforms/cuda.py", 20, 10)],
        ChangeType.CONFIG,
        Importance.HIGH,
    ),
    (
        'Revert "[Perf] Fuse stride preparation (#31837)" (#31999)',
        [change("csrc/moe/x.cu", 10, 40)],
        ChangeType.REVERT,
        Importance.MEDIUM,
    ),
    (
        "[Misc] Remove redundant line (#32366)",
        [change("vllm/config/model.py", 0, 1)],
        ChangeType.REFACTOR,
        Importance.LOW,
    ),
    (
        "[Deprecation] Remove deprecated `--disable-log-requests` flag (#31000)",
        [change("vllm/engine/arg_utils.py", 2, 30)],
        ChangeType.DEPRECATION,
        Importance.HIGH,
    ),
    (
        "[Chore] Further cleanup pooler (#31951)",
        [change("vllm/model_executor/layers/pooler.py", 30, 40)],
        ChangeType.REFACTOR,
        Importance.LOW,
    ),
    ("Update requirements", [change("requirements/cuda.txt", 1, 1)], ChangeType.DEPENDENCY, Importance.MEDIUM),
]


@pytest.mark.parametrize(("title", "files", "change_type", "importance"), CASES)
def test_type_and_importance_follow_the_rules(
    analyzer: OfflineAnalyzer, title: str, files: list[FileChange], change_type: ChangeType, importance: Importance
) -> None:
    result = analyzer.analyze(make_commit(1, title=title, files=tuple(files)))
    assert (result.change_type, result.importance) == (change_type, importance)
    assert result.ok and result.provenance.analyzer == "offline"
    assert result.summary and result.impact_scope and result.recommendations and result.conclusion


def test_the_analysis_is_complete_deterministic_and_labelled(analyzer: OfflineAnalyzer) -> None:
    commit = make_commit(
        2,
        title="[ROCm][AITER] fix wrong argument passed to AITER `flash_attn_varlen_func` (#31880)",
        body="Use return_lse instead of return_softmax_lse.\n\nSigned-off-by: vllmellm <x@example.com>",
        files=(change("vllm/v1/attention/backends/mla/rocm_aiter_mla.py", 2, 2),),
    )
    first, second = analyzer.analyze(commit), analyzer.analyze(commit)
    assert first == second
    assert first.provenance.created_at == commit.committed_at
    assert [label.id for label in first.platforms] == ["rocm"]
    assert "attention" in [label.id for label in first.subsystems]
    assert all(label.reason for label in first.platforms + first.subsystems)
    # The title is on the page already: the summary is what the message and the files add.
    assert first.summary == (
        "Use return_lse instead of return_softmax_lse.",
        "共改动 1 个文件（+2/−2 行），主要涉及 vllm/v1/attention/backends/。",
    )
    assert "重要程度依据：产品代码中的缺陷修复。" in first.conclusion
    assert not any("Signed-off-by" in point for point in first.summary)
    assert first.impact_scope[0].area == "vllm/v1/attention/backends/"


def test_english_is_one_setting_away() -> None:
    result = OfflineAnalyzer(load_taxonomy(), "en").analyze(make_commit(3))
    assert result.provenance.language == "en"
    assert result.summary == ("Changes 1 files (+10/−2 lines), mainly in vllm/v1/core/.",)
    assert "Offline rule-based analysis" in result.conclusion
    assert "Importance because: bug fix in product code." in result.conclusion
    titled = OfflineAnalyzer(load_taxonomy(), "en").analyze(make_commit(4, files=()))
    assert titled.summary == ("Bug fix: Fix thing number 4",)


def test_text_is_cut_at_a_sentence_end_never_mid_word() -> None:
    text = "First sentence is here. " * 30
    clipped = clip_sentence(text, 100)
    assert clipped.endswith(".") and len(clipped) <= 100
    assert clip_sentence("x" * 500, 50).endswith("…")
    assert message_points("Para one\ncontinues.\n\nCo-authored-by: a\n\n- bullet two") == [
        "Para one continues.",
        "bullet two",
    ]


def test_a_commit_without_files_still_gets_an_analysis(analyzer: OfflineAnalyzer) -> None:
    result = analyzer.analyze(make_commit(4, title="Empty merge", files=()))
    assert result.ok and result.change_type is ChangeType.OTHER
    assert result.provenance.created_at == datetime(2026, 1, 8, 12, 4, tzinfo=UTC)
