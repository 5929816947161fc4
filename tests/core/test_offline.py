from datetime import UTC, datetime

import pytest

from commit_digest.analysis.offline import OfflineAnalyzer, clip_sentence, message_points
from commit_digest.models import Analysis, ChangeType, FileChange, FileStatus, Importance
from commit_digest.settings import Language
from commit_digest.taxonomy import load_taxonomy
from tests.core.test_pr_template import (
    VLLM_ASCEND_FILLED,
    VLLM_ASCEND_TEMPLATE,
    VLLM_FILLED,
    VLLM_OLD_TEMPLATE,
    VLLM_TEMPLATE,
)
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


# Words of vLLM's and vllm-ascend's PR templates (headings, instructions, checklist) that no
# offline analysis may repeat.
TEMPLATE_WORDS = (
    "what this pr does",
    "why we need it",
    "user-facing change",
    "how was this patch tested",
    "purpose",
    "test plan",
    "test result",
    "please clarify",
    "before submitting",
    "essential elements",
    "checklist",
    "fill in the pr description",
    "documentation-only updates",
    "ci passed with new added",
    "vllm version",
    "vllm main",
)


def analysis_text(result: Analysis) -> str:
    return result.model_dump_json().lower()


@pytest.mark.parametrize("template", [VLLM_TEMPLATE, VLLM_OLD_TEMPLATE, VLLM_ASCEND_TEMPLATE])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_an_empty_template_is_as_good_as_no_message(template: str, language: Language) -> None:
    analyzer = OfflineAnalyzer(load_taxonomy(), language)
    for files in ((change("vllm/v1/worker/gpu_model_runner.py", 30, 4),), ()):
        templated = analyzer.analyze(make_commit(5, body=template, files=files))
        assert templated == analyzer.analyze(make_commit(5, body="", files=files))
        assert not [word for word in TEMPLATE_WORDS if word in analysis_text(templated)]


def test_a_filled_vllm_ascend_template_gives_only_what_the_author_wrote(analyzer: OfflineAnalyzer) -> None:
    question = "### Does this PR introduce _any_ user-facing change?\n"
    body = VLLM_ASCEND_FILLED.replace(
        f"{question}<!--\nNote that it means *any* user-facing change.\n-->\n", f"{question}No.\n"
    )
    assert f"{question}No." in body
    result = analyzer.analyze(make_commit(6, title="[Ops] Add MLA prefill kernel (#3001)", body=body))
    # Neither the headings, nor the bare "No." to one of them, nor the test notes.
    assert result.summary == (
        "Add the MLA prefill kernel for Ascend 910B.",
        "共改动 1 个文件（+10/−2 行），主要涉及 vllm/v1/core/。",
    )
    assert not [word for word in TEMPLATE_WORDS if word in analysis_text(result)]


def test_a_filled_vllm_template_keeps_the_purpose_and_leaves_the_test_plan(analyzer: OfflineAnalyzer) -> None:
    result = analyzer.analyze(make_commit(7, title="[ROCm] Fix fused_moe on gfx950 (#3002)", body=VLLM_FILLED))
    assert result.summary[:2] == ("Fix the crash of `fused_moe` on gfx950 when `num_experts > 256`.", "FIX #31234")
    assert not any("pytest" in point or "48 tests" in point for point in result.summary)
    assert not [word for word in TEMPLATE_WORDS if word in analysis_text(result)]


def test_an_answer_to_a_template_question_stays_when_it_says_something(analyzer: OfflineAnalyzer) -> None:
    body = (
        "### What this PR does / why we need it?\nAdds `--enable-foo`.\n\n"
        "### Does this PR introduce _any_ user-facing change?\nYes: a new `--enable-foo` flag.\n\n"
        "### How was this patch tested?\nCI passed."
    )
    result = analyzer.analyze(make_commit(8, body=body, files=()))
    assert result.summary == ("Adds `--enable-foo`.", "Yes: a new `--enable-foo` flag.")


def test_summary_points_leave_out_headings_and_code() -> None:
    body = "## Design\nA new cache.\n\n```python\ncache = Cache()\n```\n\nWorks with TP."
    assert message_points(body) == ["A new cache.", "Works with TP."]
