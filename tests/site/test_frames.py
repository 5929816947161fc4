"""Generated pages rendered into the theme's frame once per kind, in worker processes: the same
bytes as the theme's whole template per page, and the same site whatever the number of workers."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config

from commit_digest.models import CommitRecord, Importance
from commit_digest.site.build.compact import compact_page
from commit_digest.site.build.frame import Frame, FrameError, Slot
from commit_digest.site.parallel import MIN_BATCH
from commit_digest_mkdocs.plugin import CommitDigestPlugin
from tests.site.conftest import build_site
from tests.site.factories import make_commit, ok_analysis, sample_records

HOSTILE_TITLE = "Fix </head><script>alert(1)</script> & cdframetitle0000 'quoted' {{ page.title }}"


def test_a_frame_fills_every_place_of_a_slot_and_keeps_the_rest() -> None:
    frame = Frame.of("<t>T</t><h>T</h><main>C</main>", {"T": Slot.TITLE, "C": Slot.CONTENT})
    assert frame.fill({Slot.TITLE: "a&amp;b", Slot.CONTENT: "<p>x</p>"}) == (
        "<t>a&amp;b</t><h>a&amp;b</h><main><p>x</p></main>"
    )


def test_a_theme_page_without_a_required_place_cannot_be_framed() -> None:
    with pytest.raises(FrameError, match="content"):
        Frame.of("<html>no marker</html>", {"C": Slot.CONTENT}, required=(Slot.CONTENT,))


def _records() -> list[CommitRecord]:
    records = sample_records()
    hostile = make_commit("hostile", HOSTILE_TITLE, records[0].commit.committed_at, paths=("vllm/v1/worker/gpu.py",))
    records.append(records[0].model_copy(update={"commit": hostile, "analysis": ok_analysis(Importance.HIGH)}))
    return records


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[CommitDigestPlugin, Path]:
    """A site built through MkDocs' own API, keeping the plugin to ask for whole-page renders."""
    root = tmp_path_factory.mktemp("frames")
    site = build_site(root / "first", _records(), workers=2)
    config_file = site.root / "mkdocs.yml"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(site.root)
        config = load_config(config_file=str(config_file), site_dir=str(root / "again"), strict=True)
        build(config)
    return config.plugins["commit-digest"], root / "again"


def test_a_framed_page_is_what_the_themes_whole_template_makes(built: tuple[CommitDigestPlugin, Path]) -> None:
    plugin, site = built
    frames, heads = plugin._generated.frames, plugin._heads.generated
    assert frames is not None
    seen: set[tuple[str, int]] = set()
    for spec, output, url in plugin._generated.framed:
        kind = (spec.src_uri.split("/", 1)[0], spec.src_uri.count("/"))
        if kind in seen:
            continue
        seen.add(kind)
        rendered = spec.render()
        head = heads(spec, url)  # its description, card and feeds: in the frame's slots, or the template's
        whole = frames.whole_page(spec.src_uri, html.escape(spec.title), rendered.headings, rendered.html, head)
        assert compact_page((site / output).read_text(encoding="utf-8")) == compact_page(whole), spec.src_uri
    assert len(seen) >= 8  # days, commits, months, weeks, platforms, subsystems, their months…
    assert len(plugin._generated.framed) >= 2 * MIN_BATCH  # so the build above used two worker processes


def test_a_commit_page_shows_its_own_title_address_and_contents(built: tuple[CommitDigestPlugin, Path]) -> None:
    plugin, site = built
    _, output, url = next(item for item in plugin._generated.framed if item[0].title == HOSTILE_TITLE)
    page = (site / output).read_text(encoding="utf-8")
    escaped = html.escape(HOSTILE_TITLE)
    assert f"<title>{escaped} - " in page
    assert "<script>alert(1)" not in page
    assert page.count("</head>") == 1
    assert f'<link rel="canonical" href="https://digest.example.org/{url}">' in page
    toc = re.search(r'data-md-component="toc".*?</ul>', page, re.S)
    assert toc is not None and 'href="#summary"' in toc.group(0)


def test_label_pages_announce_their_own_feeds(built: tuple[CommitDigestPlugin, Path]) -> None:
    _, site = built
    cuda = (site / "platforms/cuda/index.html").read_text(encoding="utf-8")
    rocm = (site / "platforms/rocm/index.html").read_text(encoding="utf-8")
    assert "feeds/platforms/cuda.xml" in cuda and "feeds/platforms/rocm.xml" not in cuda
    assert "feeds/platforms/rocm.xml" in rocm


def test_one_worker_and_two_build_the_same_site(tmp_path: Path) -> None:
    one = build_site(tmp_path / "one", _records(), workers=1)
    two = build_site(tmp_path / "two", _records(), workers=2)
    files_one = {p.relative_to(one.site): p.read_bytes() for p in one.site.rglob("*.html")}
    files_two = {p.relative_to(two.site): p.read_bytes() for p in two.site.rglob("*.html")}
    assert files_one.keys() == files_two.keys()
    assert [name for name in files_one if files_one[name] != files_two[name]] == []


def test_a_theme_that_cannot_be_framed_gets_whole_pages(tmp_path: Path) -> None:
    """A theme override that prints the title upper-cased hides the title marker's place in a
    form the frame cannot fill: those pages are rendered whole, and still right."""
    shout = '{% extends "base.html" %}{% block content %}<p class="shout">{{ page.content | upper }}</p>{% endblock %}'
    site = build_site(tmp_path / "site", _records(), workers=2, hand_written={"overrides/main.html": shout})
    page = site.page("platforms/cuda/")
    assert '<p class="shout">' in page and "<A HREF=" in page  # the content went through the theme whole


def test_pages_without_directory_urls_are_framed_as_the_theme_would(tmp_path: Path) -> None:
    """``use_directory_urls: false``: pages are files (commits/<sha>.html), links relative to them."""
    site = build_site(tmp_path / "first", _records(), workers=2)
    config_file = site.root / "mkdocs.yml"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(site.root)
        # Not strict: MkDocs cannot resolve a hand-written page's link to commits/<sha>.html, a
        # page it does not build (the same holds for the pages an incremental build reuses).
        config = load_config(
            config_file=str(config_file), site_dir=str(tmp_path / "files"), use_directory_urls=False, strict=False
        )
        build(config)
    plugin = config.plugins["commit-digest"]
    frames, heads = plugin._generated.frames, plugin._heads.generated
    assert frames is not None
    checked = 0
    for spec, output, url in plugin._generated.framed:
        if spec.src_uri.startswith(("commits/", "days/", "platforms/")) and checked < 6:
            assert output.endswith(".html") and not output.endswith("/index.html")
            rendered = spec.render()
            title, head = html.escape(spec.title), heads(spec, url)
            whole = frames.whole_page(spec.src_uri, title, rendered.headings, rendered.html, head)
            assert compact_page((tmp_path / "files" / output).read_text(encoding="utf-8")) == compact_page(whole), url
            checked += 1
    assert checked == 6
