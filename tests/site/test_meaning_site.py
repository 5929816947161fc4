"""What a commit means, on the built site: a history made with real git is fetched with the real
CLI (``--source git``), analysed offline and built with ``mkdocs build --strict``; each fact
appears on the pages it belongs to, in Chinese and in English, and in the operators' feed."""

from __future__ import annotations

import re
from pathlib import Path

import feedparser
import pytest

from commit_digest.cli import main
from commit_digest.store.analysis_store import AnalysisStore
from tests.site.conftest import BuiltSite, build_site
from tests.site.html import article, hrefs, visible_text
from tests.site.meaning_history import REPOSITORY, History, make_history


def _fetch_and_analyse(history: History, cache: Path) -> None:
    common = ["--repo", REPOSITORY, "--cache", str(cache)]
    fetch = ["fetch", *common, "--source", "git", "--git-dir", str(history.folder), "--no-pr"]
    assert main([*fetch, "--since", "2026-03-01", "--until", "2026-03-10"]) == 0
    assert main(["analyze", "--offline", *common]) == 0


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    return make_history(tmp_path_factory.mktemp("meaning") / "vllm")


def _site(root: Path, history: History, **options: object) -> BuiltSite:
    _fetch_and_analyse(history, root / "cache")
    return build_site(root, [], **options)


