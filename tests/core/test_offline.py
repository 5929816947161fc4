from datetime import UTC, datetime

import pytest

from commit_digest.meaning.offline import OfflineAnalyzer, clip_sentence, message_points
from commit_digest.meaning.offline_rules import part_label, series_part
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import Analysis, ChangeType, FileChange, FileStatus, Importance
from commit_digest.settings import Language
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
    assert result.summary == ("Changes 1 file (+10/−2 lines), mainly in vllm/v1/core/.",)
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


CORE = (change("vllm/v1/core/sched/scheduler.py", 30, 10),)
ASCEND_BODY = (
    "### What this PR does / why we need it?\n<!--\n- Please clarify what changes you are proposing.\n-->\n{what}\n\n"
    "### Does this PR introduce _any_ user-facing change?\nNo.\n\n### How was this patch tested?\n{tested}\n"
)
# Made-up commits: title, message, files, expected importance, the reason the conclusion gives.
IMPORTANCE_CASES = [
    ("[Core] Fix engine hang on abort (#1)", "", CORE, Importance.HIGH, "a hang or deadlock (“hang”)"),
    ("[Kernel] Fix segfault in paged attention (#2)", "", CORE, Importance.HIGH, "a crash (“segfault”)"),
    ("[Bugfix] Fix IMA in MLA decode (#3)", "", CORE, Importance.HIGH, "a crash (“IMA”)"),
    ("[Bugfix] Fix garbled output with FP8 KV cache (#4)", "", CORE, Importance.HIGH, "(“garbled output”)"),
    ("Prevent path traversal in media loader (#5)", "", CORE, Importance.HIGH, "security (“path traversal”)"),
    ("[Core] Enable prefix caching by default (#6)", "", CORE, Importance.HIGH, "changes a default"),
    ("[Misc] Fix typo that crashes the server (#7)", "", CORE, Importance.HIGH, "a crash (“crashes”)"),
    # A bug fix's message says what failed, under the template's purpose heading ...
    (
        "[Bugfix] Fix dp issue (#8)",
        ASCEND_BODY.format(what="With dp > 1 the engine hangs on the second request.", tested="CI passed."),
        CORE,
        Importance.HIGH,
        "a hang or deadlock (“hangs”)",
    ),
    # ... but not in the test notes, nor in a feature's message.
    (
        "[Bugfix] Fix dp issue (#9)",
        ASCEND_BODY.format(what="Pass the dp rank along.", tested="No hang after 100 runs."),
        CORE,
        Importance.MEDIUM,
        "bug fix in product code",
    ),
    ("[Feature] Add retry (#10)", "Retries instead of a crash.", CORE, Importance.MEDIUM, "feature in product code"),
    # Words that only look like those.
    ("[Core] Handle changes to the scheduler config (#11)", "", CORE, Importance.LOW, "small other change"),
    ("[Frontend] Add --foo option, disabled by default (#12)", "", CORE, Importance.LOW, "small config change"),
    ("[Bugfix] Fix memory leak in the scheduler (#13)", "", CORE, Importance.MEDIUM, "bug fix in product code"),
    ("[Bugfix] Respect the default sampling params (#14)", "", CORE, Importance.MEDIUM, "bug fix in product code"),
    # Typos, comments, lint and CI are low.
    ("[Misc] Fix typo in the scheduler (#15)", "", CORE, Importance.LOW, "only a typo, comment, formatting"),
    ("Fix outdated comment in scheduler (#16)", "", CORE, Importance.LOW, "(“Fix outdated comment”)"),
    (
        "[CI] Fix hang in the multi-node test (#17)",
        "",
        (change(".buildkite/test-pipeline.yaml", 4, 1), change("tests/distributed/conftest.py", 3, 1)),
        Importance.LOW,
        "documentation, test or CI change",
    ),
    # A series is rated by its title without the part number, never by the part's size.
    (
        "[Core][2/4] Refactor the scheduler (#18)",
        "",
        (change("vllm/v1/core/sched/scheduler.py", 600, 500),),
        Importance.LOW,
        "part 2/4 of a series, rated as the whole series: internal change (refactor)",
    ),
    (
        "[Core] Fix scheduler hang with chunked prefill (3/4) (#19)",
        "",
        (change("vllm/v1/core/sched/scheduler.py", 2, 1),),
        Importance.HIGH,
        "part 3/4 of a series, rated as the whole series: a hang or deadlock (“hang”)",
    ),
    ("Part 2: make FlashInfer the default on Blackwell (#20)", "", CORE, Importance.HIGH, "changes a default"),
]


@pytest.mark.parametrize(("title", "body", "files", "importance", "reason"), IMPORTANCE_CASES)
def test_importance_follows_what_the_change_does(
    title: str, body: str, files: tuple[FileChange, ...], importance: Importance, reason: str
) -> None:
    result = OfflineAnalyzer(load_taxonomy(), "en").analyze(make_commit(9, title=title, body=body, files=files))
    assert result.importance is importance
    assert reason in result.conclusion.split("Importance because: ")[1]


def test_importance_reasons_read_in_chinese_too(analyzer: OfflineAnalyzer) -> None:
    series = analyzer.analyze(make_commit(10, title="[Attention][3/n] Fix decode hang (#1)", files=CORE))
    assert "重要程度依据：系列提交的第 3/n 部分，按整个系列评级：涉及挂起或死锁（“hang”）。" in series.conclusion
    cleanup = analyzer.analyze(make_commit(11, title="[2/N] Move cache factories (#2)", files=CORE))
    assert "按整个系列评级：内部改动（重构）。" in cleanup.conclusion


@pytest.mark.parametrize(
    ("title", "part"),
    [
        ("[Attention][2/n] Remove x (#1)", "2/n"),
        ("[MoE Refactor][15/N] Apply x (#2)", "15/N"),
        ("Type coverage for vllm/compilation [1/3] (#3)", "1/3"),
        ("Fix scheduler (3/4) (#4)", "3/4"),
        ("Move x (2 of 3) (#5)", "2/3"),
        ("Part 2: move x (#6)", "2"),
        ("Fix x (#31838)", None),
        ("[CI/Build] Fix x (#7)", None),
        ("Support TP 2/4 (#8)", None),
    ],
)
def test_a_series_part_is_found_in_every_spelling(title: str, part: str | None) -> None:
    found = series_part(title)
    assert (part_label(found) if found else None) == part
