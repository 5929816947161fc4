"""A site of another repository is its own (issue 44): an operator who follows README step 1 —
the shipped mkdocs.yml with the repository, the top-level site_name and site_description and
repo_url/repo_name changed, nothing else — gets a site named as configured on every page, with
no word of vLLM in any page, search index, feed or sitemap; vLLM's own site keeps its names in
both languages; the about page is made from the configuration unless one is written by hand;
and a one-repository site takes ``platforms:`` as an item of ``repositories:`` does.
"""

from __future__ import annotations

import html as html_module
import logging
import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

import feedparser
import pytest
from axe_playwright_python.sync_playwright import Axe
from benchmarks.browser import serve
from markupsafe import Markup
from playwright.sync_api import Browser

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import AnalysisStatus, ChangeType, Commit, CommitRecord, FileChange, Importance
from commit_digest.site.model.index import SiteRepository, build_index
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.escape import html_text
from commit_digest.site.views.about import about_page
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest_mkdocs.build import run_build
from tests.site.conftest import PROJECT, build_site
from tests.site.factories import not_ok_analysis, ok_analysis, sha_for
from tests.site.html import visible_text
from tests.site.test_accessibility import AXE_OPTIONS

NAME = "Acme Rocket 提交日报"
DESCRIPTION = "Acme Rocket 每天提交的 LLM 分析摘要。"
ROCKET = "acme-labs/rocket"
PLUGIN = "vllm-project/vllm-ascend"
# What vLLM's own site is called today, in each language (the shipped mkdocs.yml).
VLLM_NAMES = {
    "zh": ("vLLM 每日提交摘要", "vLLM 每日提交的 LLM 分析摘要，按日期、平台和子系统浏览。"),
    "en": ("vLLM daily commit digest", "LLM-analysed digest of vLLM's daily commits, by date, platform and subsystem."),
}
# Files of a built site a reader or a crawler reads: pages, search index, feeds, sitemap, robots.
READ = {".html", ".json", ".xml", ".txt", ".js"}


def operator_mkdocs_yml() -> str:
    """The shipped mkdocs.yml after README step 1, edited as text as an operator edits it."""
    text = (PROJECT / "mkdocs.yml").read_text(encoding="utf-8")
    edits = {
        r"^site_name: .*$": f"site_name: {NAME}",
        r"^site_description: .*$": f"site_description: {DESCRIPTION}",
        r"^repo_url: .*$": f"repo_url: https://github.com/{ROCKET}",
        r"^repo_name: .*$": f"repo_name: {ROCKET}",
        r"^      repository: .*$": f"      repository: {ROCKET}",
    }
    for pattern, line in edits.items():
        text, count = re.subn(pattern, line, text, flags=re.MULTILINE)
        assert count == 1, pattern
    return text


def rocket_commit(number: int, title: str, path: str) -> Commit:
    when = datetime(2026, 3, 2, 9, 0, tzinfo=UTC) + timedelta(hours=5 * number)
    return Commit(
        repository=ROCKET,
        sha=sha_for(f"rocket-{number}"),
        author_name="Ada Engineer",
        author_login="ada",
        authored_at=when,
        committed_at=when,
        title=f"{title} (#{100 + number})",
        body="Part of the spring clean-up.",
        files=(FileChange(path=path, additions=12, deletions=3),),
    )


def rocket_records() -> list[CommitRecord]:
    """Neutral commits of an invented repository: analysed, failed (the offline analysis shows)
    and not analysed yet."""
    return [
        CommitRecord(
            commit=rocket_commit(0, "Add a thrust limiter to the engine controller", "rocket/engine/controller.py"),
            analysis=ok_analysis(Importance.HIGH, change_type=ChangeType.FEATURE, summary=("Limits thrust.",)),
        ),
        CommitRecord(
            commit=rocket_commit(1, "Speed up the telemetry parser", "rocket/telemetry/parse.py"),
            analysis=ok_analysis(Importance.MEDIUM, change_type=ChangeType.PERFORMANCE, summary=("Parses faster.",)),
        ),
        CommitRecord(
            commit=rocket_commit(2, "Fix a typo in the launch guide", "docs/launch.md"),
            analysis=ok_analysis(Importance.LOW, change_type=ChangeType.DOCS, summary=("A typo.",)),
        ),
        CommitRecord(
            commit=rocket_commit(3, "Retry the fuel pump handshake", "rocket/fuel/pump.py"),
            analysis=not_ok_analysis(AnalysisStatus.FAILED, "timeout after 120 s"),
        ),
        CommitRecord(commit=rocket_commit(4, "Pin the ground station protocol", "ground/requirements.txt")),
    ]