@pytest.fixture(scope="module")
def site(history: History, tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    return _site(tmp_path_factory.mktemp("meaning-zh"), history)


@pytest.fixture(scope="module")
def en(history: History, tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    return _site(tmp_path_factory.mktemp("meaning-en"), history, language="en")


def commit_url(history: History, name: str) -> str:
    return f"commits/{history.shas[name][:12]}/"


def text_of(site: BuiltSite, url: str) -> str:
    return visible_text(article(site.page(url)))


def test_the_commit_page_says_what_operators_must_change(site: BuiltSite, history: History) -> None:
    text = text_of(site, commit_url(history, "env"))
    assert "运维影响" in text
    assert "新增环境变量 VLLM_FOO（默认 0）" in text
    assert "环境变量 VLLM_OLD_SWITCH 默认值：1 → 0" not in text  # old → new, not the reverse
    assert "环境变量 VLLM_OLD_SWITCH 默认值：0 → 1" in text
    assert "vllm/envs.py" in text
    rocm = text_of(site, commit_url(history, "rocm"))
    assert "依赖 torch：==2.5.1 → ==2.6.0" in rocm
    flag = text_of(site, commit_url(history, "flag"))
    assert "新增命令行参数 --max-batch" in flag
    assert "max_batch" in flag  # the engine-argument field
    assert "运维影响" not in text_of(site, commit_url(history, "series1"))


def test_the_english_commit_page_says_it_in_english(en: BuiltSite, history: History) -> None:
    text = text_of(en, commit_url(history, "env"))
    assert "Operator impact" in text
    assert "New environment variable VLLM_FOO (default 0)" in text
    assert "Environment variable VLLM_OLD_SWITCH: default 0 → 1" in text
    assert "First released in" in text and "v0.2.0" in text
    assert re.search(r"[\u4e00-\u9fff]", text_of(en, "impact/")) is None


def test_the_impact_page_lists_each_change_newest_first_with_filters(site: BuiltSite, history: History) -> None:
    page = site.page("impact/")
    body = article(page)
    text = visible_text(body)
    assert text.index("Add --max-batch flag") < text.index("Bump torch to 2.6.0") < text.index("Add VLLM_FOO")
    # Each entry links its commit and carries what the filter reads.
    links = hrefs(body)
    assert f"../{commit_url(history, 'env')}" in links
    rocm_entry = re.search(r'<li class="digest-entry" id="c-{}"[^>]*>'.format(history.shas["rocm"][:12]), body)
    assert rocm_entry is not None
    assert 'data-platforms="rocm"' in rocm_entry.group(0) and 'data-kinds="dependency"' in rocm_entry.group(0)
    assert 'data-filter-kind="kinds"' in body and 'data-filter-kind="platforms"' in body
    assert "Fused MoE rewrite" not in text  # no operator change


def test_the_operators_feed_is_a_real_atom_feed(site: BuiltSite) -> None:
    parsed = feedparser.parse((site.site / "feeds" / "impact.xml").read_bytes())
    assert not parsed.bozo, parsed.bozo_exception
    titles = [entry.title for entry in parsed.entries]
    assert titles[0].startswith("[Frontend] Add --max-batch flag")
    assert any("VLLM_FOO" in title for title in titles)
    summary = next(entry.summary for entry in parsed.entries if "VLLM_FOO" in entry.title)
    assert "新增环境变量 VLLM_FOO（默认 0）" in summary
    assert "<code>" not in summary
    assert "../feeds/impact.xml" in hrefs(article(site.page("impact/")))
    assert 'href="https://digest.example.org/feeds/impact.xml"' in site.page("impact/")  # announced in <head>


def test_a_revert_and_the_reverted_commit_link_each_other(site: BuiltSite, history: History) -> None:
    reverted = site.page(commit_url(history, "broken"))
    text = visible_text(article(reverted))
    assert "此提交已被回滚" in text
    assert f"../{history.shas['revert'][:12]}/" in hrefs(article(reverted))
    revert = article(site.page(commit_url(history, "revert")))
    assert "回滚了" in visible_text(revert)
    assert f"../{history.shas['broken'][:12]}/" in hrefs(revert)
    day = visible_text(article(site.page("days/2026-03-04/")))
    assert "已回滚" in day


def test_fixes_links_both_ways_across_days(site: BuiltSite, history: History) -> None:
    fix = article(site.page(commit_url(history, "fix")))
    assert f"../{history.shas['flag'][:12]}/" in hrefs(fix)
    flag = article(site.page(commit_url(history, "flag")))
    assert "后续修复" in visible_text(flag)
    assert f"../{history.shas['fix'][:12]}/" in hrefs(flag)


def test_a_series_is_one_page_in_order_with_its_progress(site: BuiltSite, history: History) -> None:
    part = article(site.page(commit_url(history, "series2")))
    series_links = [link for link in hrefs(part) if "series/" in link]
    assert series_links, "the part's page links its series"
    series_url = series_links[0].replace("../../", "")
    page = article(site.page(series_url))
    text = visible_text(page)
    assert "已合入 3/3" in text
    positions = [text.index(f"[{number}/3]") for number in (1, 2, 3)]
    assert positions == sorted(positions)
    assert "Fused MoE rewrite" in visible_text(article(site.page("series/")))


def test_each_commit_says_its_first_release(site: BuiltSite, history: History) -> None:
    assert "v0.1.0" in text_of(site, commit_url(history, "layout"))
    # Forked after these: the release branch's tag carries them, though main's tag came first.
    for name in ("env", "rocm", "flag", "series2"):
        text = text_of(site, commit_url(history, name))
        assert "首次发布" in text and "v0.2.0" in text, name
    for name in ("series3", "fix"):
        assert "尚未发布" in text_of(site, commit_url(history, name)), name


def test_release_pages_write_the_release_notes(site: BuiltSite, history: History) -> None:
    index = visible_text(article(site.page("releases/")))
    assert "v0.2.0" in index and "v0.1.0" in index and "v0.3.0rc1" not in index
    notes = article(site.page("releases/v0.2.0/"))
    text = visible_text(notes)
    assert "升级须知" in text and "VLLM_FOO" in text and "torch" in text
    assert "按平台" in text and "ROCm" in text
    assert f"../../{commit_url(history, 'rocm')}" in hrefs(notes)
    assert "compare/v0.1.0...v0.2.0" in notes
    unreleased = visible_text(article(site.page("releases/unreleased/")))
    assert "Fused MoE rewrite [3/3]" in unreleased and "Fix the default of the flag" in unreleased
    assert "Bump torch" not in unreleased


def test_the_week_page_lists_the_real_operator_changes(site: BuiltSite) -> None:
    text = visible_text(article(site.page("weeks/2026-W10/")))
    section = text[text.index("运维须知") :]
    assert "VLLM_FOO" in section and "torch" in section and "--max-batch" in section


def test_the_navigation_has_impact_and_releases(site: BuiltSite) -> None:
    home = site.page("")
    assert "运维影响" in home and "发布" in home


def test_the_store_keeps_the_releases(site: BuiltSite) -> None:
    with AnalysisStore(site.root / "cache") as store:
        tags = {release.tag for release in store.releases(REPOSITORY)}
    assert tags == {"v0.1.0", "v0.2.0"}
