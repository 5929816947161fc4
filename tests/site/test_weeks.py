"""Week pages: ISO weeks in the site's time zone, counts against the week before, series folded
into one line, the week's deprecations and new models; and the links between weeks and days."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from commit_digest.meaning.relations.series import series_part
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import ChangeType, CommitRecord, Importance, Provenance
from commit_digest.site.model.calendar import IsoWeek, weeks_until
from commit_digest.site.model.index import SiteIndex, SiteNarrative, build_index
from commit_digest.site.model.weeks import fold_series, week_summary, weeks_of
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.narratives import WeekNarrative
from tests.site.conftest import BuiltSite, build_site
from tests.site.factories import REPOSITORY, label, make_commit, ok_analysis, sample_records, sha_for
from tests.site.html import article, hrefs, visible_text

TAXONOMY = load_taxonomy()


def _record(seed: str, title: str, when: datetime, importance: Importance = Importance.MEDIUM, **analysis: object):
    return CommitRecord(commit=make_commit(seed, title, when), analysis=ok_analysis(importance, **analysis))  # type: ignore[arg-type]


def _index(records: list[CommitRecord], zone: str = "UTC") -> SiteIndex:
    return build_index(records, repository=REPOSITORY, zone=ZoneInfo(zone), taxonomy=TAXONOMY)


def _summary(index: SiteIndex, position: int = 0):
    weeks = weeks_of(index)
    return week_summary(
        index, weeks, position, platform_order=TAXONOMY.platform_ids, subsystem_order=TAXONOMY.subsystem_ids
    )


def test_iso_weeks_parse_and_step_across_years() -> None:
    week = IsoWeek.parse("2026-W01")
    assert (week.monday.isoformat(), week.sunday.isoformat()) == ("2025-12-29", "2026-01-04")
    assert week.previous.id == "2025-W52" and week.previous.next == week
    assert [item.id for item in weeks_until(IsoWeek.parse("2026-W02"), 3)] == ["2025-W52", "2026-W01", "2026-W02"]
    for bad in ("2026-W54", "2026-3", "W03"):
        with pytest.raises(ValueError, match="ISO week"):
            IsoWeek.parse(bad)


def test_a_commit_belongs_to_the_week_of_its_day_in_the_site_time_zone() -> None:
    # Sunday 2026-01-18 20:00 UTC is Monday 04:00 in Shanghai: week 3 in UTC, week 4 there.
    records = [_record("late-sunday", "[Core] Late on Sunday (#1)", datetime(2026, 1, 18, 20, 0, tzinfo=UTC))]
    assert [week.id for week, _ in weeks_of(_index(records, "UTC"))] == ["2026-W03"]
    assert [week.id for week, _ in weeks_of(_index(records, "Asia/Shanghai"))] == ["2026-W04"]


def test_series_markers() -> None:
    assert series_part("[Kernel][2/3] Add the fused kernel (#12)").part == 2  # type: ignore[union-attr]
    found = series_part("[Attention][4/n] Remove usage of deprecated x (#32001)")
    assert found is not None and (found.part, found.total, found.tags) == (4, None, "[attention]")
    assert series_part("[Part 2] Refactor the scheduler").name == "Refactor the scheduler"  # type: ignore[union-attr]
    for plain in ("Use 1/2 of the budget", "[3/2] impossible", "[ROCm] Fix a crash (#3)", "Bump x to 1/2"):
        assert series_part(plain) is None, plain


def test_a_series_folds_into_one_line_in_part_order() -> None:
    start = datetime(2026, 1, 12, 9, 0, tzinfo=UTC)
    records = [
        _record("s2", "[Kernel][2/3] Wire the kernel in (#2)", start + timedelta(hours=2)),
        _record("s1", "[Kernel][1/3] Add the kernel (#1)", start + timedelta(hours=1), Importance.HIGH),
        _record("s3", "[Kernel][3/3] Tune the kernel (#3)", start + timedelta(hours=3)),
        _record("other", "[Core] Something else (#4)", start + timedelta(hours=4)),
    ]
    index = _index(records)
    lines = fold_series(item for day in index.days for item in day.newest_first)
    assert [line.size for line in lines] == [3, 1]
    series = lines[0]
    assert series.group == "high"  # the line takes its most important part
    assert [marker for marker, _ in series.parts] == ["1/3", "2/3", "3/3"]


def test_a_week_counts_against_the_week_before_and_finds_deprecations_and_new_models() -> None:
    before = datetime(2026, 1, 6, 9, 0, tzinfo=UTC)  # week 2
    during = datetime(2026, 1, 13, 9, 0, tzinfo=UTC)  # week 3
    cuda = (label("cuda", "CUDA"),)
    records = [
        _record("b1", "[CUDA] One (#1)", before, platforms=cuda),
        _record("b2", "[CUDA] Two (#2)", before + timedelta(hours=1), platforms=cuda),
        _record("b3", "[CUDA] Three (#3)", before + timedelta(hours=2), platforms=cuda),
        _record("w1", "[CUDA] Faster kernels (#10)", during, Importance.HIGH, platforms=cuda),
        _record(
            "w2",
            "[Deprecation] Deprecate the old flag (#11)",
            during + timedelta(hours=1),
            change_type=ChangeType.DEPRECATION,
        ),
        _record(
            "w3",
            "[Model] Add support for Foo-7B (#12)",
            during + timedelta(hours=2),
            subsystems=(label("models", "model"),),
        ),
        _record("w4", "[Misc] Remove a redundant line (#13)", during + timedelta(hours=3), Importance.LOW),
    ]
    index = _index(records)
    narrative = SiteNarrative("2026-W03", "cuda", "CUDA got faster.", "gpt-test", "f1")
    index = SiteIndex(**{**index.__dict__, "narratives": {("2026-W03", "cuda"): narrative}})
    week = _summary(index)
    assert week.week.id == "2026-W03" and week.older == IsoWeek.parse("2026-W02")
    assert (week.stats.total, week.previous_total, week.change) == (4, 3, 1)
    [cuda_week] = [item for item in week.platforms if item.label_id == "cuda"]
    assert (cuda_week.count, cuda_week.previous, cuda_week.high, cuda_week.change) == (1, 3, 1, -2)
    assert cuda_week.narrative is narrative
    assert [line.lead.record.commit.title for line in week.deprecations] == [
        "[Deprecation] Deprecate the old flag (#11)"
    ]  # a low-importance "Remove a redundant line" is no removal users notice
    assert [line.lead.record.commit.title for line in week.new_models] == ["[Model] Add support for Foo-7B (#12)"]
    assert [line.lead.sha for line in week.highlights] == [index.days[0].commits[0].sha]


# -- the built site (tests/site/conftest.py's sample: 2026-W03 and 2026-W01) -------------------------


def test_week_page_links_its_days_and_neighbours(zh_site: BuiltSite) -> None:
    page = article(zh_site.page("weeks/2026-W03"))
    text = visible_text(page)
    assert "2026-W03 周报" in text and "2026-01-12 至 2026-01-18" in text
    links = hrefs(page)
    assert {"../../days/2026-01-15/", "../../days/2026-01-16/", "../../days/2026-01-17/"} <= set(links)
    assert "../2026-W01/" in links and "../" in links  # the older week with commits; all weeks
    assert "上周 0 个，▲ 16" in text
    for section in ("本周要点", "弃用与移除", "新模型", "运维须知", "按平台", "按子系统"):
        assert section in text, section
    assert "[Deprecation] Remove V0 engine (#32501)" in text
    # The hostile titles of the week show as text.
    assert "<script>" not in page and "payload 0 <script>document.title='pwned-script'</script>" in text


def test_days_link_their_week_and_the_home_page_the_latest(zh_site: BuiltSite) -> None:
    assert "../../weeks/2026-W03/" in hrefs(article(zh_site.page("days/2026-01-15")))
    assert "../../weeks/2026-W01/" in hrefs(article(zh_site.page("days/2025-12-31")))
    home = article(zh_site.page(""))
    assert "weeks/2026-W03/" in hrefs(home) and "最新周报：2026-W03" in visible_text(home)


def test_weeks_index_lists_every_week(zh_site: BuiltSite) -> None:
    page = article(zh_site.page("weeks"))
    assert [link for link in hrefs(page) if link.startswith("2026-")] == ["2026-W03/", "2026-W01/"]


def test_a_stored_narrative_shows_on_its_week_as_text(tmp_path: Path) -> None:
    hostile = "ROCm 本周更快。 <script>document.title='pwned-narrative'</script>"
    with AnalysisStore(tmp_path / "cache") as store:
        store.put_narrative(
            WeekNarrative(
                week="2026-W03",
                platform="rocm",
                texts={"zh": hostile, "en": "ROCm got faster."},
                commits=(sha_for("high-1")[:12],),
                provenance=Provenance(analyzer="llm:gpt-test", created_at=datetime(2026, 1, 19, 3, tzinfo=UTC)),
            )
        )
    site = build_site(tmp_path, sample_records())
    page = article(site.page("weeks/2026-W03"))
    rocm = page[page.index('id="platforms-rocm"') :]
    assert "gpt-test 撰写的本周概述" in visible_text(rocm)
    assert "ROCm 本周更快。 <script>document.title='pwned-narrative'</script>" in visible_text(rocm)
    assert "<script>" not in page
    cuda = page[page.index('id="platforms-cuda"') :]
    assert "撰写的本周概述" not in visible_text(cuda[: cuda.index("</section>")])  # no narrative: the facts only


def test_a_model_tag_alone_is_no_new_model() -> None:
    when = datetime(2026, 1, 13, 9, 0, tzinfo=UTC)
    models = (label("models", "model"),)
    records = [
        _record("m1", "[Model] Avoid token selection in SigLIP pooling head (#1)", when, subsystems=models),
        _record("m2", "[New Model] Support Bar-3B (#2)", when + timedelta(hours=1), subsystems=models),
        _record("m3", "[Core] Add support for the Baz model (#3)", when + timedelta(hours=2), subsystems=models),
        _record(
            "m4", "[Model] Fix Foo (#4)", when + timedelta(hours=3), subsystems=models, change_type=ChangeType.BUGFIX
        ),
    ]
    titles = [line.lead.record.commit.title for line in _summary(_index(records)).new_models]
    assert titles == ["[Core] Add support for the Baz model (#3)", "[New Model] Support Bar-3B (#2)"]