def _store(root: Path, records: list[CommitRecord]) -> None:
    with AnalysisStore(root / "cache") as store:
        for record in records:
            store.put(record)


class _Lines(logging.Handler):
    """What a build logs, from INFO up, as "LEVEL message"."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.getMessage()}")


def _build(root: Path, config_text: str) -> tuple[Path, list[str]]:
    """A real build of ``config_text`` (with the project's docs/) in ``root``, as a strict nightly
    runs it: the site and what the build logged."""
    shutil.copytree(PROJECT / "docs", root / "docs")
    (root / "mkdocs.yml").write_text(config_text, encoding="utf-8")
    mkdocs_logger, lines = logging.getLogger("mkdocs"), _Lines()
    level = mkdocs_logger.level
    mkdocs_logger.addHandler(lines)
    mkdocs_logger.setLevel(logging.INFO)  # as the command line's
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.delenv("SITE_URL", raising=False)  # the shipped default address
            patch.chdir(root)  # gen-files runs its scripts from here, as `mkdocs build` does
            return run_build(root / "mkdocs.yml", site_dir=root / "site", strict=True), lines.lines
    finally:
        mkdocs_logger.removeHandler(lines)
        mkdocs_logger.setLevel(level)


def _taxonomy_descriptions_naming_vllm() -> list[str]:
    """The built-in rules' descriptions that name vLLM, as a page shows them (escaped)."""
    taxonomy = load_taxonomy()
    return [
        str(html_text(text))
        for rule in (*taxonomy.platforms, *taxonomy.subsystems)
        if rule.description
        for language in ("zh", "en")
        if "vllm" in (text := rule.description.in_language(language)).lower()
    ]


def _head(html: str) -> str:
    return html[: html.index("</head>")]


def _title(html: str) -> str:
    found = re.search(r"<title>([^<]*)</title>", _head(html))
    assert found is not None
    return found.group(1)


def _meta(html: str, key: str) -> str | None:
    found = re.search(rf'<meta (?:name|property)="{re.escape(key)}" content="([^"]*)"', _head(html))
    return html_module.unescape(found.group(1)) if found else None


def _pages(site: Path) -> dict[str, str]:
    return {path.relative_to(site).as_posix(): path.read_text(encoding="utf-8") for path in site.rglob("*.html")}


@pytest.fixture(scope="module")
def rocket(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The operator's site and what its build logged."""
    root = tmp_path_factory.mktemp("rocket")
    _store(root, rocket_records())
    return _build(root, operator_mkdocs_yml())


@pytest.fixture(scope="module")
def vllm_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """vLLM's own mkdocs.yml, unchanged but for `languages: [zh, en]`, and what its build logged."""
    root = tmp_path_factory.mktemp("vllm-own")
    commit = rocket_commit(0, "[Core] Tidy the scheduler", "vllm/v1/core/sched.py").model_copy(
        update={"repository": "vllm-project/vllm"}
    )
    _store(root, [CommitRecord(commit=commit, analysis=ok_analysis(Importance.HIGH))])
    text = (PROJECT / "mkdocs.yml").read_text(encoding="utf-8")
    text, count = re.subn(r"^      language: zh\b", "      languages: [zh, en]", text, flags=re.MULTILINE)
    assert count == 1
    return _build(root, text)


# -- (a) the operator's site ------------------------------------------------------------------


def test_the_configured_name_is_every_pages_title(rocket: tuple[Path, list[str]]) -> None:
    site, _ = rocket
    pages = _pages(site)
    assert {"index.html", "about/index.html", "404.html", "search/index.html"} <= pages.keys()
    assert any(name.startswith("commits/") for name in pages) and any(name.startswith("days/") for name in pages)
    for name, html in pages.items():
        assert _title(html).endswith(" - " + NAME) or _title(html) == NAME, name
        if name != "404.html":  # a page of no address: no card
            assert _meta(html, "og:site_name") == NAME, name
        topic = html.index("md-header__topic")  # the header's name, where the theme prints it
        assert NAME in html[topic : topic + 300], name
    home = pages["index.html"]
    assert _meta(home, "description") == _meta(home, "og:description") == DESCRIPTION
    feed = feedparser.parse((site / "feeds" / "all.xml").read_bytes())
    assert not feed.bozo and feed.feed.title == NAME and len(feed.entries) == len(rocket_records())


def test_nothing_a_reader_or_a_crawler_gets_names_vllm(rocket: tuple[Path, list[str]]) -> None:
    site, _ = rocket
    read = [path for path in site.rglob("*") if path.is_file() and path.suffix in READ]
    kinds = {path.suffix for path in read}
    assert {".html", ".json", ".xml", ".txt"} <= kinds
    assert (site / "sitemap.xml") in read and (site / "search" / "manifest.json") in read
    assert any(path.parent.name == "feeds" for path in read)
    # Every platform has a page, even with no commits: its description must not name vLLM either.
    assert _taxonomy_descriptions_naming_vllm() == []
    found = {}
    for path in read:
        text = path.read_text(encoding="utf-8")
        if match := re.search(r".{0,60}vllm.{0,60}", text, re.IGNORECASE):
            found[path.relative_to(site).as_posix()] = match.group(0)
    assert found == {}


def test_no_page_speaks_to_developers(rocket: tuple[Path, list[str]]) -> None:
    """Commands to run and files to edit are the operator's business, not a reader's."""
    site, _ = rocket
    spoken = {}
    for path in site.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        if match := re.search(r".{0,40}(commit-digest [a-z]+|mkdocs\.yml|docs/about).{0,40}", text):
            spoken[path.relative_to(site).as_posix()] = match.group(0)
    assert spoken == {}


def test_the_about_page_speaks_of_the_configured_repository(rocket: tuple[Path, list[str]]) -> None:
    site, _ = rocket
    about = (site / "about" / "index.html").read_text(encoding="utf-8")
    assert f'<a href="https://github.com/{ROCKET}">{ROCKET}</a>' in about
    text = visible_text(about[about.index('<article class="md-content__inner') :])
    assert "关于本站" in text and "LLM" in text and "离线分析" in text
    assert "docs/about.md" not in about and "手写" not in text  # nothing for developers
    # It names each of the site's own tabs by the tab's name, in the tabs' order, and links it;
    # it is in the navigation itself, after them, with the site owner's pages.
    tab_list = about[about.index('class="md-tabs__list"') : about.index("</ul>", about.index("md-tabs__list"))]
    tabs = re.findall(r'<li><a href="([^"]*)"[^>]*>([^<]*)</a></li>', tab_list)
    described = re.findall(r'<li><a href="([^"]*)">([^<]*)</a>：', about)
    assert [name for _, name in described] == [name for _, name in tabs[: len(described)]]
    assert [name for _, name in tabs[len(described) :]] == ["关于本站", "弃用与移除"]
    assert {href.rstrip("/") for href, _ in described} == {href.rstrip("/") for href, _ in tabs[: len(described)]}
    assert "仓库" not in dict(described).values()  # one repository: no such tab


def test_the_operators_build_says_nothing_of_names(rocket: tuple[Path, list[str]]) -> None:
    _, logged = rocket
    assert not [line for line in logged if "site_name" in line]


# -- (b) vLLM's own site ------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["zh", "en"])
def test_vllms_own_site_keeps_its_names_in_both_languages(vllm_site: tuple[Path, list[str]], language: str) -> None:
    site, _ = vllm_site
    root = site if language == "zh" else site / "en"
    name, description = VLLM_NAMES[language]
    for page in ("", "about/", "archive/"):
        html = (root / page / "index.html").read_text(encoding="utf-8")
        assert _title(html).endswith(" - " + name) and _meta(html, "og:site_name") == name, page
    home = (root / "index.html").read_text(encoding="utf-8")
    assert _meta(home, "description") == description
    assert feedparser.parse((root / "feeds" / "all.xml").read_bytes()).feed.title == name
    about = (root / "about" / "index.html").read_text(encoding="utf-8")
    assert '<a href="https://github.com/vllm-project/vllm">vllm-project/vllm</a>' in about
    assert ("About this site" in about) == (language == "en")


def test_a_name_the_plugin_block_gives_is_said_once_as_information(vllm_site: tuple[Path, list[str]]) -> None:
    _, logged = vllm_site
    said = [line for line in logged if "site_name" in line]
    assert said == [
        "INFO commit-digest: the en site is named 'vLLM daily commit digest' by plugins.commit-digest "
        "site_name.en, not 'vLLM 每日提交摘要' by the top-level site_name: the plugin block's name for a "
        "language comes first (its site_description.en too)"
    ]


# -- the about page: made from the configuration, unless written by hand --------------------------


def test_the_about_page_of_several_repositories_lists_each_with_its_platforms() -> None:
    taxonomy = load_taxonomy()
    repositories = (
        SiteRepository.named("vllm-project/vllm"),
        SiteRepository(name="vllm-project/vllm-ascend", title="vLLM Ascend", platforms=("ascend",)),
    )
    index = build_index([], repositories=repositories, zone=UTC, taxonomy=taxonomy, language="en")
    for language, title, expected in (
        ("en", "About this site", "vllm-project/vllm-ascend (vLLM Ascend): each of its commits is on Ascend NPU"),
        ("zh", "关于本站", "vllm-project/vllm-ascend（vLLM Ascend）：每个提交都归入平台 昇腾 NPU"),
    ):
        spec = about_page(SiteContext(index, taxonomy, SiteOptions(language=language)))
        html = spec.render().html
        assert spec.title == title and [heading.id for heading in spec.render().headings] == ["top", "tabs", "analyses"]
        assert expected in visible_text(html)
        # A repository with no title of its own is named once.
        assert '<a href="https://github.com/vllm-project/vllm">vllm-project/vllm</a></li>' in html
        assert '<a href="../repositories/">' in html


def test_the_about_page_escapes_what_the_configuration_names() -> None:
    taxonomy = load_taxonomy()
    hostile = SiteRepository(name="a/b", title="<script>x</script> & co")
    index = build_index([], repositories=(hostile, SiteRepository.named("a/c")), zone=UTC, taxonomy=taxonomy)
    html = about_page(SiteContext(index, taxonomy, SiteOptions())).render().html
    assert "<script>" not in html and str(Markup.escape("<script>x</script> & co")) in html


def test_a_one_repository_site_takes_platforms_and_hand_written_about_pages_win(tmp_path: Path) -> None:
    """(c) ``platforms: [ascend]`` beside ``repository:`` puts every commit on Ascend, however
    little its title or files say so, in both languages; and docs/about.md (with its English
    variant, docs/about.en.md) takes the generated page's place in each."""
    plain = [("Fix a typo", "README.md"), ("Tidy the tests", "tests/test_x.py"), ("Bump the version", "setup.py")]
    records = [
        CommitRecord(commit=rocket_commit(number, title, path).model_copy(update={"repository": PLUGIN}))
        for number, (title, path) in enumerate(plain)
    ]
    built = build_site(
        tmp_path / "ascend",
        records,
        hand_written={
            "about.md": "# 我们自己的话\n\n站长写的。\n",
            "about.en.md": "# Our own words\n\nBy the owner.\n",
        },
        repository=PLUGIN,
        platforms=["ascend"],
        languages=["zh", "en"],
    )
    for root in ("", "en/"):
        ascend = built.page(root + "platforms/ascend/")
        for record in records:
            page = built.page(f"{root}commits/{record.commit.sha[:12]}/")
            assert 'href="../../platforms/ascend/"' in page, record.commit.title
            assert record.commit.sha[:12] in ascend
    zh, en = visible_text(built.page("about/")), visible_text(built.page("en/about/"))
    assert "我们自己的话" in zh and "Our own words" not in zh and "本站每天收集" not in zh
    assert "Our own words" in en and "我们自己的话" not in en and "Every day this site" not in en
    assert not list(built.site.rglob("about.en*"))


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_axe_finds_no_wcag_violation_on_the_about_page(
    browser: Browser, vllm_site: tuple[Path, list[str]], language: str, scheme: Literal["light", "dark"], width: int
) -> None:
    site, _ = vllm_site
    with serve(site) as url:
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        try:
            page = context.new_page()
            page.goto(url + ("about/" if language == "zh" else "en/about/"), wait_until="networkidle")
            assert page.locator("html").get_attribute("lang") == language
            results = Axe().run(page, options=AXE_OPTIONS)
            found = [
                f"{violation['id']} ({violation['impact']}) at {', '.join(node['target'])}"
                for violation in results.response["violations"]
                for node in violation["nodes"]
            ]
            assert not found, "axe-core found:\n" + "\n".join(found)
        finally:
            context.close()
