"""A day's brief where a reader starts the day: at the top of its day page (each platform's a
disclosure the day filter opens), on the home page (the whole day's, and each platform's under
*My platform*), in the whole site's and each platform's feed, in both languages; an LLM's text
shown only as text; a day without one says its summary is the rules'. Real ``mkdocs build``s."""

from __future__ import annotations

import dataclasses
import html
import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import feedparser
import pytest

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import Provenance
from commit_digest.site.model.briefs import site_briefs
from commit_digest.site.model.index import SiteIndex, build_index, site_narratives
from commit_digest.site.options import SiteOptions
from commit_digest.site.views.feeds import feed_documents
from commit_digest.site.views.registry import generate_pages
from commit_digest.store.narratives import WeekNarrative
from tests.site.brief_factories import (
    CUDA,
    ROCM,
    SAMPLE_DAY,
    WHOLE_DAY,
    WRITTEN,
    make_brief,
    sample_briefs,
    short,
    store_briefs,
)
from tests.site.conftest import BuiltSite, build_site
from tests.site.factories import sample_records
from tests.site.html import article, event_handlers, hrefs, visible_text

TAXONOMY = load_taxonomy()
SITE_URL = "https://digest.example.org/"
HOSTILE_DAY = date(2026, 1, 17)  # the sample's day of hostile titles (payload-0 … payload-8)
OVERRIDE = "\u202e"
HOSTILE: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "zh": [
        ("<script>document.title='pwned-brief'</script> 请立即升级。", ("payload-0",)),
        ("[点这里](javascript:document.title='pwned-brief-link') 查看细节。", ("payload-1",)),
        (f"{OVERRIDE}exe.gnp 反转的文字", ("payload-2",)),
        # A commit of another day: the writer refuses it, but the durable form is data.
        ("这一句引用了别的日子的提交。", ("high-1",)),
    ]
}


def _brief_block(page: str) -> str:
    start = page.index('<section class="digest-brief"')
    return page[start : page.index("</section>", start)]


def _whole_block(page: str) -> str:
    block = _brief_block(page)
    start = block.index('data-brief-for=""')
    return block[start : block.index("</div>\n</div>", start)]


def _platform_block(page: str, platform: str) -> str:
    block = _brief_block(page)
    start = block.index(f'<details class="digest-brief__platform" id="brief-{platform}"')
    return block[start : block.index("</details>", start)]


def _all_briefs() -> list:
    return [
        *sample_briefs(),
        make_brief(HOSTILE_DAY, None, HOSTILE),
        # Written in English only: a Chinese site without English does not show it.
        make_brief(date(2026, 1, 16), None, {"en": [("The V0 engine is gone.", ("deprecate-1",))]}),
        # A day without a page (no commit that day): left out.
        make_brief(date(2026, 1, 20), None, {"zh": [("没有这一天的页面。", ("high-1",))]}),
    ]


@pytest.fixture(scope="module")
def brief_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    root = tmp_path_factory.mktemp("briefs-zh")
    store_briefs(root, _all_briefs())
    return build_site(root, sample_records())


@pytest.fixture(scope="module")
def english_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    root = tmp_path_factory.mktemp("briefs-en")
    store_briefs(root, sample_briefs())
    return build_site(root, sample_records(), language="en")


@pytest.mark.slow
def test_the_day_page_leads_with_its_brief_each_sentence_citing_its_commits(brief_site: BuiltSite) -> None:
    page = article(brief_site.page("days/2026-01-15"))
    # After the stats line, before the filter and the commits.
    assert page.index('class="digest-stats"') < page.index("data-digest-brief") < page.index("data-digest-filter")
    whole = _whole_block(page)
    text = visible_text(whole)
    for sentence, _ in WHOLE_DAY["zh"]:
        assert sentence in text
    assert "gpt-test 撰写的当日简报" in text
    # Each sentence's citations: links to the commits' pages, shown by PR number, named by title.
    items = re.findall(r"<li>(.*?)</li>", whole, re.S)
    assert [hrefs(item) for item in items] == [
        [f"../../commits/{short(seed)}/" for seed in seeds] for _, seeds in WHOLE_DAY["zh"]
    ]
    assert '#29887<span class="digest-sr"> [ROCm][Perf] Enable shuffle kv cache layout (#29887)</span>' in items[0]
    for link in hrefs(whole):
        assert (brief_site.site / "days/2026-01-15" / link / "index.html").resolve().is_file(), link
    # Its heading is in the table of contents.
    assert '<h2 id="brief">当日简报' in page


