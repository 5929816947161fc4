"""Each built page describes itself: its meta description, its OpenGraph card and Twitter card
type in its <head>, in the site's language; and the site's robots.txt (with and without the
site's URL, and the owner's own). The two-language alternates are in test_bilingual.py."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from commit_digest.store.analysis_store import AnalysisStore
from commit_digest_mkdocs.build import run_build
from tests.site.conftest import PROJECT, BuiltSite, build_site, project_config
from tests.site.factories import sample_records, sha_for

SITE = "https://digest.example.org/"
HIGH = f"commits/{sha_for('high-1')[:12]}/"


class _HeadTags(HTMLParser):
    """The <meta> and <link> tags of a page's <head>, by their name, property or rel."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, list[str]] = {}
        self.alternates: dict[str, str] = {}
        self._in_head = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if not self._in_head:
            return
        if tag == "meta" and ("name" in values or "property" in values):
            key = values.get("property") or values["name"]
            self.meta.setdefault(key, []).append(values.get("content", ""))
        if tag == "link" and "hreflang" in values and values.get("rel", "").split() == ["alternate"]:
            self.alternates[values["hreflang"]] = values["href"]

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self._in_head = False


def head_of(html: str) -> _HeadTags:
    parser = _HeadTags()
    parser.feed(html)
    return parser


def card(html: str) -> dict[str, str]:
    """Each head meta's one value (a meta written twice fails)."""
    tags = head_of(html).meta
    assert all(len(values) == 1 for values in tags.values()), {k: v for k, v in tags.items() if len(v) > 1}
    return {key: values[0] for key, values in tags.items()}


def test_a_commit_page_is_an_article_described_by_its_gist(zh_site: BuiltSite, en_site: BuiltSite) -> None:
    zh = card(zh_site.page(HIGH))
    assert zh["description"] == zh["og:description"] == "在 ROCm 上启用 shuffle KV cache 布局"
    assert zh["og:title"] == "[ROCm][Perf] Enable shuffle kv cache layout (#29887)"
    assert zh["og:type"] == "article" and zh["og:locale"] == "zh_CN" and zh["twitter:card"] == "summary"
    assert zh["og:url"] == SITE + HIGH and zh["og:site_name"] == "vLLM 每日提交摘要"
    en = card(en_site.page(HIGH))
    assert en["og:locale"] == "en_US" and en["og:type"] == "article" and en["og:url"] == SITE + HIGH
    assert en["og:site_name"] != zh["og:site_name"]


def test_a_day_page_gives_its_counts_and_titles(zh_site: BuiltSite, en_site: BuiltSite) -> None:
    zh = card(zh_site.page("days/2026-01-15/"))
    assert zh["description"].startswith("2026-01-15：5 个提交，高 1 · 中 1 · 低 1 · 未分析 2。[ROCm][Perf]")
    assert zh["og:type"] == "website" and zh["og:url"] == SITE + "days/2026-01-15/"
    en = card(en_site.page("days/2026-01-15/"))
    assert re.match(r"2026-01-15: \d+ commits, 1 high · ", en["description"]), en["description"]
    assert en["og:description"] == en["description"]


def test_label_pages_give_their_label(zh_site: BuiltSite, en_site: BuiltSite) -> None:
    month = card(zh_site.page("platforms/rocm/2026-01/"))
    assert (
        month["description"].startswith("ROCm（AMD） · 2026-01：2 个提交")
        and month["og:title"] == "ROCm（AMD） · 2026-01"
    )
    assert card(zh_site.page("platforms/rocm/"))["description"].startswith("ROCm（AMD）：2026-01-15 共 2 个提交。")
    assert card(en_site.page("platforms/"))["description"].startswith("Platforms: ")


def test_navigation_and_hand_written_pages_have_their_card_too(zh_site: BuiltSite, en_site: BuiltSite) -> None:
    for site, locale in ((zh_site, "zh_CN"), (en_site, "en_US")):
        home, about = card(site.page("")), card(site.page("about/"))
        assert home["og:url"] == SITE and about["og:url"] == SITE + "about/"
        assert home["og:locale"] == about["og:locale"] == locale
        # Pages of nothing in particular: the site's description, in the theme's meta and the card.
        assert home["description"] == home["og:description"] == about["description"] == about["og:description"]
        assert about["og:type"] == home["og:type"] == "website" and about["twitter:card"] == "summary"
    assert card(zh_site.page("about/"))["og:title"] == "关于本站"
    assert "og:title" in card(zh_site.page("search/")) and "og:title" in card(zh_site.page("archive/"))


def test_every_page_has_one_card(zh_site: BuiltSite) -> None:
    for name, html in zh_site.pages():
        if name == "404.html" or name.startswith("overrides"):
            continue
        found = card(html)
        assert {"description", "og:title", "og:url", "og:type", "og:locale"} <= found.keys(), name
        assert html.count("</head>") == 1, name


# -- robots.txt ---------------------------------------------------------------------------------


def test_robots_txt_names_the_sitemap(zh_site: BuiltSite) -> None:
    robots = (zh_site.site / "robots.txt").read_text(encoding="utf-8")
    assert robots.startswith("User-agent: *\nAllow: /\n") and f"Sitemap: {SITE}sitemap.xml\n" in robots
    assert "Disallow: /.commit-digest/" in robots


def test_without_the_sites_url_robots_txt_names_no_sitemap_and_cards_no_address(tmp_path: Path) -> None:
    root = tmp_path / "no-url"
    shutil.copytree(PROJECT / "docs", root / "docs")
    with AnalysisStore(root / "cache") as store:
        for record in sample_records()[:3]:
            store.put(record)
    config = project_config(cache_dir="cache")
    del config["site_url"]
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)  # gen-files scripts are relative to the site's folder
        site = run_build(root / "mkdocs.yml", site_dir=root / "site", strict=True)
    robots = (site / "robots.txt").read_text(encoding="utf-8")
    assert "Sitemap" not in robots and "User-agent: *" in robots
    page = (site / HIGH / "index.html").read_text(encoding="utf-8")
    assert "og:url" not in page and card(page)["og:type"] == "article"


def test_the_owners_robots_txt_wins(tmp_path: Path) -> None:
    own = "User-agent: *\nDisallow: /private/\n"
    site = build_site(tmp_path / "own", sample_records()[:3], hand_written={"robots.txt": own})
    assert (site.site / "robots.txt").read_text(encoding="utf-8") == own
