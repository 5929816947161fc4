"""One site in two languages (`languages: [zh, en]`): the default at the root and English under
en/, built by one ``run_build`` and published together; the header's language selector links the
same page in the other language; site name, navigation and hand-written pages follow the
language; incremental builds reuse pages in both; and the English demo."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import feedparser
import pytest
import yaml
from benchmarks.browser import serve
from playwright.sync_api import Browser

from commit_digest.cli import main
from commit_digest.errors import InputError
from commit_digest.models import CommitRecord, Importance
from commit_digest.site.languages import alternates, localized_palette, page_variant, site_name
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest_mkdocs.build import run_build
from tests.site.conftest import PROJECT, project_config
from tests.site.factories import make_commit, ok_analysis, sample_records, sha_for
from tests.site.test_page_heads import head_of

ZH_NAME, EN_NAME = "vLLM 每日提交摘要", "vLLM daily commit digest"
HIGH = f"commits/{sha_for('high-1')[:12]}/"


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.site = root / "site"

    def build(self) -> Path:
        return run_build(self.root / "mkdocs.yml", site_dir=self.site, strict=True)

    def page(self, url: str) -> Path:
        return self.site / url / "index.html"


def _html_lang(path: Path) -> str:
    found = re.search(r'<html lang="([a-z]+)"', path.read_text(encoding="utf-8"))
    assert found is not None, path
    return found.group(1)


def _title(path: Path) -> str:
    found = re.search(r"<title>([^<]*)</title>", path.read_text(encoding="utf-8"))
    assert found is not None, path
    return found.group(1)


def _selector_links(path: Path) -> dict[str, str]:
    """The language selector's links by language."""
    text = path.read_text(encoding="utf-8")
    links = re.findall(r'<a href="([^"]*)" hreflang="([a-z]+)"[^>]*class="md-select__link"', text)
    return {lang: href for href, lang in links}


def _tabs(path: Path) -> list[str]:
    """The navigation tabs' names."""
    text = path.read_text(encoding="utf-8")
    tabs = text[text.index('class="md-tabs__list"') : text.index("</ul>", text.index('class="md-tabs__list"'))]
    links = re.findall(r"<a [^>]*>(.*?)</a>", tabs, re.DOTALL)
    return [" ".join(re.sub(r"<[^>]*>", " ", link).split()) for link in links]


def _pages(folder: Path, *, leave_out: str | None = None) -> set[str]:
    return {
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*.html")
        if leave_out is None or not path.relative_to(folder).as_posix().startswith(leave_out)
    }


def _built_at(status: Path) -> str:
    return json.loads(status.read_text(encoding="utf-8"))["built_at"]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    root = tmp_path_factory.mktemp("bilingual")
    shutil.copytree(PROJECT / "docs", root / "docs")
    with AnalysisStore(root / "cache") as store:
        for record in sample_records():
            store.put(record)
    config = project_config(cache_dir="cache", languages=["zh", "en"])
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    project = Project(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)  # gen-files scripts are relative to the site's folder
        project.build()
        yield project


# -- the pure parts ---------------------------------------------------------------------------


def test_the_selector_links_each_languages_root_from_this_builds_root() -> None:
    assert alternates("zh", ("zh",)) == []
    assert [(item["lang"], item["link"]) for item in alternates("zh", ("zh", "en"))] == [("zh", "./"), ("en", "en/")]
    assert [(item["lang"], item["link"]) for item in alternates("en", ("zh", "en"))] == [("zh", "../"), ("en", "./")]
    assert [(item["lang"], item["link"]) for item in alternates("zh", ("en", "zh"))] == [("en", "../"), ("zh", "./")]
    assert [item["name"] for item in alternates("en", ("zh", "en"))] == ["中文", "English"]


def test_page_variants_and_site_names() -> None:
    assert page_variant("about.en.md") == ("about.md", "en")
    assert page_variant("guide/index.zh.md") == ("guide/index.md", "zh")
    for plain in ("about.md", "about.fr.md", "en.md", "notes.en.txt", "guide/.en.md"):
        assert page_variant(plain) is None, plain
    names = {"zh": ZH_NAME, "en": EN_NAME}
    assert site_name(names, "en") == EN_NAME and site_name({"zh": ZH_NAME}, "en") is None
    assert site_name(None, "zh") is None
    with pytest.raises(InputError, match="unknown language fr"):
        site_name({"fr": "x"}, "zh")
    with pytest.raises(InputError, match=r"site_name\.en"):
        site_name({"en": ""}, "en")