@pytest.mark.slow
def test_each_platform_brief_is_a_disclosure_the_day_filter_can_open(brief_site: BuiltSite) -> None:
    page = article(brief_site.page("days/2026-01-15"))
    for platform, written in (("rocm", ROCM), ("cuda", CUDA)):
        block = _platform_block(page, platform)
        assert f'data-brief-for="{platform}"' in block
        assert " open" not in block.split(">", 1)[0]  # closed: the whole day's shows first
        text = visible_text(block)
        assert all(sentence in text for sentence, _ in written["zh"])
        assert "简报" in text
    # The filter has a chip for each of them, which the site script follows.
    assert 'data-filter-value="rocm"' in page and 'data-filter-value="cuda"' in page


@pytest.mark.slow
def test_a_hostile_brief_is_shown_as_text(brief_site: BuiltSite) -> None:
    page = brief_site.page("days/2026-01-17")
    whole = _whole_block(article(page))
    text = visible_text(whole)
    assert "<script>document.title='pwned-brief'</script> 请立即升级。" in text
    assert "[点这里](javascript:document.title='pwned-brief-link') 查看细节。" in text
    assert "<script>document" not in page
    assert not event_handlers(page)
    assert "javascript:" not in "".join(hrefs(page))
    # The override reverses its own sentence at most: inside a <bdi> (as a title's), its citation
    # after it in the order written.
    reversed_item = next(item for item in re.findall(r"<li>(.*?)</li>", whole, re.S) if OVERRIDE in item)
    assert reversed_item.startswith(f'<bdi>{OVERRIDE}exe.gnp 反转的文字</bdi> <a class="digest-cite"')
    # A citation of a commit of another day is left out; its sentence stays.
    other_day = next(item for item in re.findall(r"<li>(.*?)</li>", whole, re.S) if "别的日子" in item)
    assert "digest-cite" not in other_day


def _description(page: str) -> str:
    found = re.search(r'<meta name="description" content="([^"]*)">', page)
    assert found is not None
    return html.unescape(found.group(1))


@pytest.mark.slow
def test_a_link_to_the_day_previews_its_brief(brief_site: BuiltSite) -> None:
    described = _description(brief_site.page("days/2026-01-15"))
    assert described.startswith("2026-01-15：5 个提交，高 1 · 中 1 · 低 1 · 未分析 2。" + WHOLE_DAY["zh"][0][0])
    hostile = _description(brief_site.page("days/2026-01-17"))
    assert "<script>document.title='pwned-brief'</script>" in hostile  # text in an attribute, escaped
    assert '<meta name="description" content="2026-01-17' in brief_site.page("days/2026-01-17")
    quiet = _description(brief_site.page("days/2026-01-16"))
    assert "[Deprecation] Remove V0 engine (#32501)" in quiet  # no brief: its titles, as before


@pytest.mark.slow
def test_a_day_without_a_brief_says_its_summary_is_the_rules_and_nothing_more(brief_site: BuiltSite) -> None:
    page = article(brief_site.page("days/2026-01-16"))  # its only brief is in English: not this site's
    assert "data-digest-brief" not in page and "digest-brief__body" not in page
    assert page.count('class="digest-brief__none"') == 1
    assert "当日没有 LLM 撰写的简报：以下摘要由规则生成。" in visible_text(page)
    assert "V0 engine is gone" not in page
    assert not (brief_site.site / "days/2026-01-20").exists()  # a brief makes no page


