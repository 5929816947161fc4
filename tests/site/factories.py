"""Records for site tests: several days, every importance, not-ok analyses, Chinese and English text."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

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

REPOSITORY = "vllm-project/vllm"
CREATED = datetime(2026, 1, 20, 8, 0, tzinfo=UTC)

# Untrusted text that must show as the text it is.
PAYLOADS: tuple[str, ...] = (
    "<script>document.title='pwned-script'</script>",
    "<img src=x onerror=\"document.title='pwned-img'\">",
    "[click me](javascript:document.title='pwned-link')",
    "plain {: onmouseover=\"document.title='pwned-attr'\" }",
    '--8<-- "mkdocs.yml"',
    "pipe | in | cell",
    "# not a heading",
    "<div>unclosed div",
    "[relative](../../index.md)",
)


def sha_for(seed: str) -> str:
    return hashlib.sha1(seed.encode()).hexdigest()


def make_commit(
    seed: str,
    title: str,
    when: datetime,
    *,
    body: str = "",
    author: str = "Dev One",
    paths: tuple[str, ...] = ("vllm/engine/core.py",),
) -> Commit:
    return Commit(
        repository=REPOSITORY,
        sha=sha_for(seed),
        author_name=author,
        author_login="devone",
        authored_at=when,
        committed_at=when,
        title=title,
        body=body,
        files=tuple(FileChange(path=path, additions=3, deletions=1) for path in paths),
    )


def ok_analysis(
    importance: Importance,
    *,
    change_type: ChangeType = ChangeType.FEATURE,
    summary: tuple[str, ...] = ("新增功能摘要 feature summary",),
    platforms: tuple[Label, ...] = (),
    subsystems: tuple[Label, ...] = (),
    text: str = "",
) -> Analysis:
    extra = f" {text}" if text else ""
    return Analysis(
        change_type=change_type,
        importance=importance,
        summary=summary,
        impact_scope=(ImpactItem(area="调度器 scheduler" + extra, note="影响说明" + extra),),
        insights=TechnicalInsights(
            architecture="架构洞察 architecture insight" + extra,
            performance="性能洞察 throughput insight",
            security=None,
            maintainability="可维护性 maintainability",
            compatibility="兼容性 compatibility" + extra,
        ),
        risks=("潜在风险 regression risk" + extra,),
        recommendations=(
            Recommendation(audience="ROCm 用户" + extra, advice="建议升级 upgrade advice" + extra),
        ),
        conclusion="综合评价 conclusion text" + extra,
        platforms=platforms,
        subsystems=subsystems,
        provenance=Provenance(analyzer="llm:gpt-test", prompt_version="v3", created_at=CREATED),
    )


def not_ok_analysis(status: AnalysisStatus, error: str) -> Analysis:
    return Analysis(
        provenance=Provenance(analyzer="llm:gpt-test", created_at=CREATED, status=status, error=error)
    )


def label(label_id: str, reason: str) -> Label:
    return Label(id=label_id, source=LabelSource.LLM, reason=reason)


def sample_records() -> list[CommitRecord]:
    """Three days in January 2026 and one in December 2025; every group is present."""
    records: list[CommitRecord] = []
    day1 = datetime(2026, 1, 15, 10, 0, tzinfo=UTC)
    records.append(
        CommitRecord(
            commit=make_commit("high-1", "[ROCm][Perf] Enable shuffle kv cache layout (#29887)", day1),
            analysis=ok_analysis(
                Importance.HIGH,
                change_type=ChangeType.PERFORMANCE,
                summary=("在 ROCm 上启用 shuffle KV cache 布局", "Assembly paged attention kernel"),
                platforms=(label("rocm", "tag [ROCm] 标题标签"),),
                subsystems=(
                    label("attention", "改动了 attention 后端"),
                    label("kv-cache", "kv cache layout"),
                ),
            ),
        )
    )
    records.append(
        CommitRecord(
            commit=make_commit(
                "medium-1",
                "[Quant] Support MXFP4 W4A16 for MoE (#32285)",
                day1 + timedelta(hours=1),
                author="Dipika Sikka",
            ),
            analysis=ok_analysis(
                Importance.MEDIUM,
                change_type=ChangeType.FEATURE,
                platforms=(label("cuda", "MXFP4 kernels run on CUDA"),),
                subsystems=(label("quantization", "quantization method"), label("moe", "MoE models")),
            ),
        )
    )
    records.append(
        CommitRecord(
            commit=make_commit("low-1", "[Misc] Remove redundant line (#32366)", day1 + timedelta(hours=2)),
            analysis=ok_analysis(
                Importance.LOW,
                change_type=ChangeType.REFACTOR,
                summary=("删除多余的一行代码",),
                subsystems=(label("core", "core engine"),),
            ),
        )
    )
    records.append(
        CommitRecord(
            commit=make_commit(
                "failed-1",
                "[ROCm] Fix gfx950 crash (#32400)",
                day1 + timedelta(hours=3),
                paths=("vllm/platforms/rocm.py",),
            ),
            analysis=not_ok_analysis(AnalysisStatus.FAILED, "timeout after 120 s"),
        )
    )
    records.append(
        CommitRecord(
            commit=make_commit(
                "pending-1",
                "[CI] Pin transformers (#32350)",
                day1 + timedelta(hours=4),
                paths=(".buildkite/test-pipeline.yaml",),
            ),
        )
    )
    day2 = datetime(2026, 1, 16, 9, 30, tzinfo=UTC)
    records.append(
        CommitRecord(
            commit=make_commit("refused-1", "[Model] Add new model (#32500)", day2),
            analysis=not_ok_analysis(AnalysisStatus.REFUSED, "the model refused"),
        )
    )
    records.append(
        CommitRecord(
            commit=make_commit(
                "deprecate-1", "[Deprecation] Remove V0 engine (#32501)", day2 + timedelta(hours=2)
            ),
            analysis=ok_analysis(
                Importance.HIGH,
                change_type=ChangeType.DEPRECATION,
                summary=("移除 V0 引擎 remove the V0 engine",),
                subsystems=(label("core", "engine removal"),),
            ),
            failure=Provenance(
                analyzer="llm:gpt-newer",
                created_at=CREATED + timedelta(days=1),
                status=AnalysisStatus.FAILED,
                error="rate limited",
            ),
        )
    )
    # Day 3 holds the hostile text: titles, authors, analysis fields.
    day3 = datetime(2026, 1, 17, 7, 0, tzinfo=UTC)
    for number, payload in enumerate(PAYLOADS):
        records.append(
            CommitRecord(
                commit=make_commit(
                    f"payload-{number}",
                    f"payload {number} {payload}",
                    day3 + timedelta(minutes=number),
                    author=f"Mallory {payload}",
                    body=payload,
                ),
                analysis=ok_analysis(
                    (Importance.HIGH, Importance.MEDIUM, Importance.LOW)[number % 3],
                    change_type=ChangeType.BUGFIX,
                    summary=(f"payload summary {payload}",),
                    platforms=(label("cuda", f"reason {payload}"),),
                    text=payload,
                ),
            )
        )
    older = datetime(2025, 12, 31, 23, 0, tzinfo=UTC)
    records.append(
        CommitRecord(
            commit=make_commit("december-1", "[Doc] Update docs (#31000)", older),
            analysis=ok_analysis(
                Importance.LOW,
                change_type=ChangeType.DOCS,
                summary=("Update the English docs",),
                subsystems=(label("docs", "docs/ changed"),),
            ),
        )
    )
    return records
