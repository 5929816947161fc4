"""Odd release tags, end to end: a history made with real git whose tags ``v1.0.0<b>`` and
``v1.0.0-b-`` are one path segment once made safe, fetched with the real CLI and built with
``mkdocs build --strict``, gets two release pages, both linked; releases in the store or the
durable form that are not release tags (``..``, ``/abs/path/x``, a tag outside ``release_tags``)
are neither restored nor shown."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from commit_digest.cli import main
from commit_digest.meaning.releases import Release
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import save_durable
from commit_digest_mkdocs.build import run_build
from tests.git import run_git
from tests.site.conftest import PROJECT, BuiltSite, project_config
from tests.site.html import article, hrefs, visible_text

pytestmark = pytest.mark.slow

REPOSITORY = "vllm-project/vllm"
ODD_TAGS = ("v1.0.0<b>", "v1.0.0-b-")
# Names git never makes (the last one matches the site's release_tags), and a tag that does not match.
JUNK_TAGS = ("..", "/abs/path/x", "v1.0.0/../../x", "nightly")
HISTORY = (
    ("2026-03-02T09:00:00+00:00", "[Core] First change (#1)", "vllm/a.py", "v1.0.0<b>"),
    ("2026-03-03T09:00:00+00:00", "[Core] Second change (#2)", "vllm/b.py", "v1.0.0-b-"),
    ("2026-03-04T09:00:00+00:00", "[Core] Third change (#3)", "vllm/c.py", "nightly"),
)


def make_clone(folder: Path) -> list[str]:
    folder.mkdir(parents=True)
    run_git(folder, "init", "-q", "-b", "main")
    shas = []
    for when, title, path, tag in HISTORY:
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(f"# {title}\n", encoding="utf-8")
        run_git(folder, "add", "-A")
        people = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "a@e.x", "GIT_COMMITTER_NAME": "Ada"}
        dates = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "GIT_COMMITTER_EMAIL": "a@e.x"}
        run_git(folder, "commit", "-q", "-m", title, env={**people, **dates})
        run_git(folder, "tag", tag)
        shas.append(run_git(folder, "rev-parse", "HEAD"))
    return shas


def junk_releases(sha: str) -> list[Release]:
    """What a hostile durable form (or a store restored from one) may hold: names git never makes
    and a tag the site's ``release_tags`` does not take."""
    when = datetime(2026, 3, 5, tzinfo=UTC)
    return [Release(repository=REPOSITORY, tag=tag, sha=sha, tagged_at=when) for tag in JUNK_TAGS]


def write_config(root: Path) -> Path:
    # Odd tags are releases here; "nightly" is not.
    config = project_config(cache_dir="cache", language="en", repositories=[{"name": REPOSITORY, "release_tags": "^v"}])
    config_file = root / "mkdocs.yml"
    config_file.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return config_file


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[BuiltSite, list[str]]:
    root = tmp_path_factory.mktemp("release-tags")
    shutil.copytree(PROJECT / "docs", root / "docs")
    config_file = write_config(root)
    shas = make_clone(root / "clone")
    fetch = ["fetch", "-f", str(config_file), "--repo", REPOSITORY, "--source", "git", "--git-dir", str(root / "clone")]
    assert main([*fetch, "--no-pr", "--since", "2026-03-01", "--until", "2026-03-05"]) == 0
    with AnalysisStore(root / "cache") as store:
        for release in junk_releases(shas[-1]):
            store.put_release(release)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        site = run_build(config_file, site_dir=root / "site", strict=True)
    return BuiltSite(root, site), shas


def release_links(site: BuiltSite) -> list[str]:
    """The links of the releases index's table (relative to releases/)."""
    index = article(site.page("releases"))
    return hrefs(index[index.index('<table class="digest-releases">') :])


def test_two_tags_of_one_safe_segment_get_two_pages_both_linked(built: tuple[BuiltSite, list[str]]) -> None:
    site, _shas = built
    links = release_links(site)
    pages = {href: visible_text(article(site.page(f"releases/{href}"))) for href in links}
    assert len(pages) == 2, links
    titles = sorted(text.split("¶")[0] for text in pages.values())
    assert titles == sorted(f"Release {tag}" for tag in ODD_TAGS), titles
    index = article(site.page("releases"))
    assert "&lt;b&gt;" in index and "<b>" not in index


def test_each_commit_links_its_own_release(built: tuple[BuiltSite, list[str]]) -> None:
    site, shas = built
    for sha, tag in zip(shas, ODD_TAGS, strict=False):
        page = article(site.page(f"commits/{sha[:12]}"))
        (link,) = [href for href in hrefs(page) if href.startswith("../../releases/")]
        title = visible_text(article(site.page(link.removeprefix("../../"))))
        assert title.startswith(f"Release {tag}"), (tag, title)


def test_what_is_no_release_tag_is_not_shown(built: tuple[BuiltSite, list[str]]) -> None:
    site, shas = built
    index = visible_text(article(site.page("releases")))
    assert not any(tag in index for tag in JUNK_TAGS)
    shown = sorted(path.name for path in (site.site / "releases").iterdir())
    assert shown == sorted([*(href.rstrip("/") for href in release_links(site)), "index.html", "unreleased"])
    assert "Third change" in visible_text(article(site.page(f"commits/{shas[2][:12]}")))
    assert "Not yet released" in visible_text(article(site.page(f"commits/{shas[2][:12]}")))


def test_restore_takes_no_release_that_is_not_a_release_tag(
    built: tuple[BuiltSite, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site, _shas = built
    durable = tmp_path / "data"
    with AnalysisStore(site.root / "cache") as store:
        save_durable(store, durable)  # the junk is in the durable form too
    fresh = tmp_path / "fresh"
    config = str(site.root / "mkdocs.yml")
    assert main(["restore", "-f", config, "--durable-dir", str(durable), "--cache", str(fresh)]) == 0
    assert f"skipped {len(JUNK_TAGS)} releases" in capsys.readouterr().out
    with AnalysisStore(fresh) as store:
        assert sorted(release.tag for release in store.releases()) == sorted(ODD_TAGS)
