"""Taxonomy rules: loading, overrides, tag parsing and the matching details the table relies on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from commit_digest.errors import TaxonomyError
from commit_digest.meaning.label_rules import path_tokens
from commit_digest.meaning.taxonomy import classify, load_taxonomy, title_tags

PLATFORMS = ("cuda", "rocm", "xpu", "tpu", "cpu", "ascend", "hpu")
SUBSYSTEMS = (
    "models", "moe", "attention", "quantization", "spec-decode", "lora", "multimodal", "distributed",
    "kv-cache", "compile", "frontend", "core", "sampling", "kernels", "ci", "docs", "benchmarks",
)  # fmt: skip


def ids(labels: tuple) -> set[str]:
    return {label.id for label in labels}


def test_builtin_taxonomy_has_every_label_with_both_names() -> None:
    taxonomy = load_taxonomy()
    assert taxonomy.platform_ids == PLATFORMS
    assert taxonomy.subsystem_ids == SUBSYSTEMS
    for rule in (*taxonomy.platforms, *taxonomy.subsystems):
        assert rule.name.zh.strip() and rule.name.en.strip(), rule.id
        assert rule.name.in_language("en") == rule.name.en
        assert rule.name.in_language("zh") == rule.name.zh


# -- tags -------------------------------------------------------------------------------------


def test_bracket_tags_are_lowercased_and_hardware_vendor_pairs_combined() -> None:
    assert title_tags("[Bugfix][Hardware][AMD] Consolidate FP8 min/max (#31106)") == [
        "bugfix", "hardware", "amd", "bugfix][hardware", "hardware][amd",
    ]  # fmt: skip


def test_tags_with_spaces_colons_and_no_gap_before_the_text() -> None:
    assert title_tags("[CI] [Bugfix] Fix unbounded variable (#31967)")[:2] == ["ci", "bugfix"]
    assert title_tags("[Bugfix]: Fix Step3ReasoningParser (#31969)") == ["bugfix"]
    assert title_tags("[XPU]fallback to TRITON_ATTN on xpu (#31762)") == ["xpu"]
    assert title_tags("[Spec  Decode][UX] Add acceptance stats")[0] == "spec decode"


def test_tags_are_only_read_at_the_start_of_the_title() -> None:
    assert title_tags("Fix test_structured_output[meta-llama/Llama-3.1-8B] on ROCm") == []
    assert "rocm" not in title_tags("[CI] Skip [ROCm] tests")


def test_conventional_commit_type_and_scopes() -> None:
    assert title_tags("fix(rocm): add early return in get_flash_attn_version (#31286)") == ["fix", "rocm"]
    assert title_tags("feat(moe, lora)!: breaking thing") == ["feat", "moe", "lora"]
    assert title_tags(" fix(rocm): leading blank (#31712)") == ["fix", "rocm"]
    assert title_tags("refactor: find_loaded_library (#31866)") == ["refactor"]
    # Not a conventional title: a colon deep in the sentence.
    assert title_tags("make 500: InternalServerError more informative (#20610)") == []


def test_tags_match_case_insensitively_with_aliases() -> None:
    for title in ("[ROCm] x", "[ROCM] x", "[rocm] x", "[AMD] x", "[Hardware][AMD] x", "fix(rocm): x"):
        result = classify(title)
        assert ids(result.platforms) == {"rocm"}, title
    assert ids(classify("[Docs] Fix a link").subsystems) == {"docs"}
    assert ids(classify("[Doc] Fix a link").subsystems) == {"docs"}
    assert ids(classify("[CI/Build] Bump a pin").subsystems) == {"ci"}


# -- paths ------------------------------------------------------------------------------------


def test_requirements_cuda_txt_alone_is_a_build_change_not_a_cuda_change() -> None:
    result = classify("[Misc] Bump a pin (example title)", paths=["requirements/cuda.txt"])
    assert ids(result.platforms) == set()
    assert ids(result.subsystems) == {"ci"}


def test_platform_files_give_their_platform() -> None:
    for path, platform in [
        ("vllm/platforms/rocm.py", "rocm"),
        ("csrc/rocm/attention.cu", "rocm"),
        ("vllm/v1/attention/backends/mla/rocm_aiter_mla.py", "rocm"),
        ("vllm/model_executor/layers/fused_moe/rocm_aiter_fused_moe.py", "rocm"),
        ("vllm/platforms/xpu.py", "xpu"),
        ("vllm/v1/worker/tpu_worker.py", "tpu"),
        ("vllm/v1/attention/backends/pallas.py", "tpu"),
        ("vllm/platforms/cpu.py", "cpu"),
        ("csrc/cpu/activation.cpp", "cpu"),
        ("vllm/platforms/cuda.py", "cuda"),
        ("vllm/utils/flashinfer.py", "cuda"),
    ]:
        assert ids(classify("Change (example title)", paths=[path]).platforms) == {platform}, path


def test_path_tokens_match_whole_tokens_only() -> None:
    assert path_tokens("vllm/ops/pallas_tpu.py") == {"vllm", "ops", "pallas", "tpu", "py"}
    assert ids(classify("x", paths=["vllm/ops/pallasx/output.py"]).platforms) == set()
    assert ids(classify("x", paths=["vllm/ops/outputs.py"]).platforms) == set()  # "tpu" inside "outputs"
    assert ids(classify("x", paths=["tools/hipify.py"]).platforms) == set()  # "hip" inside "hipify"


def test_tests_only_and_docs_only_changes_get_no_platform_from_paths() -> None:
    tests_only = classify(
        "Tighten a tolerance (example title)", paths=["tests/kernels/test_rocm_attention.py"]
    )
    assert ids(tests_only.platforms) == set()
    docs_only = classify(
        "Add install notes (example title)", paths=["docs/getting_started/installation/xpu.md"]
    )
    assert ids(docs_only.platforms) == set()
    assert ids(docs_only.subsystems) == {"docs"}
    # Subsystems still come from test paths, and tags still give platforms.
    tagged = classify(
        "[ROCm][CI] Fix tests/compile unit tests (#28895)", paths=["tests/compile/test_fusion.py"]
    )
    assert ids(tagged.platforms) == {"rocm"}
    assert ids(tagged.subsystems) == {"compile", "ci"}


def test_mixed_change_with_a_platform_file_keeps_the_platform() -> None:
    result = classify("Refactor (example title)", paths=["tests/test_x.py", "vllm/platforms/xpu.py"])
    assert ids(result.platforms) == {"xpu"}


# -- words ------------------------------------------------------------------------------------


def test_words_match_on_word_boundaries() -> None:
    assert ids(classify("Tune kernels for MI300X").platforms) == {"rocm"}
    assert ids(classify("Enable swapAB on SM90").platforms) == {"cuda"}
    assert ids(classify("AITER: use the asm kernel").platforms) == {"rocm"}
    # Inside identifiers or longer words a word does not count.
    assert ids(classify("Rename PROMI300 constant").platforms) == set()
    assert ids(classify("Fix test_kv_cache_events_dp").subsystems) == set()
    assert "moe" not in ids(classify("fix: glm4_moe_tool_parser crash").subsystems)


def test_exact_words_are_case_sensitive() -> None:
    assert ids(classify("Add DP support").subsystems) == {"distributed"}
    assert ids(classify("Add dp support").subsystems) == set()
    assert ids(classify("Skip on AMD").platforms) == {"rocm"}
    # Lower-case "amd" in a sign-off address is not the vendor.
    assert ids(classify("Fix typo", "Signed-off-by: A <a@amd.com>").platforms) == set()


def test_words_in_the_message_count_and_say_where_they_were_found() -> None:
    result = classify("Fix a crash (example title)", "Seen on gfx942 only.")
    assert ids(result.platforms) == {"rocm"}
    assert result.reasons["rocm"] == ["word “gfx942” in message"]


def test_a_change_may_have_no_label_and_labels_keep_reasons() -> None:
    assert classify("Fix typo in a comment", paths=["vllm/sequence.py"]).platforms == ()
    result = classify(
        "[ROCm][AITER] fix wrong argument", paths=["vllm/v1/attention/backends/mla/rocm_aiter_mla.py"]
    )
    assert ids(result.platforms) == {"rocm"}
    reasons = result.reasons["rocm"]
    assert "tag [rocm]" in reasons and "tag [aiter]" in reasons
    assert "path vllm/v1/attention/backends/mla/rocm_aiter_mla.py" in reasons
    label = result.platforms[0]
    assert label.reason.startswith("tag [rocm]; tag [aiter]; ")


# -- overrides --------------------------------------------------------------------------------


def test_override_from_a_mapping_changes_adds_and_removes_labels() -> None:
    taxonomy = load_taxonomy(
        {
            "platforms": {"tpu": None, "cpu": {"words": ["Graviton"]}},
            "subsystems": {
                "pooling": {
                    "name": {"zh": "池化模型", "en": "Pooling"},
                    "paths": ["vllm/model_executor/layers/pooler.py"],
                }
            },
        }
    )
    assert "tpu" not in taxonomy.platform_ids
    cpu = taxonomy.platform("cpu")
    assert cpu is not None and cpu.words == ("Graviton",)
    assert cpu.paths  # fields the override does not name are kept
    assert taxonomy.subsystem_ids[-1] == "pooling"
    result = classify(
        "Speed up on Graviton", paths=["vllm/model_executor/layers/pooler.py"], taxonomy=taxonomy
    )
    assert ids(result.platforms) == {"cpu"}
    assert ids(result.subsystems) == {"pooling"}
    assert ids(classify("[TPU] x", taxonomy=taxonomy).platforms) == set()


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ({"platforms": {"cuda": {"wrods": ["x"]}}}, "platforms.cuda"),
        ({"subsystems": {"new-thing": {"paths": ["x/"]}}}, "subsystems.new-thing"),  # no names
        ({"subsystems": {"Bad_Id": {"name": {"zh": "x", "en": "x"}}}}, "subsystems.Bad_Id"),
        ({"platforms": {"rocm": ["not", "a", "mapping"]}}, "'rocm'"),
        ({"hardware": {}}, "hardware"),
    ],
)
def test_bad_override_is_a_taxonomy_error_naming_the_label(override: dict, named: str) -> None:
    with pytest.raises(TaxonomyError, match=re.escape(named)):
        load_taxonomy(override)


def test_taxonomy_file_that_cannot_be_read_is_a_taxonomy_error(tmp_path: Path) -> None:
    broken = tmp_path / "taxonomy.yml"
    broken.write_text("platforms: [unclosed", encoding="utf-8")
    with pytest.raises(TaxonomyError, match=re.escape(str(broken))):
        load_taxonomy(path=broken)
    with pytest.raises(TaxonomyError, match=re.escape("missing.yml")):
        load_taxonomy(path=tmp_path / "missing.yml")


def test_taxonomy_file_replaces_the_builtin_rules(tmp_path: Path) -> None:
    own = tmp_path / "taxonomy.yml"
    own.write_text(
        "platforms:\n  npu:\n    name: {zh: 昇腾, en: Ascend NPU}\n    tags: [npu]\nsubsystems: {}\n",
        encoding="utf-8",
    )
    taxonomy = load_taxonomy(path=own)
    assert taxonomy.platform_ids == ("npu",)
    assert taxonomy.subsystem_ids == ()
    assert ids(classify("[NPU] Add graph mode", taxonomy=taxonomy).platforms) == {"npu"}


def test_pr_template_boilerplate_gives_no_label() -> None:
    # vllm-ascend's template: its stock answer under "How was this patch tested?" names CI, and
    # once gave every commit of the plugin the ci label.
    message = (
        "### What this PR does / why we need it?\n"
        "Fix the shape of the rotary embedding cache.\n\n"
        "### Does this PR introduce _any_ user-facing change?\n"
        "No.\n\n"
        "### How was this patch tested?\n"
        "CI passed with new added/existing test.\n"
    )
    found = classify("Fix rotary cache shape", message, ["vllm_ascend/ops/rotary_embedding.py"])
    assert "ci" not in {label.id for label in found.subsystems}, found.reasons
    # The author's own words still count.
    written = classify("Fix rotary cache shape", message.replace("Fix the shape", "Fix the CI shape"), [])
    assert "ci" in {label.id for label in written.subsystems}


# -- word matching shortcuts ------------------------------------------------------------------


def test_word_rules_find_exactly_what_their_boundaries_allow() -> None:
    """Classifying reads a text's ASCII word runs to skip the rules that cannot match it; these
    are the texts where such a shortcut could drop or add a match."""
    taxonomy = load_taxonomy(
        {
            "subsystems": {
                "probe": {
                    "name": {"zh": "探针", "en": "Probe"},
                    "words": [
                        *("kernel", "cuda", "CUDA graph", "graph capture", "capture mode"),
                        *("量化", "化学", "/v1/chat"),
                    ],
                    "words_exact": ["DP"],
                }
            }
        }
    )

    def found(title: str, message: str = "") -> list[str]:
        return classify(title, message, [], taxonomy).reasons.get("probe", [])

    # IGNORECASE reads the Kelvin sign as "k" and "ſ" as "s": both are word characters then.
    assert found("Fix \u212aernel launch") == ["word “kernel” in title"]
    assert found("Fix \u017fkernel launch") == []
    assert found("Fix KERNELS, Kernel_x and xkernel") == []
    # A case-sensitive word's boundaries are ASCII's alone.
    assert found("Add \u212aDP and dp") == ["word “DP” in title"]
    # No ASCII run to start from: found after CJK text or a space, not after an ASCII digit.
    assert found("支持量化") == ["word “量化” in title"]
    assert found("fp8量化") == []
    assert found("fp8量化学") == ["word “化学” in title"]  # starts inside the "量化" that does not count
    assert found("Fix", "POST /v1/chat fails") == ["word “/v1/chat” in message"]
    # The longest word first, and matches do not overlap: "capture" is taken by "graph capture".
    assert found("cuda cuda graph") == ["word “cuda” in title", "word “CUDA graph” in title"]
    assert found("Fix graph capture mode") == ["word “graph capture” in title"]
    assert found("Fix capture mode of graph") == ["word “capture mode” in title"]
