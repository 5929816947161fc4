"""The pure part: records to index to page specs, without MkDocs."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from commit_digest import api
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import CommitRecord, Importance
from commit_digest.site.model.index import build_index
from commit_digest.site.options import SiteOptions, split_options
from commit_digest.site.views.registry import generate_pages
from commit_digest.store.analysis_store import AnalysisStore
from tests.site.factories import make_commit, ok_analysis, sample_records

TAXONOMY = load_taxonomy()


def test_days_follow_the_site_time_zone() -> None:
    late = CommitRecord(
        commit=make_commit("late", "[Core] Late commit (#1)", datetime(2025, 12, 31, 23, 0, tzinfo=UTC)),
        analysis=ok_analysis(Importance.LOW),
    )
    utc = build_index([late], repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=TAXONOMY)
    shanghai = build_index(
        [late], repository="vllm-project/vllm", zone=ZoneInfo("Asia/Shanghai"), taxonomy=TAXONOMY
    )
    assert utc.days[0].iso == "2025-12-31"
    assert shanghai.days[0].iso == "2026-01-01"
    specs = {
        spec.src_uri: spec
        for spec in generate_pages(shanghai, TAXONOMY, SiteOptions(timezone="Asia/Shanghai"))
    }
    assert "days/2026-01-01.md" in specs and "archive/2026-01.md" in specs
    assert "07:00" in specs["days/2026-01-01.md"].render().html


def test_every_commit_is_counted_in_exactly_one_group() -> None:
    index = build_index(
        sample_records(), repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=TAXONOMY
    )
    for day in index.days:
        stats = day.stats
        assert stats.high + stats.medium + stats.low + stats.unanalysed == stats.total == len(day.commits)
    assert sum(len(day.commits) for day in index.days) == len(sample_records())


def test_pages_of_another_repository_are_not_generated() -> None:
    other = CommitRecord(
        commit=make_commit("x", "t", datetime(2026, 1, 1, tzinfo=UTC)).model_copy(
            update={"repository": "a/b"}
        ),
    )
    index = build_index([other], repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=TAXONOMY)
    assert index.days == ()
    specs = {spec.src_uri for spec in generate_pages(index, TAXONOMY, SiteOptions())}
    assert "index.md" in specs and not any(uri.startswith(("days/", "commits/")) for uri in specs)


def test_site_only_options_are_split_from_settings() -> None:
    digest, site = split_options({"repository": "a/b", "days_on_home": 3, "page_size": 50, "enabled": True})
    assert digest == {"repository": "a/b"}
    assert site == {"days_on_home": 3, "page_size": 50, "enabled": True}


def test_read_api_gives_days_and_months_from_an_mkdocs_yml(tmp_path: Path) -> None:
    with AnalysisStore(tmp_path / "store") as store:
        for record in sample_records():
            store.put(record)
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: x\nplugins:\n  - commit-digest:\n      cache_dir: store\n      page_size: 5\n",
        encoding="utf-8",
    )
    settings = api.load_site_settings(config)
    assert settings.cache_dir == tmp_path / "store"
    with api.open_digest(settings) as digest:
        assert digest.months() == ["2026-01", "2025-12"]
        assert [day.iso for day in digest.days()][:2] == ["2026-01-17", "2026-01-16"]
        assert len(digest.month("2026-01")) == 16
    assert str(api.text("[x](javascript:y)")) == "&#91;x&#93;(javascript&#58;y)"
    assert api.link("deprecations.md", api.commit_page("a" * 40)) == "../commits/aaaaaaaaaaaa/"
    assert api.link("deprecations.md", api.commit_page("a" * 40), directory_urls=False) == "commits/aaaaaaaaaaaa.html"