def test_known_palette_toggle_names_are_worded_in_the_builds_language() -> None:
    palette = [
        {"scheme": "default", "toggle": {"icon": "a", "name": "切换到深色模式"}},
        {"scheme": "slate", "toggle": {"icon": "b", "name": "My own words"}},
        {"scheme": "plain"},
    ]
    worded = localized_palette(palette, "en")
    assert worded[0]["toggle"] == {"icon": "a", "name": "Switch to dark mode"}
    assert worded[1:] == palette[1:]
    assert localized_palette(worded, "zh")[0]["toggle"]["name"] == "切换到深色模式"


# -- the built site ---------------------------------------------------------------------------


def test_both_languages_are_built_page_for_page(project: Project) -> None:
    site = project.site
    assert _html_lang(site / "index.html") == "zh" and _html_lang(site / "en" / "index.html") == "en"
    assert _html_lang(project.page(HIGH)) == "zh" and _html_lang(project.page("en/" + HIGH)) == "en"
    root_pages = _pages(site, leave_out="en/")
    assert {"index.html", HIGH + "index.html", "about/index.html", "search/index.html"} <= root_pages
    assert _pages(site / "en") == root_pages
    assert not (site / "zh").exists()
    # Each language has its own search index, status and manifest under its root.
    for root in (site, site / "en"):
        assert (root / "search" / "manifest.json").is_file()
        assert (root / "status.json").is_file() and (root / ".commit-digest" / "build.json").is_file()
    config = (site / "en" / "assets" / "digest-config.js").read_text(encoding="utf-8")
    assert '"language": "en"' in config and '"search": "search/"' in config  # resolved against en/


def test_site_name_navigation_about_page_and_palette_follow_the_language(project: Project) -> None:
    site = project.site
    assert _title(site / "index.html").endswith(ZH_NAME) and _title(site / "en" / "index.html").endswith(EN_NAME)
    english, chinese = (site / "en" / "index.html").read_text("utf-8"), (site / "index.html").read_text("utf-8")
    assert {"Home", "Archive", "About this site"} <= set(_tabs(site / "en" / "index.html"))
    assert {"首页", "归档", "关于本站"} <= set(_tabs(site / "index.html"))
    # The palette toggle's names: in the script that builds it, for each language its own.
    palette_en = (site / "en" / "assets" / "digest-palette.js").read_text("utf-8")
    palette_zh = (site / "assets" / "digest-palette.js").read_text("utf-8")
    assert "切换到深色模式" not in palette_en and "Switch to dark mode" in palette_en
    assert "切换到深色模式" in palette_zh and "Switch to dark mode" not in palette_zh
    assert '<script src="assets/digest-palette.js"></script>' in english and "digest-palette.js" in chinese
    about_en = project.page("en/about/").read_text(encoding="utf-8")
    about_zh = project.page("about/").read_text(encoding="utf-8")
    assert "About this site" in about_en and "关于本站" not in about_en
    assert "关于本站" in about_zh and "About this site" not in about_zh
    # The variant is no page of its own in either language.
    assert not any("about.en" in page for page in _pages(site))
    assert '<li><a href="about/">' in english  # at the base page's URL


def test_each_language_has_its_feeds_at_its_own_root(project: Project) -> None:
    chinese = feedparser.parse((project.site / "feeds" / "all.xml").read_bytes())
    english = feedparser.parse((project.site / "en" / "feeds" / "all.xml").read_bytes())
    assert not chinese.bozo and not english.bozo
    assert chinese.feed.title == "vLLM 每日提交摘要" and english.feed.title == "vLLM daily commit digest"
    assert english.entries[0].link.startswith("https://digest.example.org/en/commits/")
    assert 'href="https://digest.example.org/en/feeds/high.xml"' in project.page("en").read_text(encoding="utf-8")


def test_the_selector_links_the_same_page_in_the_other_language(project: Project) -> None:
    assert _selector_links(project.page(HIGH)) == {"zh": f"../../{HIGH}", "en": f"../../en/{HIGH}"}
    assert _selector_links(project.page("en/" + HIGH)) == {"zh": f"../../../{HIGH}", "en": f"../../{HIGH}"}
    assert _selector_links(project.site / "index.html") == {"zh": "./", "en": "en/"}
    assert _selector_links(project.site / "en" / "index.html") == {"zh": "../", "en": "./"}
    # No <link rel="alternate"> in the head: material's script would download both sitemaps on
    # every page view and send the selector's clicks to the other language's home (the page's
    # hreflang links are rel="alternate " for that: test_each_page_links_itself_in_every_language).
    assert '<link rel="alternate"' not in project.page(HIGH).read_text(encoding="utf-8")
    # The 404 page (no page of its own) links each language's home.
    assert _selector_links(project.site / "en" / "404.html") == {"zh": "/en/../", "en": "/en/"}


