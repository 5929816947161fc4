"""Pages that do not grow with the archive: a day keeps to its byte budget however long its
analyses are, listings are cut by month, and every link between generated pages resolves."""

from __future__ import annotations

import posixpath
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import (
    Analysis,
    ChangeType,
    CommitRecord,
    ImpactItem,
    Importance,
    Provenance,
    Recommendation,
    TechnicalInsights,
)
from commit_digest.site.model.index import build_index
from commit_digest.site.options import SiteOptions
from commit_digest.site.views.days import DAY_ENTRIES_LIMIT, DAY_SUMMARIES_BUDGET
from commit_digest.site.views.home import HOME_BUDGET
from commit_digest.site.views.registry import generate_pages
from tests.site.conftest import BuiltSite
from tests.site.factories import CREATED, label, make_commit, ok_analysis, sample_records, sha_for
from tests.site.html import article, hrefs, visible_text

TAXONOMY = load_taxonomy()
DAY = datetime(2026, 2, 3, tzinfo=UTC)
LONG = "长文本分析 long analysis text " * 60  # ~1.9 K characters, the model's limit per paragraph


def _long_analysis(importance: Importance, number: int, text: str = LONG) -> Analysis:
    return Analysis(
        change_type=ChangeType.FEATURE,
        importance=importance,
        summary=tuple(f"summary {number}-{bullet} {text}"[:2000] for bullet in range(5)),
        impact_scope=tuple(ImpactItem(area=f"area {item}", note=text[:900]) for item in range(5)),
        insights=TechnicalInsights(architecture=text, performance=text, compatibility=text),
        risks=(text, text),
        recommendations=(Recommendation(audience="用户", advice=text),),
        conclusion=text,
        platforms=(label("cuda", "reason"),),
        provenance=Provenance(analyzer="llm:gpt-test", created_at=CREATED),
    )


def _long_day(commits: int) -> list[CommitRecord]:
    importances = (Importance.HIGH, Importance.MEDIUM, Importance.LOW)
    return [
        CommitRecord(
            commit=make_commit(
                f"long-{number}", f"[Core] Long commit {number} (#{number + 1})", DAY + timedelta(minutes=number)
            ),
            analysis=_long_analysis(importances[number % 3], number),
        )
        for number in range(commits)
    ]


def _day_html(records: list[CommitRecord]) -> str:
    index = build_index(records, repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=TAXONOMY)
    [spec] = [spec for spec in generate_pages(index, TAXONOMY, SiteOptions()) if spec.src_uri.startswith("days/")]
    return spec.render().html


def _entries(html: str) -> list[str]:
    return re.split(r'<li class="digest-entry" id="c-', html)[1:]


def _form(entry: str) -> str:
    if "<details" in entry:
        return "full"
    return "summary" if "完整分析 →" in entry else "title"


def test_a_day_of_long_analyses_keeps_to_its_budget_full_analyses_first_by_importance() -> None:
    records = _long_day(60)
    html = _day_html(records)
    # Every commit's entry (with its chips: each commit here is [Core], so the rules add core to
    # the model's cuda) plus the analyses' budget: far below 150 KB with the theme.
    assert len(html.encode()) < 120_000
    entries = _entries(html)
    assert len(entries) == 60  # every commit keeps its entry
    forms = [_form(entry) for entry in entries]
    # An analysis at the model's every cap is larger than the day's budget for full analyses: it
    # is read on its commit page, a link away.
    assert "full" not in forms
    # Full analyses come first (high, then medium), then summaries, then title lines only.
    assert forms == sorted(forms, key=["full", "summary", "title"].index)
    assert entries[0].startswith(sha_for("long-57")[:12])  # newest high-importance commit first
    assert "summary" in forms
    assert _day_html(records) == html  # deterministic


def test_the_most_important_commits_of_a_day_show_their_analysis_in_full_once() -> None:
    """Analyses of a common length: the high-importance commits' in full (their first summary
    bullet once, as the entry's gist, not again inside), the others' gist and a link."""
    records = [
        record.model_copy(update={"analysis": _long_analysis(record.analysis.importance, number, text=LONG[:400])})
        for number, record in enumerate(_long_day(45))
    ]
    html = _day_html(records)
    entries = _entries(html)
    forms = [_form(entry) for entry in entries]
    assert forms[0] == "full" and "summary" in forms
    assert forms == sorted(forms, key=["full", "summary", "title"].index)
    high = next(record for record in reversed(records) if record.analysis.importance is Importance.HIGH)
    assert high.analysis is not None  # the newest high-importance commit comes first
    assert entries[0].startswith(high.commit.sha[:12])
    assert entries[0].count(high.analysis.summary[0][:60]) == 1
    assert high.analysis.summary[1][:60] in entries[0]