@pytest.mark.slow
def test_the_home_page_shows_each_days_brief_and_each_platforms_under_my_platform(brief_site: BuiltSite) -> None:
    home = article(brief_site.page(""))
    day = home[home.index('id="d-2026-01-15"') :]
    day = day[: day.index("</section>")]
    assert all(sentence in visible_text(day) for sentence, _ in WHOLE_DAY["zh"])
    assert day.index("digest-brief__body") < day.index('class="digest-counts"')  # first, after the stats
    rocm = day[day.index('<details class="digest-platform" data-platform="rocm">') :]
    rocm = rocm[: rocm.index("</details>")]
    assert all(sentence in visible_text(rocm) for sentence, _ in ROCM["zh"])
    assert f'href="commits/{short("high-1")}/"' in rocm
    quiet = home[home.index('id="d-2026-01-16"') :]
    assert "当日没有 LLM 撰写的简报" in visible_text(quiet[: quiet.index("</section>")])


@pytest.mark.slow
def test_the_feeds_carry_each_days_brief_beside_its_commits(brief_site: BuiltSite) -> None:
    def parsed(path: str) -> feedparser.FeedParserDict:
        feed = feedparser.parse((brief_site.site / path).read_bytes())
        assert not feed.bozo, feed.get("bozo_exception")
        return feed

    whole = parsed("feeds/all.xml")
    entries = {entry.id: entry for entry in whole.entries}
    brief = entries[f"{SITE_URL}days/2026-01-15/#brief"]
    assert brief.title == "2026-01-15 当日简报"
    assert brief.link == f"{SITE_URL}days/2026-01-15/#brief"
    assert brief.summary.splitlines()[: len(WHOLE_DAY["zh"])] == [sentence for sentence, _ in WHOLE_DAY["zh"]]
    assert brief.summary_detail.type == "text/plain"
    assert datetime.fromisoformat(brief.updated) == WRITTEN
    hostile = entries[f"{SITE_URL}days/2026-01-17/#brief"]
    assert "<script>document.title='pwned-brief'</script>" in hostile.summary  # text, in a text element
    assert OVERRIDE not in hostile.summary
    # Every commit keeps its entry: the briefs come beside them.
    assert sum("/commits/" in entry.id for entry in whole.entries) == len(sample_records())
    rocm = {entry.id: entry for entry in parsed("feeds/platforms/rocm.xml").entries}
    own = rocm[f"{SITE_URL}days/2026-01-15/#brief-rocm"]
    assert own.link == f"{SITE_URL}days/2026-01-15/?platform=rocm#brief-rocm"
    assert own.summary.splitlines()[0] == ROCM["zh"][0][0]
    assert f"{SITE_URL}days/2026-01-15/#brief" not in rocm
    assert not any("#brief" in entry.id for entry in parsed("feeds/subsystems/core.xml").entries)


@pytest.mark.slow
def test_the_english_site_shows_the_english_brief_in_english_words(english_site: BuiltSite) -> None:
    page = article(english_site.page("days/2026-01-15"))
    text = visible_text(_whole_block(page))
    assert all(sentence in text for sentence, _ in WHOLE_DAY["en"])
    assert "The day as gpt-test tells it" in text
    assert "The day in brief" in visible_text(_brief_block(page))
    assert "ROCm (AMD) in brief" in visible_text(_platform_block(page, "rocm"))
    quiet = visible_text(article(english_site.page("days/2026-01-16")))
    assert "No written brief for this day: the summary below is the rule-based one." in quiet
    feed = feedparser.parse((english_site.site / "feeds/all.xml").read_bytes())
    assert any(entry.title == "2026-01-15: the day in brief" for entry in feed.entries)


def _index(records: list | None = None, briefs: list | None = None, languages: tuple[str, ...] = ("zh",)) -> SiteIndex:
    index = build_index(
        records if records is not None else sample_records(),
        repository="vllm-project/vllm",
        zone=ZoneInfo("UTC"),
        taxonomy=TAXONOMY,
    )
    days = {day.date: day.commits for day in index.days}
    stored = briefs if briefs is not None else sample_briefs()
    return dataclasses.replace(index, briefs=site_briefs(stored, days, "zh", languages))


