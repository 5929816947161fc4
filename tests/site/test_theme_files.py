"""The theme's files no page loads are not published: material's own search (lunr, its
language files, the search worker) and the source maps, 2.3 MB in 40 files of every build. What
the pages load is all there, and a site owner's files at those paths are kept."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from commit_digest.site.build.theme_files import unpublished_theme_files
from tests.site.conftest import BuiltSite, build_site
from tests.site.factories import sample_records

_LOADED = re.compile(r'(?:src|href)="([^"#?]+\.(?:js|css|svg|png))"')


def test_source_maps_and_the_theme_search_are_left_out_unless_that_search_is_on() -> None:
    paths = [
        "assets/javascripts/bundle.a5f9d56c.min.js",
        "assets/javascripts/bundle.a5f9d56c.min.js.map",
        "assets/javascripts/lunr/min/lunr.zh.min.js",
        "assets/javascripts/lunr/wordcut.js",
        "assets/javascripts/workers/search.a7633da7.min.js",
        "assets/stylesheets/main.57a0d79d.min.css",
        "assets/stylesheets/main.57a0d79d.min.css.map",
        "assets/images/favicon.png",
    ]
    assert unpublished_theme_files(paths, theme_search=False) == [
        "assets/javascripts/bundle.a5f9d56c.min.js.map",
        "assets/javascripts/lunr/min/lunr.zh.min.js",
        "assets/javascripts/lunr/wordcut.js",
        "assets/javascripts/workers/search.a7633da7.min.js",
        "assets/stylesheets/main.57a0d79d.min.css.map",
    ]
    assert unpublished_theme_files(paths, theme_search=True) == [
        "assets/javascripts/bundle.a5f9d56c.min.js.map",
        "assets/stylesheets/main.57a0d79d.min.css.map",
    ]


def test_a_built_site_has_every_file_its_pages_load_and_none_other_of_the_theme(zh_site: BuiltSite) -> None:
    site = zh_site.site
    published = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}
    assert not [path for path in published if path.endswith(".map") or "/lunr/" in path or "/workers/" in path]
    loaded: set[str] = set()
    for page in site.rglob("*.html"):
        folder = page.parent.relative_to(site).as_posix()
        for link in _LOADED.findall(page.read_text(encoding="utf-8")):
            if not link.startswith(("http:", "https:", "/")):
                loaded.add(posixpath.normpath(posixpath.join(folder, link)))
    assert any(path.startswith("assets/javascripts/bundle.") for path in loaded)
    assert loaded <= published, sorted(loaded - published)


def test_a_site_owners_files_at_those_paths_are_kept(tmp_path: Path) -> None:
    mine = {
        "assets/javascripts/lunr/mine.js": "// the owner's own\n",
        "assets/mine.js.map": "{}\n",
    }
    built = build_site(tmp_path, sample_records()[:3], hand_written=mine)
    for path, text in mine.items():
        assert (built.site / path).read_text(encoding="utf-8") == text
    assert not list((built.site / "assets/javascripts").rglob("lunr.*.js"))
