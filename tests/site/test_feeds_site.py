"""Feeds in a real ``mkdocs build --strict``: written beside the pages, parsed by feedparser,
announced in the <head> of the pages they belong to and listed on the subscribe page."""

from __future__ import annotations

import re
from pathlib import Path

import feedparser
import pytest

from commit_digest.site.rendering.feed_list import FEED_SIZE
from tests.site.conftest import BuiltSite
from tests.site.factories import PAYLOADS
from tests.site.html import article, hrefs, visible_text

pytestmark = pytest.mark.slow
SITE_URL = "https://digest.example.org/"  # tests/site/conftest.py's project_config
_ALTERNATE = re.compile(r'<link rel="alternate feed" type="application/atom\+xml" title="([^"]*)" href="([^"]*)">')


def _parse(site: Path, path: str) -> feedparser.FeedParserDict:
    parsed = feedparser.parse((site / path).read_bytes())
    assert not parsed.bozo, (path, parsed.get("bozo_exception"))
    return parsed


def test_every_feed_is_written_and_parses(zh_site: BuiltSite) -> None:
    feeds = sorted(str(path.relative_to(zh_site.site)) for path in (zh_site.site / "feeds").rglob("*.xml"))
    assert {"feeds/all.xml", "feeds/high.xml", "feeds/platforms/cuda.xml", "feeds/subsystems/core.xml"} <= set(feeds)
    assert not any(name.startswith("feeds/repositories/") for name in feeds)  # one repository: no such feeds
    whole = _parse(zh_site.site, "feeds/all.xml")
    assert len(whole.entries) == 17 <= FEED_SIZE  # every sample commit, newest first
    assert whole.feed.links[0].href.startswith(SITE_URL)
    first = whole.entries[0]
    assert first.link.startswith(SITE_URL + "commits/") and first.link.endswith("/")
    page = first.link.removeprefix(SITE_URL)
    assert (zh_site.site / page / "index.html").is_file()  # the link is the commit's page
    high = _parse(zh_site.site, "feeds/high.xml")
    assert high.entries and all(any(tag.term == "importance:high" for tag in entry.tags) for entry in high.entries)
    rocm = _parse(zh_site.site, "feeds/platforms/rocm.xml")
    assert [entry.title for entry in rocm.entries] == [
        "[ROCm] Fix gfx950 crash (#32400)",
        "[ROCm][Perf] Enable shuffle kv cache layout (#29887)",
    ]


def test_hostile_text_reaches_feeds_only_as_text(zh_site: BuiltSite) -> None:
    raw = (zh_site.site / "feeds/all.xml").read_text(encoding="utf-8")
    assert "<script" not in raw and "<img" not in raw and "<div>" not in raw
    entries = {entry.title: entry for entry in _parse(zh_site.site, "feeds/all.xml").entries}
    for number, payload in enumerate(PAYLOADS):
        entry = entries[f"payload {number} {payload}"]
        assert entry.author == f"Mallory {payload}"


def test_pages_announce_their_feeds(zh_site: BuiltSite) -> None:
    home = _ALTERNATE.findall(zh_site.page(""))
    assert [href for _title, href in home] == [SITE_URL + "feeds/all.xml", SITE_URL + "feeds/high.xml"]
    assert _ALTERNATE.findall(zh_site.page("platforms/cuda")) == [
        ("vLLM 每日提交摘要 · CUDA（NVIDIA）", SITE_URL + "feeds/platforms/cuda.xml")
    ]
    assert _ALTERNATE.findall(zh_site.page("subsystems/moe"))[0][1] == SITE_URL + "feeds/subsystems/moe.xml"
    assert not _ALTERNATE.findall(zh_site.page("days/2026-01-15"))
    assert "../../feeds/platforms/cuda.xml" in hrefs(article(zh_site.page("platforms/cuda")))


def test_the_subscribe_page_lists_every_feed(zh_site: BuiltSite) -> None:
    page = article(zh_site.page("subscribe"))
    text = visible_text(page)
    written = {str(path.relative_to(zh_site.site)) for path in (zh_site.site / "feeds").rglob("*.xml")}
    assert {link.removeprefix("../") for link in hrefs(page) if link.endswith(".xml")} == written
    assert SITE_URL + "feeds/platforms/cuda.xml" in text and "订阅" in text


def test_the_english_site_has_english_feeds(en_site: BuiltSite) -> None:
    parsed = _parse(en_site.site, "feeds/all.xml")
    assert parsed.feed.language == "en" and parsed.feed.title == "vLLM daily commit digest"
