"""Words as a person writes them (issue 47), on every page and feed of both demo sites, as a new
user builds them (`commit-digest demo --site-dir X --cache Y`, and with `--language en`): no
English noun in the wrong number after its count ("1 files"), no internal value ("llm:…",
"offline-2", a legacy report's file name), no bracket inside a bracket ("（CUDA（NVIDIA））").

The Chinese demo holds every kind of analysis a reader meets: the rules' own, a legacy daily
report's (imported with its report's file name) and a model's failed attempt."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from commit_digest.cli import main
from tests.site.reader_copy import authored_text, page_text, site_slips, site_texts, slips_in

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Demo:
    site: Path
    store: Path
    english: bool


def _demo(root: Path, *language: str) -> Demo:
    site, store = root / "site", root / "store"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)  # no mkdocs.yml here: the demo site shipped with the package
        assert main(["demo", *language, "--site-dir", str(site), "--cache", str(store)]) == 0
    return Demo(site, store, english=bool(language))


@pytest.fixture(scope="module")
def zh_demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    return _demo(tmp_path_factory.mktemp("zh-demo"))


@pytest.fixture(scope="module")
def en_demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    return _demo(tmp_path_factory.mktemp("en-demo"), "--language", "en")


@pytest.fixture(scope="module", params=["zh", "en"])
def demo(request: pytest.FixtureRequest) -> Demo:
    found: Demo = request.getfixturevalue(f"{request.param}_demo")
    return found


def test_the_checker_reads_every_page_and_feed(demo: Demo) -> None:
    read = dict(site_texts(demo.site))
    assert sum(page.endswith(".html") for page in read) > 200
    assert sum(page.startswith("feeds/") for page in read) > 10
    assert "status.json" in read


def test_no_english_noun_disagrees_with_its_count(en_demo: Demo) -> None:
    slips = site_slips(en_demo.site, english=True)
    assert slips["one_with_plural"] == {}
    assert slips["many_with_singular"] == {}
    # The counts the demo shows are said in both numbers, so both forms are in use.
    day = page_text((en_demo.site / "days" / "2026-01-15" / "index.html").read_text(encoding="utf-8"))
    assert re.search(r"Changes 1 file \(\+\d+/−\d+ lines\)", day)
    assert re.search(r"Changes [2-9] files \(\+\d+/−\d+ lines\)", day)


def test_no_page_or_feed_shows_an_internal_value(demo: Demo) -> None:
    assert site_slips(demo.site, english=demo.english)["internal"] == {}


def test_no_bracket_is_put_inside_a_bracket(demo: Demo) -> None:
    # What the commits' and the models' authors wrote keeps its brackets: only the site's words are judged.
    slips = site_slips(demo.site, english=demo.english, authored=authored_text(demo.store))
    assert slips["nested"] == {}


def _provenance(page: str) -> str:
    start = page.index('<ul class="digest-provenance">')
    return page_text(page[start : page.index("</ul>", start)]).replace("\n", " | ")


def test_each_commit_page_names_who_wrote_its_analysis_as_a_reader_knows_it(zh_demo: Demo, en_demo: Demo) -> None:
    said = {
        (language, _provenance(path.read_text(encoding="utf-8")))
        for language, demo in (("zh", zh_demo), ("en", en_demo))
        for path in (demo.site / "commits").glob("*/index.html")
    }
    zh = {text for language, text in said if language == "zh"}
    assert "分析方式：离线规则（未调用模型） | 状态：成功" in zh
    legacy = {text for text in zh if "旧版日报" in text}
    assert legacy and all(
        re.fullmatch(r"分析方式：旧版日报中由模型撰写的分析（2026-01-\d\d 的报告） \| 状态：成功", text)
        for text in legacy
    )
    assert {text for language, text in said if language == "en"} == {
        "Analysed by: offline rules (no model) | Status: ok"
    }


def test_a_failed_attempt_names_its_model_and_nothing_of_the_endpoint(zh_demo: Demo, en_demo: Demo) -> None:
    for demo, pattern in (
        (zh_demo, r"模型 [\w.-]+ 于 2026-\d\d-\d\d \d\d:\d\d:\d\d \(UTC\) 未能完成分析，下次运行时会重试。"),
        (
            en_demo,
            r"The model [\w.-]+ could not complete its analysis on 2026-\S+ \S+ \(UTC\); the next run retries it\.",
        ),
    ):
        notes = [
            text
            for path in (demo.site / "commits").glob("*/index.html")
            if (text := page_text(path.read_text(encoding="utf-8"))) and re.search(pattern, text)
        ]
        assert notes, demo.site


@pytest.mark.parametrize(
    ("before", "kind"),
    [
        # What the pages said before issue 47, each as a reader read it.
        ("Changes 1 files (+1/−1 lines), mainly in vllm/.", "one_with_plural"),
        ("[lmcache connector] clean up: 1 commits, 1 low.", "one_with_plural"),
        ("Week 2026-W02 3 commit", "many_with_singular"),
        ("分析来源\n分析器：offline\n模型：-\n提示词版本：offline-2", "internal"),
        ("Analyzer: legacy:001_26de92dd01ec965e.txt", "internal"),
        ("llm:gpt-4o-mini 的分析（2026-01-10 02:00:00 (UTC)）失败", "internal"),
        ("涉及特定平台（CUDA（NVIDIA））的代码路径", "nested"),
        ("The analysis by llm:gpt-4o-mini (2026-01-10 02:00:00 (UTC)) failed", "nested"),
    ],
)
def test_the_checker_finds_the_slips_the_pages_had(before: str, kind: str) -> None:
    assert kind in slips_in(before, english=True)


@pytest.mark.parametrize(
    "fine",
    [
        "Changes 1 file (+30/−1 lines), mainly in vllm/.",  # the −1 counts lines with +30
        "vLLM v0.1 files",
        "1 commit, 1 medium",
        "0 commits · 12 days",
        "ROCm (AMD) (reason: title tag [rocm])",  # side by side, not inside
        "涉及特定平台的代码路径：CUDA（NVIDIA）、ROCm（AMD）。",
        "（即 external_lb=False)，在 offline_mode（本地 + 远端）下",  # closed by a half-width bracket
    ],
)
def test_the_checker_leaves_what_a_person_writes(fine: str) -> None:
    assert slips_in(fine, english=True) == {}