def test_each_page_links_itself_in_every_language(project: Project) -> None:
    """hreflang alternates by absolute URL, the default language's for any other (x-default), on
    generated, navigation and hand-written pages; each language's card in its own locale."""
    root = "https://digest.example.org/"
    for url in (HIGH, "days/2026-01-15/", "platforms/rocm/2026-01/", "", "about/"):
        expected = {"zh": root + url, "en": root + "en/" + url, "x-default": root + url}
        for prefix, locale in (("", "zh_CN"), ("en/", "en_US")):
            html = (project.site / prefix / url / "index.html").read_text(encoding="utf-8")
            head = head_of(html)
            assert head.alternates == expected, prefix + url
            assert head.meta["og:locale"] == [locale] and head.meta["og:url"] == [root + prefix + url]
    # One robots.txt, at the site's root, naming both languages' sitemaps.
    robots = (project.site / "robots.txt").read_text(encoding="utf-8")
    assert f"Sitemap: {root}sitemap.xml\nSitemap: {root}en/sitemap.xml\n" in robots
    assert not (project.site / "en" / "robots.txt").exists()


@pytest.mark.browser
def test_the_language_selector_takes_the_reader_to_the_same_commit_and_back(project: Project, browser: Browser) -> None:
    with serve(project.site) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        try:
            page.goto(url + HIGH, wait_until="networkidle")
            # The header settles (the search box is added by a script) before the menu is opened.
            page.wait_for_selector(".digest-hsearch")
            page.locator(".md-select").hover()
            page.locator('.md-select__link[hreflang="en"]').click()
            page.wait_for_url(url + "en/" + HIGH)
            page.wait_for_selector(".digest-hsearch")
            assert page.locator("html").get_attribute("lang") == "en"
            # The English header search queries the English index.
            page.locator(".digest-hsearch__input").press_sequentially("shuffle")
            page.wait_for_function("() => document.querySelector('.digest-hsearch__results').dataset.query")
            assert any(request.startswith(url + "en/search/") for request in requests)
            assert not any(request.startswith(url + "search/") for request in requests)
            page.locator(".digest-hsearch__input").press("Escape")  # the results panel covers the header
            page.locator(".md-select").hover()
            page.locator('.md-select__link[hreflang="zh"]').click()
            page.wait_for_url(url + HIGH)
            assert page.locator("html").get_attribute("lang") == "zh"
            assert not any(request.endswith("sitemap.xml") for request in requests)
        finally:
            page.close()


def test_a_rebuild_with_nothing_new_touches_neither_language(project: Project) -> None:
    pages = [project.page(HIGH), project.page("en/" + HIGH), project.page("en/about/")]
    inodes = [page.stat().st_ino for page in pages]
    statuses = [project.site / "status.json", project.site / "en" / "status.json"]
    before = [_built_at(status) for status in statuses]
    project.build()
    assert [page.stat().st_ino for page in pages] == inodes
    assert all(after > earlier for after, earlier in zip(map(_built_at, statuses), before, strict=True))
    english = json.loads(statuses[1].read_text(encoding="utf-8"))["text"]
    assert english.startswith("Last updated")


def test_a_new_commit_renders_its_pages_and_reuses_the_rest_in_both_languages(project: Project) -> None:
    untouched = [project.page(HIGH), project.page("en/" + HIGH)]
    inodes = [page.stat().st_ino for page in untouched]
    when = datetime(2026, 1, 18, 9, 30, tzinfo=UTC)
    with AnalysisStore(project.root / "cache") as store:
        store.put(
            CommitRecord(
                commit=make_commit("bilingual-new", "[Core] A commit of a new day (#40001)", when),
                analysis=ok_analysis(Importance.MEDIUM),
            )
        )
    project.build()
    assert [page.stat().st_ino for page in untouched] == inodes
    new = f"commits/{sha_for('bilingual-new')[:12]}/"
    assert _html_lang(project.page(new)) == "zh" and _html_lang(project.page("en/" + new)) == "en"
    assert (project.page("days/2026-01-18/")).is_file() and project.page("en/days/2026-01-18/").is_file()


# -- the English demo -------------------------------------------------------------------------


def test_demo_in_english_builds_an_english_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(PROJECT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(PROJECT / "docs", tmp_path / "docs")
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--language", "en", "--site-dir", str(tmp_path / "out")]) == 0
    out = tmp_path / "out"
    assert _html_lang(out / "index.html") == "en" and _title(out / "index.html").endswith(EN_NAME)
    assert "About this site" in (out / "about" / "index.html").read_text(encoding="utf-8")
    assert not (out / "en").exists()
    assert "md-select__link" not in (out / "index.html").read_text(encoding="utf-8")  # one language: no selector
    with AnalysisStore(tmp_path / "cache") as store:
        languages = {record.analysis.provenance.language for record in store.records() if record.analysis}
    assert languages == {"en"}
