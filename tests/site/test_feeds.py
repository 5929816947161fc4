"""Atom feeds as a pure module: every document parsed by feedparser (what feed readers use) and by
ElementTree, without MkDocs."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import feedparser
import pytest

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import AnalysisStatus, CommitRecord, Importance
from commit_digest.site import paths
from commit_digest.site.model.index import SiteIndex, SiteRepository, build_index
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.escape import title_plain
from commit_digest.site.rendering.feed_list import FEED_SIZE, feed_path, feeds_of_page, site_feeds
from commit_digest.site.views.feeds import feed_document, feed_documents
from tests.site.factories import PAYLOADS, label, make_commit, not_ok_analysis, ok_analysis, sample_records

TAXONOMY = load_taxonomy()
SITE_URL = "https://digest.example.org/"
ATOM = "{http://www.w3.org/2005/Atom}"
# Everything an entry may hold: anything else (a <script>, an <img>) would be markup from a commit.
ENTRY_CHILDREN = {"id", "title", "link", "published", "updated", "author", "category", "summary"}


def index_of(records: list[CommitRecord], language: str = "zh", **repositories: object) -> SiteIndex:
    return build_index(
        records,
        repository="vllm-project/vllm",
        zone=ZoneInfo("Asia/Shanghai"),
        taxonomy=TAXONOMY,
        language=language,  # type: ignore[arg-type]
        **repositories,  # type: ignore[arg-type]
    )


def documents(index: SiteIndex, language: str = "zh", **options: object) -> dict[str, bytes]:
    site_options = SiteOptions(language=language, timezone="Asia/Shanghai", **options)  # type: ignore[arg-type]
    return dict(feed_documents(index, TAXONOMY, site_options, site_url=SITE_URL, site_name="Digest"))


def parsed(document: bytes) -> feedparser.FeedParserDict:
    feed = feedparser.parse(document)
    assert not feed.bozo, feed.get("bozo_exception")
    return feed


@pytest.fixture(scope="module")
def sample() -> tuple[SiteIndex, dict[str, bytes]]:
    index = index_of(sample_records())
    return index, documents(index)


def test_every_feed_is_well_formed_atom_with_absolute_stable_urls(sample: tuple[SiteIndex, dict[str, bytes]]) -> None:
    index, docs = sample
    assert {"feeds/all.xml", "feeds/high.xml", "feeds/platforms/cuda.xml", "feeds/subsystems/attention.xml"} <= set(
        docs
    )
    # A label without commits has its feed (a reader may subscribe before the first one).
    assert not index.by_platform["tpu"] and "feeds/platforms/tpu.xml" in docs
    assert not any(path.startswith("feeds/repositories/") for path in docs)  # one repository
    for path, document in docs.items():
        feed = parsed(document)
        assert feed.version == "atom10"
        assert feed.feed.id == SITE_URL + path
        assert feed.feed.language == "zh-CN"
        assert feed.feed.generator == "commit-digest"
        links = {link.rel: link for link in feed.feed.links}
        assert links["self"].href == SITE_URL + path and links["self"].type == "application/atom+xml"
        assert links["alternate"].href.startswith(SITE_URL) and links["alternate"].type == "text/html"
        assert feed.feed.title.startswith("Digest")
    empty = parsed(docs["feeds/platforms/tpu.xml"])
    assert empty.entries == [] and empty.feed.updated == "1970-01-01T00:00:00Z"
    assert parsed(docs["feeds/platforms/rocm.xml"]).feed.links[1].href == SITE_URL + "platforms/rocm/"
    assert parsed(docs["feeds/all.xml"]).feed.links[1].href == SITE_URL


def test_the_whole_site_feed_lists_every_commit_newest_first(sample: tuple[SiteIndex, dict[str, bytes]]) -> None:
    index, docs = sample
    feed = parsed(docs["feeds/all.xml"])
    newest = [item for day in index.days for item in day.newest_first]
    assert [entry.title for entry in feed.entries] == [title_plain(item.record.commit.title) for item in newest]
    assert [entry.id for entry in feed.entries] == [f"{SITE_URL}commits/{item.sha[:12]}/" for item in newest]
    assert [entry.link for entry in feed.entries] == [entry.id for entry in feed.entries]
    published = [datetime.fromisoformat(entry.published) for entry in feed.entries]
    assert published == sorted(published, reverse=True)
    assert feed.entries[0].published == newest[0].local_time.isoformat()  # the site's time zone
    # The feed changed when its newest entry did: here the analyses, made after the commits.
    assert feed.feed.updated == max(entry.updated for entry in feed.entries) == "2026-01-20T16:00:00+08:00"


def test_an_entry_reads_as_the_commit_page_does(sample: tuple[SiteIndex, dict[str, bytes]]) -> None:
    _, docs = sample
    entries = {entry.title: entry for entry in parsed(docs["feeds/all.xml"]).entries}
    entry = entries["[ROCm][Perf] Enable shuffle kv cache layout (#29887)"]
    assert entry.author == "Dev One"
    assert [(tag.term, tag.label) for tag in entry.tags] == [
        ("importance:high", "高"),
        ("type:performance", "性能优化"),
        ("platform:rocm", TAXONOMY.platform("rocm").name.zh),  # type: ignore[union-attr]
        ("subsystem:attention", "注意力"),
        ("subsystem:kv-cache", "KV 缓存"),
        ("subsystem:core", TAXONOMY.subsystem("core").name.zh),  # type: ignore[union-attr]
    ]
    assert entry.summary_detail.type == "text/plain"
    facts, *summary = entry.summary.split("\n\n")
    assert facts.startswith("重要度：高 · 类型：性能优化 · 平台：ROCm")
    assert "子系统：注意力、KV 缓存" in facts
    assert summary == ["在 ROCm 上启用 shuffle KV cache 布局", "Assembly paged attention kernel"]
    github = next(link for link in entry.links if link.rel == "related")
    assert github.href.startswith("https://github.com/vllm-project/vllm/commit/")
    # Commits without an ok analysis say so, and are never dropped.
    pending = entries["[CI] Pin transformers (#32350)"]
    assert pending.tags[0].term == "importance:unanalysed"
    assert pending.summary.endswith("此提交尚未分析，下次运行时会分析它。")
    failed = entries["[ROCm] Fix gfx950 crash (#32400)"]
    assert failed.summary.endswith("分析未完成（状态：失败），下次运行时会重试。")


def test_the_high_and_label_feeds_hold_only_their_commits(sample: tuple[SiteIndex, dict[str, bytes]]) -> None:
    index, docs = sample
    high = parsed(docs["feeds/high.xml"])
    expected = [item for day in index.days for item in day.newest_first if item.group == "high"]
    assert [entry.id for entry in high.entries] == [f"{SITE_URL}commits/{item.sha[:12]}/" for item in expected]
    assert all(entry.tags[0].term == "importance:high" for entry in high.entries)
    cuda = parsed(docs["feeds/platforms/cuda.xml"])
    assert len(cuda.entries) == len(index.by_platform["cuda"]) > 0
    assert all("platform:cuda" in {tag.term for tag in entry.tags} for entry in cuda.entries)
    assert cuda.feed.title == "Digest · " + TAXONOMY.platform("cuda").name.zh  # type: ignore[union-attr]
    docs_feed = parsed(docs["feeds/subsystems/docs.xml"])
    assert [entry.title for entry in docs_feed.entries] == ["[Doc] Update docs (#31000)"]


def test_untrusted_text_comes_back_as_the_same_text_and_never_as_markup(
    sample: tuple[SiteIndex, dict[str, bytes]],
) -> None:
    _, docs = sample
    entries = parsed(docs["feeds/all.xml"]).entries
    for number, payload in enumerate(PAYLOADS):
        entry = next(entry for entry in entries if entry.title == f"payload {number} {payload}")
        assert entry.author == f"Mallory {payload}"
        assert entry.summary.endswith(f"\n\npayload summary {payload}")
    for document in docs.values():
        root = ET.fromstring(document)
        for entry in root.iter(f"{ATOM}entry"):
            assert {child.tag.removeprefix(ATOM) for child in entry} <= ENTRY_CHILDREN
            for child in entry:
                allowed = {f"{ATOM}name"} if child.tag == f"{ATOM}author" else set()
                assert {grandchild.tag for grandchild in child} <= allowed
        raw = document.decode("utf-8")
        assert "<script" not in raw and "<img" not in raw and "<div" not in raw


def test_characters_xml_cannot_hold_are_dropped() -> None:
    when = datetime(2026, 2, 1, 8, 0, tzinfo=UTC)
    record = CommitRecord(
        commit=make_commit("control", "Fix \x01the\x1b parser", when, author="Bad\x00 Name\x0b"),
        analysis=ok_analysis(Importance.HIGH, summary=("Summary\x08 with a \ufffe control",)),
    )
    feed = parsed(documents(index_of([record]))["feeds/all.xml"])
    entry = feed.entries[0]
    assert entry.title == "Fix the parser"
    assert entry.author == "Bad Name"
    assert entry.summary.endswith("Summary with a  control")


def _many(count: int) -> list[CommitRecord]:
    start = datetime(2026, 3, 1, tzinfo=UTC)
    return [
        CommitRecord(
            commit=make_commit(
                f"many-{number}", f"[CUDA] Change {number}", start + timedelta(hours=number), paths=("csrc/x.cu",)
            ),
            analysis=ok_analysis(
                Importance.HIGH if number % 2 else Importance.LOW,
                platforms=(label("cuda", "kernel"),),
            ),
        )
        for number in range(count)
    ]


def test_a_feed_holds_the_newest_fifty_and_its_bytes_are_the_same_every_build() -> None:
    records = _many(FEED_SIZE + 25)
    docs = documents(index_of(records))
    titles = [entry.title for entry in parsed(docs["feeds/all.xml"]).entries]
    assert titles == [f"[CUDA] Change {number}" for number in range(FEED_SIZE + 24, 24, -1)]
    high = [entry.title for entry in parsed(docs["feeds/high.xml"]).entries]
    assert len(high) == (FEED_SIZE + 25) // 2 and high[0] == f"[CUDA] Change {FEED_SIZE + 23}"
    assert len(parsed(docs["feeds/platforms/cuda.xml"]).entries) == FEED_SIZE
    # No build time anywhere: a new index of the same records gives the same bytes.
    assert documents(index_of(list(reversed(records)))) == docs


def test_an_entry_is_updated_when_its_commit_is_analysed_later() -> None:
    when = datetime(2026, 1, 10, 8, 0, tzinfo=UTC)
    pending = CommitRecord(commit=make_commit("later", "[Core] Later (#1)", when))
    analysed = pending.model_copy(update={"analysis": ok_analysis(Importance.LOW)})
    first = parsed(documents(index_of([pending]))["feeds/all.xml"]).entries[0]
    second = parsed(documents(index_of([analysed]))["feeds/all.xml"]).entries[0]
    assert first.id == second.id and first.published == second.published == first.updated
    assert second.updated > first.updated


def test_the_english_site_words_its_feeds_in_english() -> None:
    records = sample_records()[:7]
    index = index_of(records, language="en")
    docs = documents(index, language="en")
    feed = parsed(docs["feeds/all.xml"])
    assert feed.feed.language == "en"
    assert parsed(docs["feeds/high.xml"]).feed.title == "Digest · High importance only"
    assert feed.feed.subtitle == "All commits: the newest 50 commits, one entry each with its analysis summary."
    entry = next(entry for entry in feed.entries if entry.title.startswith("[ROCm][Perf]"))
    assert entry.tags[0].label == "high"
    facts, original, *_ = entry.summary.split("\n\n")
    assert facts == (
        "Importance: high · Type: performance · Platforms: ROCm (AMD) · Subsystems: Attention, KV cache, "
        "Engine & scheduler"
    )
    assert original == "Original in Chinese"  # the sample's analyses have no English wording
    failed = next(entry for entry in feed.entries if entry.title.startswith("[ROCm] Fix"))
    assert failed.summary.endswith("The analysis did not complete (status: failed); the next run retries it.")
    refused = next(entry for entry in feed.entries if entry.title.startswith("[Model]"))
    assert "(status: refused)" in refused.summary


def test_a_site_of_several_repositories_names_each_entrys_repository() -> None:
    plugin = "vllm-project/vllm-ascend"
    when = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
    ascend = CommitRecord(
        commit=make_commit("ascend-1", "[Ops] Fuse rotary embedding", when).model_copy(update={"repository": plugin}),
        analysis=ok_analysis(Importance.HIGH),
    )
    repositories = (
        SiteRepository("vllm-project/vllm", "vLLM"),
        SiteRepository(plugin, "vLLM Ascend", platforms=("ascend",)),
    )
    index = index_of([*sample_records()[:3], ascend], repositories=repositories)
    docs = documents(index)
    assert {"feeds/repositories/vllm-project/vllm.xml", "feeds/repositories/vllm-project/vllm-ascend.xml"} <= set(docs)
    own = parsed(docs["feeds/repositories/vllm-project/vllm-ascend.xml"])
    assert own.feed.title == "Digest · vLLM Ascend"
    assert [entry.title for entry in own.entries] == ["[vLLM Ascend] [Ops] Fuse rotary embedding"]
    entry = own.entries[0]
    assert entry.id == f"{SITE_URL}commits/{plugin}/{ascend.commit.sha[:12]}/"
    terms = {tag.term: tag.label for tag in entry.tags}
    assert terms[f"repository:{plugin}"] == "vLLM Ascend"
    assert "platform:ascend" in terms
    everything = parsed(docs["feeds/all.xml"])
    assert all(entry.title.startswith(("[vLLM] ", "[vLLM Ascend] ")) for entry in everything.entries)
    assert all(any(tag.term.startswith("repository:") for tag in entry.tags) for entry in everything.entries)
    assert [entry.title for entry in parsed(docs["feeds/platforms/ascend.xml"]).entries] == [
        "[vLLM Ascend] [Ops] Fuse rotary embedding"
    ]
    feeds = site_feeds(index, TAXONOMY, SiteOptions())
    page = paths.label_page("repositories", plugin)
    assert [feed.path for feed in feeds_of_page(feeds, page)] == [feed_path("repositories", plugin)]


def test_feeds_are_announced_on_their_pages() -> None:
    index = index_of(sample_records())
    feeds = site_feeds(index, TAXONOMY, SiteOptions())
    home = feeds_of_page(feeds, paths.HOME)
    assert [(feed.kind, feed.path, feed.name) for feed in home] == [
        ("all", "feeds/all.xml", "全部提交"),
        ("high", "feeds/high.xml", "仅高重要度"),
    ]
    [rocm] = feeds_of_page(feeds, paths.label_page("platforms", "rocm"))
    assert rocm.url(SITE_URL) == SITE_URL + "feeds/platforms/rocm.xml"
    assert rocm.url("https://digest.example.org/en") == "https://digest.example.org/en/feeds/platforms/rocm.xml"
    assert [feed.path for feed in feeds_of_page(feeds, paths.label_page("subsystems", "moe"))] == [
        "feeds/subsystems/moe.xml"
    ]
    assert feeds_of_page(feeds, paths.day_page(index.days[0].date)) == []
    assert [feed.path for feed in feeds_of_page(feeds, paths.IMPACT_INDEX)] == ["feeds/impact.xml"]
    assert len(feeds) == 3 + len(index.by_platform) + len(index.by_subsystem)


def test_links_follow_the_url_form_and_fall_back_to_root_relative_without_site_url() -> None:
    index = index_of(sample_records()[:1])
    [rocm] = [feed for feed in site_feeds(index, TAXONOMY, SiteOptions()) if feed.label_id == "rocm"]
    flat = parsed(feed_document(index, TAXONOMY, SiteOptions(directory_urls=False), rocm, site_url=SITE_URL))
    assert flat.entries[0].link == f"{SITE_URL}commits/{index.days[0].commits[0].sha[:12]}.html"
    assert flat.feed.links[1].href == f"{SITE_URL}platforms/rocm/index.html"
    relative = parsed(feed_document(index, TAXONOMY, SiteOptions(), rocm, site_url=None))
    assert relative.feed.id == "/feeds/platforms/rocm.xml"
    assert relative.entries[0].link == f"/commits/{index.days[0].commits[0].sha[:12]}/"
    assert relative.feed.title == "每日提交摘要 · " + rocm.name  # the i18n table's site name


def test_a_failed_analysis_keeps_its_entry_in_every_feed_it_belongs_to() -> None:
    when = datetime(2026, 1, 12, 8, 0, tzinfo=UTC)
    record = CommitRecord(
        commit=make_commit("refused", "[ROCm] Something", when, paths=("vllm/platforms/rocm.py",)),
        analysis=not_ok_analysis(AnalysisStatus.REFUSED, "no"),
    )
    docs = documents(index_of([record]))
    assert [entry.title for entry in parsed(docs["feeds/platforms/rocm.xml"]).entries] == ["[ROCm] Something"]
    assert parsed(docs["feeds/high.xml"]).entries == []
    assert "被拒绝" in parsed(docs["feeds/all.xml"]).entries[0].summary