def test_a_brief_is_read_in_the_sites_languages_only_its_citations_on_its_day() -> None:
    english_only = make_brief(SAMPLE_DAY, "rocm", {"en": [("ROCm is faster.", ("high-1",))]})
    stray = make_brief(SAMPLE_DAY, None, {"zh": [("两处引用。", ("high-1", "deprecate-1"))]})
    assert _index(briefs=[english_only]).briefs == {}  # a Chinese site: no English brief
    shown = _index(briefs=[english_only], languages=("zh", "en")).brief(SAMPLE_DAY, "rocm")
    assert shown is not None and shown.original_language == "en"  # marked, as a narrative is
    [sentence] = _index(briefs=[stray]).briefs[(SAMPLE_DAY, None)].sentences
    assert [item.short_sha for item in sentence.cites] == [short("high-1")]  # deprecate-1 is of 2026-01-16


def _day_spec(index: SiteIndex, day: str = "days/2026-01-15.md"):
    return next(spec for spec in generate_pages(index, TAXONOMY, SiteOptions()) if spec.src_uri == day)


def test_a_brief_is_an_input_of_its_day_page_only() -> None:
    before = _index()
    rewritten = [*sample_briefs()[:2], make_brief(SAMPLE_DAY, "cuda", CUDA, written=WRITTEN + timedelta(hours=1))]
    after = _index(briefs=rewritten)
    assert _day_spec(before).inputs != _day_spec(after).inputs
    assert _day_spec(before).inputs != _day_spec(_index(briefs=[])).inputs
    other = "days/2026-01-16.md"
    assert (
        _day_spec(before, other).inputs == _day_spec(after, other).inputs == _day_spec(_index(briefs=[]), other).inputs
    )


def test_week_narratives_are_a_week_entry_of_the_whole_site_and_platform_feeds() -> None:
    narrative = WeekNarrative(
        week="2026-W03",
        platform="rocm",
        texts={"zh": "ROCm 本周更快。\n\n第二段 <b>bold</b>。"},
        commits=(short("high-1"),),
        provenance=Provenance(analyzer="llm:gpt-week", created_at=datetime(2026, 1, 19, 3, tzinfo=UTC)),
    )
    index = dataclasses.replace(_index(), narratives=site_narratives([narrative], "zh"))
    options = SiteOptions(timezone="Asia/Shanghai")
    docs = dict(feed_documents(index, TAXONOMY, options, site_url=SITE_URL, site_name="Digest"))
    whole = feedparser.parse(docs["feeds/all.xml"])
    assert not whole.bozo
    week = next(entry for entry in whole.entries if entry.id == f"{SITE_URL}weeks/2026-W03/#platforms")
    assert week.title == "2026-W03 本周概述"
    assert week.summary.startswith("ROCm（AMD）：ROCm 本周更快。\n\n第二段 <b>bold</b>。\ngpt-week 撰写的本周概述")
    assert week.updated == "2026-01-19T11:00:00+08:00"
    rocm = feedparser.parse(docs["feeds/platforms/rocm.xml"])
    ids = [entry.id for entry in rocm.entries]
    assert f"{SITE_URL}weeks/2026-W03/#platforms-rocm" in ids
    # Newest first by when each was written or landed: the week's narrative (19 Jan) leads.
    assert ids[0] == f"{SITE_URL}weeks/2026-W03/#platforms-rocm"
    assert rocm.feed.updated == max(entry.updated for entry in rocm.entries)
    cuda = feedparser.parse(docs["feeds/platforms/cuda.xml"])
    assert not any("/weeks/" in entry.id for entry in cuda.entries)  # no CUDA narrative
    assert "简报" in cuda.feed.subtitle
    tpu = feedparser.parse(docs["feeds/platforms/tpu.xml"])
    assert tpu.entries == [] and "简报" not in tpu.feed.subtitle
