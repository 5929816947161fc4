"""A new release tag and a late revert reach the pages of earlier commits through the incremental
build: those pages render again, the others are reused, and the result equals a cold build."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from commit_digest.cli import main
from tests.git import run_git
from tests.site.conftest import PROJECT
from tests.site.meaning_history import REPOSITORY, History, _dated, make_history
from tests.site.test_incremental import Project, inode


def _fetch(history: History, cache: Path) -> None:
    common = ["--repo", REPOSITORY, "--cache", str(cache)]
    fetch = ["fetch", *common, "--source", "git", "--git-dir", str(history.folder), "--no-pr"]
    assert main([*fetch, "--since", "2026-03-01", "--until", "2026-03-20"]) == 0
    assert main(["analyze", "--offline", *common]) == 0


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Project, History]]:
    root = tmp_path_factory.mktemp("meaning-incremental")
    history = make_history(root / "vllm")
    shutil.copytree(PROJECT / "docs", root / "docs")
    _fetch(history, root / "cache")
    project = Project(root, {})
    project.configure()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        project.build()
        yield project, history


def page(project: Project, history: History, name: str) -> Path:
    return project.site / "commits" / history.shas[name][:12] / "index.html"


def test_a_new_tag_updates_the_pages_of_the_commits_it_releases(built: tuple[Project, History]) -> None:
    project, history = built
    released_before = inode(page(project, history, "env"))
    # Annotated: dated by its tagger, after v0.2.0 (a lightweight tag takes its commit's date).
    run_git(
        history.folder,
        "tag",
        "-a",
        "-m",
        "v0.3.0",
        "v0.3.0",
        history.shas["fix"],
        env=_dated("2026-03-09T10:00:00+00:00"),
    )
    _fetch(history, project.root / "cache")

    project.assert_incremental_equals_cold()

    assert "v0.3.0" in page(project, history, "fix").read_text(encoding="utf-8")
    assert "v0.3.0" in page(project, history, "series3").read_text(encoding="utf-8")
    assert inode(page(project, history, "env")) == released_before  # still first released in v0.2.0
    notes = (project.site / "releases" / "v0.3.0" / "index.html").read_text(encoding="utf-8")
    assert "Fused MoE rewrite [3/3]" in notes


def test_a_late_revert_marks_the_earlier_commit(built: tuple[Project, History]) -> None:
    project, history = built
    untouched = inode(page(project, history, "rocm"))
    run_git(history.folder, "revert", "--no-edit", history.shas["flag"], env=_dated("2026-03-10T08:00:00+00:00"))
    _fetch(history, project.root / "cache")

    project.assert_incremental_equals_cold()

    flag = page(project, history, "flag").read_text(encoding="utf-8")
    assert "此提交已被回滚" in flag
    assert "已回滚" in (project.site / "days" / "2026-03-03" / "index.html").read_text(encoding="utf-8")
    assert inode(page(project, history, "rocm")) == untouched
