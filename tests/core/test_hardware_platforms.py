"""The platforms of vLLM's hardware plugins (Ascend NPU, Intel Gaudi HPU) and the words that must
not give a platform (issue 16): paths of vLLM's tree and of the plugin repositories, each
platform's words, and the boilerplate or generic mentions that are no platform's work.

Titles here are examples written for the test, in the style of vLLM's and its plugins' commits.
"""

from __future__ import annotations

import re

import pytest

from commit_digest.meaning.taxonomy import classify, load_taxonomy

PLATFORMS = ("cuda", "rocm", "xpu", "tpu", "cpu", "ascend", "hpu")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def platforms(title: str, message: str = "", paths: tuple[str, ...] = ()) -> set[str]:
    return {label.id for label in classify(title, message, paths).platforms}


def test_the_plugin_platforms_come_after_cpu_with_names_descriptions_and_search_words() -> None:
    taxonomy = load_taxonomy()
    assert taxonomy.platform_ids == PLATFORMS
    for label_id in ("ascend", "hpu"):
        rule = taxonomy.platform(label_id)
        assert rule is not None and rule.description is not None
        assert rule.name.zh.strip() and rule.name.en.strip()
        assert rule.description.zh.strip() and rule.description.en.strip()
        assert any(_CJK.search(word) for word in rule.synonyms), label_id
        assert any(not _CJK.search(word) for word in rule.synonyms), label_id
        assert rule.narrower, label_id
    assert {"昇腾", "Ascend", "NPU"} <= set(taxonomy.platform("ascend").synonyms)
    assert {"Gaudi", "HPU", "Habana"} <= set(taxonomy.platform("hpu").synonyms)


@pytest.mark.parametrize(
    "path",
    [
        "vllm/platforms/hpu.py",
        "vllm/worker/hpu_model_runner.py",
        "vllm/worker/hpu_worker.py",
        "vllm/worker/multi_step_hpu_worker.py",
        "vllm/executor/hpu_executor.py",
        "vllm/attention/backends/hpu_attn.py",
        "vllm/attention/ops/hpu_paged_attn.py",
        "vllm/distributed/device_communicators/hpu_communicator.py",
        "vllm/lora/punica_wrapper/punica_hpu.py",
        "requirements/hpu.txt",
        "requirements-hpu.txt",
        "docker/Dockerfile.hpu",
        "Dockerfile.hpu",
        ".buildkite/scripts/hardware_ci/run-hpu-test.sh",
        "vllm_gaudi/v1/worker/hpu_model_runner.py",
        "vllm_gaudi/extension/bucketing/common.py",
    ],
)
def test_gaudi_paths_give_hpu(path: str) -> None:
    assert platforms("Change (example title)", paths=(path,)) == {"hpu"}


@pytest.mark.parametrize(
    "path",
    [
        "vllm_ascend/worker/model_runner_v1.py",
        "vllm_ascend/ops/fused_moe.py",
        "vllm_ascend/platform.py",
        ".buildkite/scripts/hardware_ci/run-npu-test.sh",
        "vllm/worker/npu_worker.py",
    ],
)
def test_ascend_paths_give_ascend(path: str) -> None:
    assert platforms("Change (example title)", paths=(path,)) == {"ascend"}


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("[Hardware][Intel-Gaudi] Enable LoRA support for Intel Gaudi (HPU)", {"hpu"}),
        ("[Gaudi][Bugfix] Fix warmup of hpu_graphs", {"hpu"}),
        ("Enable FP8 on Gaudi3", {"hpu"}),
        ("Bump the Habana SynapseAI release", {"hpu"}),
        ("[HPU] Fix bucketing", {"hpu"}),
        ("[Ascend] Enable graph mode", {"ascend"}),
        ("Support Atlas A3 in the MoE all-to-all", {"ascend"}),
        ("修复昇腾 910B 上的精度问题", {"ascend"}),
        ("Use torch_npu.npu_rms_norm for RMSNorm", {"ascend"}),
        ("Upgrade CANN to 8.1.RC1", {"ascend"}),
        ("Fix the NPU memory profiling", {"ascend"}),
        ("[Hardware][Intel GPU] Upgrade IPEX", {"xpu"}),
        ("[Hardware][Intel] Optimize CPU backend and add more performance tips", {"cpu"}),
        ("[CI/Build] Build wheels with CUDA 12.8", {"cuda"}),
        ("Publish cu128 wheels", {"cuda"}),
    ],
)
def test_each_platform_has_its_words_and_tags(title: str, expected: set[str]) -> None:
    assert platforms(title) == expected


@pytest.mark.parametrize(
    "title",
    [
        # "Gaudi" is Intel Gaudi (hpu), never an Intel GPU
        "[Hardware][Gaudi] add get_name method for HPUAttentionBackend",
        "Document the Intel Gaudi installation",
    ],
)
def test_gaudi_is_never_xpu(title: str) -> None:
    assert "xpu" not in platforms(title)
    assert "hpu" in platforms(title)


@pytest.mark.parametrize(
    ("title", "paths"),
    [
        # A plugin removing CUDA leftovers does Ascend work, not CUDA work.
        ("Remove cuda related lines", ("vllm_ascend/worker/worker_v1.py",)),
        ("Replace torch.cuda.synchronize with torch.npu.synchronize", ("vllm_ascend/attention/attention_v1.py",)),
    ],
)
def test_a_plugin_removing_cuda_strings_is_not_cuda_work(title: str, paths: tuple[str, ...]) -> None:
    assert platforms(title, paths=paths) == {"ascend"}


@pytest.mark.parametrize(
    "title",
    [
        'Use current_platform.device_type instead of hard-coded "cuda"',
        "[Bugfix] Fix CUDA graph capture when LoRA is enabled",  # compile work on every GPU platform
        "Sort the free blocks in ascend order",  # the verb, as non-native writers use it
        "Fix the A2 and A3 block tables",  # "A2"/"A3" are Atlas models only after "Atlas"
    ],
)
def test_generic_mentions_give_no_platform(title: str) -> None:
    assert platforms(title) == set()


def test_cuda_graph_is_still_compile_work() -> None:
    result = classify("[Bugfix] Fix CUDA graph capture when LoRA is enabled")
    assert "compile" in {label.id for label in result.subsystems}


def test_an_upstream_sync_message_does_not_add_the_platforms_it_mentions() -> None:
    message = (
        "Sync with upstream vLLM main.\n\n"
        "Adapt to the ROCm attention refactor (vllm-project/vllm#26300) and the XPU worker changes."
    )
    assert platforms("Upstream sync 2025-10-01", message, ("vllm_gaudi/v1/worker/hpu_model_runner.py",)) == {"hpu"}
