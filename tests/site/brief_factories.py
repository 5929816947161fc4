"""Days' briefs for site and notify tests: what the LLM's brief writer stores, for the sample days."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

from commit_digest.models import Provenance
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.briefs import BriefSentence, DayBrief
from tests.site.factories import sha_for

WRITTEN = datetime(2026, 1, 18, 3, 0, tzinfo=UTC)
SAMPLE_DAY = date(2026, 1, 15)  # high-1 (ROCm), medium-1 (CUDA), low-1, failed-1 (ROCm), pending-1

# Each language's sentences, each with the seeds of the commits it cites.
Written = dict[str, list[tuple[str, tuple[str, ...]]]]


def short(seed: str) -> str:
    return sha_for(seed)[:12]


def make_brief(
    day: date, platform: str | None, texts: Written, *, written: datetime = WRITTEN, model: str = "gpt-test"
) -> DayBrief:
    cited = {short(seed) for sentences in texts.values() for _, seeds in sentences for seed in seeds}
    return DayBrief(
        day=day,
        platform=platform,
        texts={
            language: tuple(
                BriefSentence(text=text, commits=tuple(short(seed) for seed in seeds)) for text, seeds in sentences
            )
            for language, sentences in texts.items()
        },  # type: ignore[misc]
        commits=tuple(sorted(cited)),
        inputs="0" * 32,
        provenance=Provenance(analyzer=f"llm:{model}", created_at=written),
    )


WHOLE_DAY: Written = {
    "zh": [
        (
            "ROCm 上启用了 shuffle KV cache 布局，配合汇编版 paged attention 内核，MI300 系列的解码吞吐应有提升。",
            ("high-1",),
        ),
        ("CUDA 上的 MoE 模型现在可以用 MXFP4 W4A16 量化运行，显存占用更低。", ("medium-1",)),
        ("gfx950 上的崩溃已修复，但这次修复的分析失败了：gfx950 用户升级后请留意回归。", ("failed-1",)),
        ("CI 固定了 transformers 的版本，本地开发环境请同步依赖。", ("pending-1", "low-1")),
    ],
    "en": [
        (
            "ROCm now uses the shuffle KV cache layout with an assembly paged-attention kernel: decoding on "
            "MI300-class GPUs should be faster.",
            ("high-1",),
        ),
        ("MoE models on CUDA can now run quantised to MXFP4 W4A16, in less GPU memory.", ("medium-1",)),
        (
            "A crash on gfx950 is fixed, but the fix's analysis failed: users on gfx950 should watch for "
            "regressions after upgrading.",
            ("failed-1",),
        ),
        ("CI pins the transformers version: sync your local environment's dependencies.", ("pending-1", "low-1")),
    ],
}
ROCM: Written = {
    "zh": [
        ("升级后默认使用 shuffle KV cache 布局和汇编 paged attention 内核，解码更快。", ("high-1",)),
        ("gfx950 上的崩溃已修复，gfx950 用户请尽快升级。", ("failed-1",)),
    ],
    "en": [
        (
            "After upgrading, the shuffle KV cache layout and the assembly paged-attention kernel are on: "
            "faster decoding.",
            ("high-1",),
        ),
        ("The crash on gfx950 is fixed: users on gfx950 should upgrade soon.", ("failed-1",)),
    ],
}
CUDA: Written = {
    "zh": [("MoE 模型可以用 MXFP4 W4A16 量化运行，适合显存紧张的部署。", ("medium-1",))],
    "en": [("MoE models can run quantised to MXFP4 W4A16: a fit for deployments short of GPU memory.", ("medium-1",))],
}


def sample_briefs() -> list[DayBrief]:
    """The whole day's brief of the sample's first day, and its ROCm and CUDA briefs."""
    return [
        make_brief(SAMPLE_DAY, None, WHOLE_DAY),
        make_brief(SAMPLE_DAY, "rocm", ROCM),
        make_brief(SAMPLE_DAY, "cuda", CUDA),
    ]


def store_briefs(root: Path, briefs: list[DayBrief]) -> None:
    """Puts ``briefs`` in the store ``build_site(root, ...)`` builds from."""
    with AnalysisStore(root / "cache") as store:
        for brief in briefs:
            store.put_brief(brief)
