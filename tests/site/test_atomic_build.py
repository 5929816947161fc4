"""A build publishes all of its pages or none: a failed, crashed or killed build leaves the
previous site exactly as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from commit_digest.store.analysis_store import AnalysisStore
from commit_digest_mkdocs.build import SiteBuildError, run_build
from tests.site.conftest import PROJECT, project_config
from tests.site.factories import sample_records

KILLER = """\
import os, signal
if os.environ.get("KILL_THE_BUILD"):
    os.kill(os.getpid(), signal.SIGKILL)
"""


def snapshot(site: Path) -> dict[str, bytes]:
    return {str(path.relative_to(site)): path.read_bytes() for path in sorted(site.rglob("*")) if path.is_file()}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A site folder with a store, the demo's docs and a gen-files script that can kill the build."""
    root = tmp_path / "project"
    shutil.copytree(PROJECT / "docs", root / "docs")
    (root / "docs" / "scripts" / "killer.py").write_text(KILLER)
    with AnalysisStore(root / "cache") as store:
        for record in sample_records():
            store.put(record)
    config = project_config(cache_dir="cache")
    for entry in config["plugins"]:
        if isinstance(entry, dict) and "gen-files" in entry:
            entry["gen-files"]["scripts"] = ["docs/scripts/deprecations.py", "docs/scripts/killer.py"]
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return root


def build(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(root)
    return run_build(root / "mkdocs.yml", site_dir=root / "site", strict=True)


def leftovers(root: Path) -> list[str]:
    """Half-built or half-swapped sites (the replaced site is removed in the background, as
    ``.site.deleting-*``: that one may still be there)."""
    return sorted(path.name for path in root.iterdir() if path.name.startswith((".site.building-", ".site.old-")))


def test_a_failed_strict_build_leaves_the_published_site_untouched(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = build(project, monkeypatch)
    before = snapshot(site)
    (project / "docs" / "broken.md").write_text("# Broken\n\n[a link to nowhere](nowhere.md)\n")
    with pytest.raises(SiteBuildError, match="is unchanged"):
        build(project, monkeypatch)
    assert snapshot(site) == before
    assert leftovers(project) == []


def test_a_killed_build_leaves_the_published_site_untouched(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = build(project, monkeypatch)
    before = snapshot(site)
    command = [
        sys.executable,
        "-m",
        "commit_digest.cli",
        "build",
        "-f",
        "mkdocs.yml",
        "--site-dir",
        "site",
        "--strict",
        "--full",
    ]
    killed = subprocess.run(
        command, cwd=project, env={**os.environ, "KILL_THE_BUILD": "1"}, capture_output=True, timeout=300
    )
    assert killed.returncode == -9, killed.stderr[-2000:]
    assert snapshot(site) == before
    # The next build clears what the killed one left and publishes normally.
    assert leftovers(project)
    build(project, monkeypatch)
    assert leftovers(project) == []


def test_a_swap_cut_short_is_completed_by_the_next_build(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = build(project, monkeypatch)
    before = snapshot(site)
    # The old site was renamed away and the process died before the new one moved in.
    site.rename(project / ".site.old-crashed")
    (project / ".site.building-crashed").mkdir()
    monkeypatch.chdir(project)
    from commit_digest.site.build.publication import remove_leftovers

    remove_leftovers(site)
    assert snapshot(site) == before
    assert leftovers(project) == []


def test_a_site_still_being_removed_is_left_to_a_background_removal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last build's retired site may still be under ``rm -rf`` when the next build starts
    (back-to-back nightly steps): the build does not wait for tens of thousands of unlinks."""
    from commit_digest.site.build import publication

    handed: list[str] = []
    monkeypatch.setattr(publication, "remove_in_background", lambda folder: handed.append(folder.name))
    (tmp_path / ".site.deleting-previous" / "commits").mkdir(parents=True)
    (tmp_path / ".site.building-killed").mkdir()
    publication.remove_leftovers(tmp_path / "site")
    # A killed build's staging folder may be a whole site too: renamed, and removed the same way.
    assert sorted(handed) == [".site.deleting-killed", ".site.deleting-previous"]
    assert not (tmp_path / ".site.building-killed").exists()
