"""A synthetic archive shaped like a real one, for the scale benchmark (not a test; run by hand).

    .venv/bin/python -m benchmarks.synthetic --n 2000 --cache /tmp/synthetic-cache [--seed 7]

N commits over N/45 days of vllm-project/vllm, deterministic for a seed: English titles with the
project's tags, messages shaped as the project's pull requests', real paths, every importance
level plus failed and pending commits, platform and subsystem labels, and LLM-like analyses in
Chinese mixed with English identifiers whose sizes follow the legacy reports' (2-6 KB of UTF-8
per analysis). Records go through AnalysisStore with
provenance analyzer "llm:synthetic".
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from commit_digest.models import (
    Analysis,
    AnalysisStatus,
    ChangeType,
    Commit,
    CommitRecord,
    FileChange,
    ImpactItem,
    Importance,
    Label,
    LabelSource,
    Provenance,
    Recommendation,
    TechnicalInsights,
)
from commit_digest.store.analysis_store import AnalysisStore

REPOSITORY = "vllm-project/vllm"
COMMITS_PER_DAY = 45
FIRST_DAY = datetime(2025, 1, 1, tzinfo=UTC)
ANALYZER = "llm:synthetic"

_TAGS = (
    "[Bugfix]",
    "[Kernel]",
    "[Model]",
    "[Core]",
    "[CI]",
    "[Doc]",
    "[Perf]",
    "[ROCm]",
    "[Hardware][AMD]",
    "[XPU]",
    "[TPU]",
    "[CPU]",
    "[Quantization]",
    "[Spec Decode]",
    "[LoRA]",
    "[Frontend]",
    "[V1]",
    "[Misc]",
    "[Attention]",
    "[MoE]",
    "[Multimodal]",
    "[Distributed]",
    "[Refactor]",
    "[Feature]",
)
_VERBS = ("Fix", "Add", "Support", "Optimize", "Refactor", "Remove", "Enable", "Improve", "Update", "Use")
_OBJECTS = (
    "fused_moe kernel",
    "FlashAttention backend",
    "KV cache manager",
    "MXFP4 W4A16 path",
    "EAGLE drafter",
    "chunked prefill",
    "prefix caching",
    "DeepSeek-V3 MLA",
    "Qwen3-VL processor",
    "tool call parser",
    "OpenAI responses API",
    "CUDA graph capture",
    "torch.compile cache",
    "pipeline parallel sampler",
    "AITER fused MoE",
    "Triton attention",
    "FP8 block scaling",
    "LoRA adapter loading",
    "NCCL all-reduce",
    "structured output backend",
    "scheduler preemption",
    "Mamba state cache",
    "GGUF loader",
    "TPU pallas kernel",
)
_WHERE = ("on ROCm", "for MI300X", "on H100", "for Blackwell", "on XPU", "on TPU v6e", "on CPU", "in V1")
_WHERE_SHARE = 0.3  # of titles that name where the change applies; the rest name no platform
_AUTHORS = (
    ("Woosuk Kwon", "WoosukKwon"),
    ("Cyrus Leung", "DarkLight1337"),
    ("Michael Goin", "mgoin"),
    ("张伟", "zhangwei"),
    ("李娜", "lina-dev"),
    ("Harry Mellor", "hmellor"),
    ("Lucas Wilkinson", "LucasWilkinson"),
    ("Gregory Shtrasberg", "gshtras"),
    ("王磊", "wanglei"),
    ("Nick Hill", "njhill"),
    ("Roger Wang", "ywang96"),
)
_PATHS = (
    "vllm/model_executor/layers/fused_moe/fused_moe.py",
    "vllm/attention/backends/flash_attn.py",
    "vllm/v1/core/kv_cache_manager.py",
    "vllm/platforms/rocm.py",
    "vllm/platforms/xpu.py",
    "vllm/model_executor/layers/quantization/fp8.py",
    "vllm/v1/spec_decode/eagle.py",
    "vllm/lora/models.py",
    "vllm/entrypoints/openai/serving_chat.py",
    "vllm/multimodal/processing.py",
    "csrc/moe/topk_softmax.cu",
    "vllm/distributed/parallel_state.py",
    "vllm/compilation/backends.py",
    "tests/kernels/test_moe.py",
    "docs/usage/faq.md",
    ".buildkite/test-pipeline.yaml",
    "vllm/v1/sample/sampler.py",
    "requirements/rocm.txt",
    "vllm/model_executor/models/qwen3_vl.py",
    "vllm/platforms/tpu.py",
    "vllm/platforms/cpu.py",
    # Files most changes touch, of no platform or subsystem of their own.
    "vllm/v1/engine/core.py",
    "vllm/v1/worker/gpu_model_runner.py",
    "vllm/config/model.py",
    "vllm/utils/__init__.py",
    "vllm/envs.py",
    "tests/v1/engine/test_engine_core.py",
    "tests/utils.py",
    "setup.py",
)
_PLATFORMS = ("cuda", "rocm", "xpu", "tpu", "cpu")
_SUBSYSTEMS = (
    "models",
    "moe",
    "attention",
    "quantization",
    "spec-decode",
    "lora",
    "multimodal",
    "distributed",
    "kv-cache",
    "compile",
    "frontend",
    "core",
    "sampling",
    "kernels",
    "ci",
    "docs",
    "benchmarks",
)
_ZH = (
    "本次提交",
    "调整了",
    "内核实现",
    "在高并发场景下",
    "显著降低了",
    "首 token 延迟",
    "吞吐量提升约",
    "显存占用",
    "调度器",
    "引入新的配置项",
    "保持向后兼容",
    "需要关注",
    "回归测试覆盖",
    "多卡张量并行",
    "量化权重加载",
    "专家路由",
    "注意力后端选择",
    "推测解码的接受率",
    "前缀缓存命中率",
    "异步调度",
    "CUDA Graph 捕获",
    "模型加载路径",
    "错误处理更加健壮",
    "日志输出",
    "边界条件",
    "数值精度",
    "性能回退风险",
    "兼容旧版本接口",
    "建议在生产环境中",
    "先在小规模集群验证",
    "对下游用户透明",
    "修复了竞态条件",
    "减少了一次内存拷贝",
)
_EN = (
    "fused_moe",
    "FlashInfer",
    "torch.compile",
    "CUDA graphs",
    "MI300X",
    "FP8",
    "NVFP4",
    "EAGLE-3",
    "DeepSeek-V3",
    "Qwen3",
    "Llama-4",
    "ROCm 6.4",
    "AITER",
    "Triton",
    "NCCL",
    "KV cache",
    "prefix caching",
    "chunked prefill",
    "tensor parallel",
    "expert parallel",
    "max_num_batched_tokens",
    "gpu_memory_utilization",
    "OpenAI API",
    "structured outputs",
    "xgrammar",
    "LoRA",
    "GGUF",
    "AWQ",
    "GPTQ",
    "Marlin",
    "CUTLASS",
)
_IMPORTANCE = (
    (Importance.HIGH, 0.15),
    (Importance.MEDIUM, 0.35),
    (Importance.LOW, 0.44),
    (None, 0.06),
)


def _sentence(rng: random.Random, words: int) -> str:
    parts = []
    for _ in range(words):
        parts.append(rng.choice(_EN) if rng.random() < 0.3 else rng.choice(_ZH))
    return " ".join(parts) + "。"


# What vLLM's squash-merged messages say: the pull request template's sections in English, a
# thing or two named, then sign-offs; two in five are the sign-offs alone. (Messages of Chinese
# prose dense with identifiers, as before, gave each commit ~11 platform and subsystem labels by
# keyword; real vLLM commits get 2.2: tests/core/classification_table.yml.)
_PURPOSES = (
    "This PR fixes a crash in {thing} when the batch is empty.",
    "Follow-up to the previous refactor: moves {thing} behind the platform interface.",
    "Adds support for {thing} and a flag to turn it off.",
    "The current code path recomputes the same tensors twice; this reuses them.",
    "Cleans up dead code left over from the V0 engine.",
    "Makes the error message clearer when the model config is invalid.",
    "Improves throughput of {thing} by avoiding a host-device sync.",
    "Removes a workaround that is no longer needed with the latest PyTorch.",
)
_TEST_PLANS = (
    "pytest tests/v1/core -q",
    "pytest tests/kernels -k {thing}",
    "Ran the benchmark script before and after the change.",
    "Existing CI.",
)


def _message(rng: random.Random, author: str, login: str) -> str:
    """A pull request's squash-merged message as vLLM's read."""
    signoff = f"Signed-off-by: {author} <{login}@users.noreply.github.com>"
    if rng.random() < 0.4:
        return signoff

    def said(templates: tuple[str, ...]) -> str:
        return rng.choice(templates).format(thing=rng.choice(_EN))

    purpose = " ".join(said(_PURPOSES) for _ in range(rng.randint(1, 2)))
    return f"## Purpose\n\n{purpose}\n\n## Test Plan\n\n{said(_TEST_PLANS)}\n\n## Test Result\n\nPassed.\n\n{signoff}"


def _paragraph(rng: random.Random, low: int, high: int) -> str:
    """Chinese prose with English identifiers, ``low``..``high`` characters (≤ the model's 2000)."""
    target = rng.randint(low, high)
    text = ""
    while len(text) < target:
        text += _sentence(rng, rng.randint(4, 9))
    return text[:1990]


def _labels(rng: random.Random, ids: tuple[str, ...], most: int) -> tuple[Label, ...]:
    chosen = rng.sample(ids, rng.randint(0, most))
    return tuple(Label(id=label, source=LabelSource.LLM, reason=_paragraph(rng, 20, 60)) for label in chosen)


def _analysis(rng: random.Random, importance: Importance | None, created: datetime) -> Analysis:
    if importance is None:
        status = AnalysisStatus.FAILED if rng.random() < 0.7 else AnalysisStatus.PENDING
        return Analysis(
            provenance=Provenance(
                analyzer=ANALYZER,
                prompt_version="v3",
                created_at=created,
                status=status,
                error="upstream 503 after 3 retries",
            )
        )
    # Importance drives length, as with the real analyses: high ones run to 6 KB, low ones ~2 KB.
    scale = {Importance.HIGH: 1.6, Importance.MEDIUM: 1.0, Importance.LOW: 0.6}[importance]
    insight_names = ("architecture", "performance", "security", "maintainability", "compatibility")
    insights = {name: _paragraph(rng, int(80 * scale), int(200 * scale)) for name in rng.sample(insight_names, 3)}
    return Analysis(
        change_type=rng.choice(list(ChangeType)),
        importance=importance,
        summary=tuple(_paragraph(rng, int(50 * scale), int(120 * scale)) for _ in range(rng.randint(2, 5))),
        impact_scope=tuple(
            ImpactItem(area=rng.choice(_PATHS), note=_paragraph(rng, 20, int(80 * scale)))
            for _ in range(rng.randint(1, 4))
        ),
        insights=TechnicalInsights(**insights),
        risks=tuple(_paragraph(rng, 40, int(120 * scale)) for _ in range(rng.randint(1, 3))),
        recommendations=tuple(
            Recommendation(
                audience=rng.choice(("用户", "开发者", "运维", "ROCm 用户")), advice=_paragraph(rng, 30, 100)
            )
            for _ in range(rng.randint(1, 3))
        ),
        conclusion=_paragraph(rng, 60, int(160 * scale)),
        # The model names one subsystem or two and rarely a platform (the rules find the rest).
        platforms=_labels(rng, _PLATFORMS, 1),
        subsystems=_labels(rng, _SUBSYSTEMS, 2),
        provenance=Provenance(analyzer=ANALYZER, prompt_version="v3", created_at=created, language="zh"),
    )


def _importance(rng: random.Random) -> Importance | None:
    draw = rng.random()
    for importance, share in _IMPORTANCE:
        if draw < share:
            return importance
        draw -= share
    return Importance.LOW


def synthetic_records(
    n: int, seed: int = 7, *, first_day: datetime = FIRST_DAY, first_number: int = 0
) -> Iterator[CommitRecord]:
    """``n`` records over ``ceil(n / 45)`` days from ``first_day``, the same for the same seed."""
    rng = random.Random(seed)
    days = max(1, -(-n // COMMITS_PER_DAY))
    for index in range(n):
        number = first_number + index
        day = index * days // n
        landed = first_day + timedelta(days=day, seconds=rng.randint(0, 86_399))
        author, login = rng.choice(_AUTHORS)
        where = rng.choice(_WHERE) if rng.random() < _WHERE_SHARE else ""
        title = f"{rng.choice(_TAGS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {where}".strip()
        title += f" (#{20_000 + number})"
        files = tuple(
            FileChange(path=path, additions=rng.randint(1, 400), deletions=rng.randint(0, 200))
            for path in rng.sample(_PATHS, rng.randint(1, 6))
        )
        commit = Commit(
            repository=REPOSITORY,
            sha=f"{rng.getrandbits(160):040x}",
            author_name=author,
            author_login=login,
            authored_at=landed - timedelta(hours=rng.randint(1, 72)),
            committed_at=landed,
            title=title,
            body=_message(rng, author, login),
            files=files,
        )
        yield CommitRecord(commit=commit, analysis=_analysis(rng, _importance(rng), landed + timedelta(hours=2)))


def fill_store(directory: Path, n: int, seed: int = 7) -> int:
    """Writes the synthetic archive into the store at ``directory``; returns the records written."""
    written = 0
    with AnalysisStore(directory) as store:
        for record in synthetic_records(n, seed):
            store.put(record)
            written += 1
    return written


def add_day(directory: Path, seed: int = 7) -> int:
    """One more day of 45 commits after the newest stored one (a night's new commits)."""
    with AnalysisStore(directory) as store:
        records = list(store.records())
        newest = max(record.commit.committed_at for record in records)
        first_day = datetime(newest.year, newest.month, newest.day, tzinfo=UTC) + timedelta(days=1)
        added = 0
        for record in synthetic_records(
            COMMITS_PER_DAY, seed + len(records), first_day=first_day, first_number=len(records)
        ):
            store.put(record)
            added += 1
    return added


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2000, help="commits to generate")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cache", type=Path, required=True, help="the store folder to fill")
    parser.add_argument("--add-day", action="store_true", help="append one day of 45 commits instead")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.add_day:
        added = add_day(args.cache, args.seed)
        print(f"{added} records of a new day into {args.cache} in {time.perf_counter() - started:.1f} s")
        return 0
    written = fill_store(args.cache, args.n, args.seed)
    print(f"{written} records into {args.cache} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