def test_summaries_keep_their_own_budget() -> None:
    html = _day_html(_long_day(200))
    entries = _entries(html)
    summaries = sum(len(entry.encode()) for entry in entries if _form(entry) == "summary")
    assert summaries <= DAY_SUMMARIES_BUDGET
    assert len(entries) == 200


def test_a_busy_day_shortens_its_last_analyses_not_its_page() -> None:
    # 120 commits: their lines of links alone take most of the page, so the analyses before them
    # give way, and every commit keeps its line.
    html = _day_html(_long_day(120))
    entries = _entries(html)
    assert len(entries) == 120
    assert sum(len(entry.encode()) for entry in entries) <= DAY_ENTRIES_LIMIT
    assert len(html.encode()) < 125_000
    forms = [_form(entry) for entry in entries]
    assert forms[0] != "title" and forms[-1] == "title"


def _home_html(records: list[CommitRecord]) -> str:
    index = build_index(records, repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=TAXONOMY)
    [spec] = [spec for spec in generate_pages(index, TAXONOMY, SiteOptions()) if spec.src_uri == "index.md"]
    return spec.render().html


def _week(commits_a_day: int, platforms: tuple[str, ...]) -> list[CommitRecord]:
    importances = (Importance.HIGH, Importance.MEDIUM, Importance.LOW)
    return [
        CommitRecord(
            commit=make_commit(f"w{day}-{number}", f"[Core] Change {day}-{number} (#{day * 100 + number + 1})", when),
            analysis=ok_analysis(
                importances[number % 3],
                summary=(f"第 {number} 个变更的摘要 summary of change {number} " * 4,),
                platforms=tuple(label(platform, "reason") for platform in platforms),
            ),
        )
        for day in range(7)
        for number in range(commits_a_day)
        if (when := DAY + timedelta(days=day, minutes=number))
    ]


def test_the_home_page_drops_its_oldest_days_rather_than_pass_its_budget() -> None:
    quiet = _home_html(_week(10, ("cuda",)))
    assert quiet.count('<section class="digest-day">') == 7
    # Sixty commits a day on four platforms each: a week of them is ~1,700 lines of links.
    busy = _home_html(_week(60, ("cuda", "rocm", "xpu", "tpu")))
    assert len(busy.encode()) <= HOME_BUDGET
    shown = re.findall(r'<h2 id="d-([\d-]+)">', busy)
    assert 1 <= len(shown) < 7
    assert shown == ["2026-02-09", "2026-02-08", "2026-02-07"][: len(shown)]  # the newest days, whole
    newest = busy[busy.index('id="d-2026-02-09"') :]
    rocm = newest[newest.index('data-platform="rocm"') :]
    assert rocm[: rocm.index("</details>")].count("<li>") == 60
    assert f"最近 {len(shown)} 天" in visible_text(busy)


@pytest.mark.slow
def test_every_link_between_generated_pages_resolves(zh_site: BuiltSite) -> None:
    checked = 0
    for name, page in zh_site.pages():
        if not name.startswith(("days/", "commits/", "archive/", "platforms/", "subsystems/")):
            continue
        base = posixpath.dirname(name)
        for target in hrefs(article(page)):
            if target.startswith(("http:", "https:", "#", "mailto:")):
                continue
            path = posixpath.normpath(posixpath.join(base, target.split("#")[0]))
            resolved = zh_site.site / path / "index.html" if target.endswith("/") else zh_site.site / path
            assert resolved.is_file(), (name, target)
            checked += 1
    assert checked > 100


@pytest.mark.slow
def test_day_pages_have_a_table_of_contents_of_groups_not_commits(zh_site: BuiltSite) -> None:
    page = zh_site.page("days/2026-01-15")
    toc = page[page.index('class="md-nav md-nav--secondary"') :]
    toc = toc[: toc.index("</nav>\n</div>") if "</nav>\n</div>" in toc else len(toc)]
    assert 'href="#high"' in toc and 'href="#unanalysed"' in toc
    assert 'href="#c-' not in toc  # a 54-commit day does not list 54 titles
    assert "高重要度变更 1" in visible_text(toc)


def test_a_label_month_page_does_not_change_when_a_later_month_is_added() -> None:
    def month_page(records: list[CommitRecord]) -> str:
        index = build_index(records, repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=TAXONOMY)
        specs = {spec.src_uri: spec for spec in generate_pages(index, TAXONOMY, SiteOptions(page_size=3))}
        return specs["platforms/cuda/2026-01.md"].render().html

    before = month_page(sample_records())
    later = _long_day(4)  # February 2026, CUDA-labelled
    assert month_page(sample_records() + later) == before
