"""A commit that holds as much as the store accepts in every field still gets pages under 150 KB.

Its title, author, message, pull request description, files and analysis (in both languages) are
each at the store's caps, its message names thousands of pull requests, and it carries every label
with the longest reason. The commit page shortens what it shows until it fits and says where the
rest is: the message and the files on GitHub, the analysis in shorter paragraphs marked as such."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from commit_digest import caps
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import (
    Analysis,
    AnalysisText,
    ChangeType,
    Commit,
    CommitRecord,
    FileChange,
    FileStatus,
    ImpactItem,
    Importance,
    Label,
    LabelSource,
    Provenance,
    PullRequestInfo,
    Recommendation,
    TechnicalInsights,
)
from tests.site.conftest import BuiltSite, build_site
from tests.site.factories import REPOSITORY, make_commit, ok_analysis, sha_for

pytestmark = pytest.mark.slow

PAGE_LIMIT = 150 * 1024  # as benchmarks/scale.py counts the README's "150 KB"
WHEN = datetime(2026, 1, 14, 9, 0, tzinfo=UTC)
TAXONOMY = load_taxonomy()


def _long(length: int, word: str) -> str:
    return (word * (length // len(word) + 1))[:length].strip() or word


def _wording(word: str) -> dict[str, object]:
    stored = caps.STORED
    paragraph = _long(stored.paragraph, word)
    return {
        "summary": tuple(paragraph for _ in range(stored.summary_items)),
        "impact_scope": tuple(
            ImpactItem(area=_long(stored.short, word), note=_long(stored.note, word))
            for _ in range(stored.impact_items)
        ),
        "insights": TechnicalInsights(
            architecture=paragraph,
            performance=paragraph,
            security=paragraph,
            maintainability=paragraph,
            compatibility=paragraph,
        ),
        "risks": tuple(paragraph for _ in range(stored.list_items)),
        "recommendations": tuple(
            Recommendation(audience=_long(stored.short, word), advice=paragraph) for _ in range(stored.list_items)
        ),
        "conclusion": paragraph,
    }


def _labels(ids: tuple[str, ...]) -> tuple[Label, ...]:
    return tuple(Label(id=label, source=LabelSource.LLM, reason=_long(caps.STORED.short, "理由")) for label in ids)


def largest_record() -> CommitRecord:
    body = "\n\n".join(
        f"修复调度器 Fixes #{number} and see https://github.com/{REPOSITORY}/pull/{number} 的问题。" * 3
        for number in range(1, 3000)
    )[:200_000]
    commit = Commit(
        repository=REPOSITORY,
        sha=sha_for("largest"),
        author_name=_long(300, "名字"),
        author_login="largest",
        authored_at=WHEN,
        committed_at=WHEN,
        title="\u202e" + _long(1999, "调度器改动 <b>"),  # reversing, markup, and far past what a heading shows
        body=body,
        files=tuple(
            FileChange(
                path=f"vllm/{number}/" + _long(990, "深层目录/"),
                previous_path=f"old/{number}/" + _long(990, "旧目录/"),
                status=FileStatus.RENAMED,
                additions=number,
                deletions=1,
            )
            for number in range(3000)
        ),
        pull_request=PullRequestInfo(number=31999, description=_long(100_000, "描述文字 #123 ")),
    )
    analysis = Analysis(
        change_type=ChangeType.FEATURE,
        importance=Importance.HIGH,
        **_wording("分析文字"),
        platforms=_labels(TAXONOMY.platform_ids),
        subsystems=_labels(TAXONOMY.subsystem_ids),
        provenance=Provenance(analyzer="llm:gpt-4o-mini", prompt_version="llm-1", created_at=WHEN, language="zh"),
    )
    analysis = analysis.with_translation("en", AnalysisText(**_wording("analysis words ")))  # type: ignore[arg-type]
    return CommitRecord(commit=commit, analysis=analysis)


def _records() -> list[CommitRecord]:
    neighbour = make_commit("neighbour", "[ROCm] A quiet change (#31998)", WHEN.replace(hour=8))
    return [largest_record(), CommitRecord(commit=neighbour, analysis=ok_analysis(Importance.LOW))]


@pytest.fixture(scope="module", params=["zh", "en"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    return build_site(tmp_path_factory.mktemp(f"largest-{request.param}"), _records(), language=request.param)


def test_every_page_of_the_largest_commit_stays_under_150_kb(site: BuiltSite) -> None:
    sizes = {path: len(html.encode("utf-8")) for path, html in site.pages()}
    over = {path: size for path, size in sizes.items() if size > PAGE_LIMIT}
    assert not over, over


def test_its_commit_page_says_where_the_rest_is(site: BuiltSite) -> None:
    page = site.page(f"commits/{sha_for('largest')[:12]}/")
    web = f"https://github.com/{REPOSITORY}/commit/{sha_for('largest')}"
    assert page.count(f'href="{web}"') >= 2  # the links line, and the cut message or files
    assert "digest-shortened" in page  # the analysis says it was shortened
    title = largest_record().commit.title
    shown = title.replace("<", "&lt;").replace(">", "&gt;")
    assert f'<p class="digest-title-full"><bdi>{shown}</bdi></p>' in page  # whole, escaped and isolated
    heading = page.split('<h1 id="top">', 1)[1].split("</h1>", 1)[0]
    assert "<bdi>" in heading and "…" in heading and len(heading) < 2 * 300 * 4  # cut as listings cut it
    assert re.search(r"3000 (more files|个文件)", page)  # the files it could not list are counted and linked
