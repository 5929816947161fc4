"""The rclone deploy (scripts/deploy-rclone.sh) against a real rclone and a local remote: two nights
of a real site, the second uploading only the pages the night changed and deleting the ones it
removed; a failed or unbuilt sync that deletes nothing; a config secret that never shows; and the
nightly workflow wired to take either the Pages path or this one."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from commit_digest.cli import main
from commit_digest.models import CommitRecord
from commit_digest.site.paths import STATE_DIR
from commit_digest.store.analysis_store import AnalysisStore

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "deploy-rclone.sh"
NIGHTLY = ROOT / ".github" / "workflows" / "nightly.yml"
ON_RCLONE = "vars.DEPLOY_TARGET == 'rclone'"
ON_PAGES = "vars.DEPLOY_TARGET != 'rclone'"
# What rclone logs for a file it wrote or removed; anything else about a file (such as
# "Updated modification time in destination") means it touched a page that did not change.
COPIED = {"Copied (new)", "Copied (replaced existing)"}
DELETED = "Deleted"


def rclone() -> str:
    found = shutil.which("rclone")
    if found is None:
        pytest.fail("rclone is missing: run `bash scripts/ensure-rclone.sh` (make test runs it)")
    return found


@dataclass(frozen=True)
class Sync:
    """One run of the deploy script, read from rclone's JSON log."""

    returncode: int
    output: str
    copied: frozenset[str]
    deleted: frozenset[str]
    other: tuple[tuple[str, str], ...]  # (message, file) for any other per-file line
    stats: dict[str, Any]


def deploy(site: Path, remote: str, tmp_path: Path, **env: str) -> Sync:
    rclone()
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    environment = {"PATH": os.environ["PATH"], "HOME": str(home), "DEPLOY_RCLONE_REMOTE": remote, **env}
    result = subprocess.run(
        ["bash", str(SCRIPT), str(site), "--use-json-log"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    copied: set[str] = set()
    deleted: set[str] = set()
    other: list[tuple[str, str]] = []
    stats: dict[str, Any] = {}
    for line in result.stderr.splitlines():
        if not line.startswith("{"):
            continue
        entry = json.loads(line)
        if "stats" in entry:
            stats = entry["stats"]
        elif entry.get("objectType", "").endswith(".Object"):  # a file, not a folder or the remote
            if entry["msg"] in COPIED:
                copied.add(entry["object"])
            elif entry["msg"] == DELETED:
                deleted.add(entry["object"])
            else:
                other.append((entry["msg"], entry["object"]))
    return Sync(
        result.returncode, result.stdout + result.stderr, frozenset(copied), frozenset(deleted), tuple(other), stats
    )


def digests(folder: Path) -> dict[str, str]:
    """Every published file of ``folder`` by its content (the build's state folder is not published)."""
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in folder.rglob("*")
        if path.is_file() and path.relative_to(folder).parts[0] != STATE_DIR
    }


def next_night(cache: Path) -> tuple[CommitRecord, CommitRecord]:
    """A night's change to the store: one commit lands the day after the newest, and the oldest
    commit is gone (its page must leave the remote). Returns (added, removed)."""
    with AnalysisStore(cache) as store:
        records = sorted(store.records(), key=lambda record: record.commit.committed_at)
        oldest, newest = records[0], records[-1]
        later = timedelta(days=1)
        commit = newest.commit.model_copy(
            update={
                "sha": "f" * 40,
                "title": "[Core] Land the next night's change (#99999)",
                "authored_at": newest.commit.authored_at + later,
                "committed_at": newest.commit.committed_at + later,
            }
        )
        added = newest.model_copy(update={"commit": commit})
        store.put(added)
        assert store.delete(oldest.commit.repository, oldest.commit.sha)
    return added, oldest


def commit_page(record: CommitRecord) -> str:
    return f"commits/{record.commit.sha[:12]}/index.html"


@pytest.mark.slow
def test_two_nights_upload_only_what_changed_and_leave_the_remote_equal_to_the_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", project / "docs")
    monkeypatch.chdir(project)
    site, remote = project / "site", tmp_path / "remote"

    assert main(["demo", "--site-dir", str(site)]) == 0
    first = digests(site)
    night = deploy(site, str(remote), tmp_path)
    assert night.returncode == 0, night.output
    assert night.copied == set(first) and night.deleted == set() and night.other == ()
    assert digests(remote) == first
    assert not (remote / STATE_DIR).exists()

    added, removed = next_night(project / "cache")
    # A full build writes every page afresh (as a runner whose cache was evicted does): new
    # modification times everywhere, so only a comparison by content keeps the upload small.
    assert main(["build", "--site-dir", str(site), "--full", "--strict"]) == 0
    second = digests(site)
    changed = {name for name, digest in second.items() if first.get(name) != digest}
    gone = set(first) - set(second)
    assert {commit_page(added), f"days/{added.commit.committed_at.date()}/index.html"} <= changed
    assert commit_page(removed) in gone

    night = deploy(site, str(remote), tmp_path)
    assert night.returncode == 0, night.output
    assert night.copied == changed
    assert night.deleted == gone
    assert night.other == ()  # no unchanged page re-uploaded or re-stamped
    # A night is a small part of the site's pages. (Not of its search filters: all 256 bucket
    # files change whenever a partition's block grows, as the current month's does on a real night.)
    pages = {name for name in second if name.endswith(".html")}
    assert len(changed & pages) < len(pages) / 5
    assert night.stats["errors"] == 0 and night.stats["transfers"] == len(changed)
    assert digests(remote) == second


def test_a_config_secret_is_written_privately_used_once_and_never_printed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>home</p>\n")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    sentinel = "never-print-this-9f2c"
    config = f"[web]\ntype = local\n# {sentinel}\n"

    night = deploy(site, f"web:{tmp_path / 'remote'}", tmp_path, DEPLOY_RCLONE_CONFIG=config, TMPDIR=str(scratch))

    assert night.returncode == 0, night.output
    assert night.copied == {"index.html"}
    assert (tmp_path / "remote" / "index.html").read_text() == "<p>home</p>\n"
    assert sentinel not in night.output
    assert list(scratch.iterdir()) == []  # the config file is gone


def test_a_failed_upload_fails_the_sync_and_deletes_nothing(tmp_path: Path) -> None:
    site, remote = tmp_path / "site", tmp_path / "remote"
    site.mkdir()
    (site / "index.html").write_text("<p>home</p>\n")
    (site / "blocked.html").write_text("<p>new</p>\n")
    (remote / "blocked.html").mkdir(parents=True)  # a folder where the page must go: the upload fails
    (remote / "blocked.html" / "inside").write_text("x")
    (remote / "removed.html").write_text("<p>a page the build no longer makes</p>\n")

    night = deploy(site, str(remote), tmp_path, RCLONE_RETRIES="1")

    assert night.returncode != 0
    assert night.stats["errors"] >= 1
    assert night.deleted == set() and (remote / "removed.html").exists()


def test_a_site_that_was_not_built_is_never_synced(tmp_path: Path) -> None:
    site, remote = tmp_path / "site", tmp_path / "remote"
    site.mkdir()
    remote.mkdir()
    (remote / "index.html").write_text("<p>published</p>\n")

    night = deploy(site, str(remote), tmp_path)

    assert night.returncode == 2
    assert "index.html is missing" in night.output
    assert (remote / "index.html").read_text() == "<p>published</p>\n"


def test_the_script_keeps_the_builds_state_folders_off_the_remote(tmp_path: Path) -> None:
    """Every language's state (the default's at the root, en/'s in en/) stays home."""
    site, remote = tmp_path / "site", tmp_path / "remote"
    for folder in (site, site / "en"):
        (folder / STATE_DIR).mkdir(parents=True)
        (folder / STATE_DIR / "build.json").write_text("{}\n")
        (folder / "index.html").write_text("<p>home</p>\n")
    remote.mkdir()

    night = deploy(site, str(remote), tmp_path)

    assert night.returncode == 0, night.output
    assert sorted(path.relative_to(remote).as_posix() for path in remote.rglob("*") if path.is_file()) == [
        "en/index.html",
        "index.html",
    ]


def test_the_pages_folder_is_the_site_without_its_state_and_costs_no_copy(tmp_path: Path) -> None:
    site, published = tmp_path / "site", tmp_path / "published"
    for folder in (site, site / "en"):
        (folder / STATE_DIR).mkdir(parents=True)
        (folder / STATE_DIR / "build.json").write_text("{}\n")
        (folder / "commits" / "abc").mkdir(parents=True)
        (folder / "commits" / "abc" / "index.html").write_text("<p>commit</p>\n")
        (folder / "index.html").write_text("<p>home</p>\n")
    (published / "stale.html").parent.mkdir()
    (published / "stale.html").write_text("from an earlier run\n")

    run = subprocess.run(
        ["bash", str(ROOT / "scripts" / "published-copy.sh"), str(site), str(published)],
        capture_output=True,
        text=True,
        check=False,
    )

    assert run.returncode == 0, run.stderr
    files = sorted(path.relative_to(published).as_posix() for path in published.rglob("*") if path.is_file())
    assert files == ["commits/abc/index.html", "en/commits/abc/index.html", "en/index.html", "index.html"]
    assert (published / "index.html").stat().st_ino == (site / "index.html").stat().st_ino  # a hard link
    assert (site / STATE_DIR / "build.json").is_file() and (site / "en" / STATE_DIR / "build.json").is_file()
    unbuilt = subprocess.run(
        ["bash", str(ROOT / "scripts" / "published-copy.sh"), str(tmp_path / "none"), str(published)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert unbuilt.returncode == 2 and "index.html is missing" in unbuilt.stderr


def test_the_nightly_workflow_publishes_to_pages_or_syncs_with_rclone() -> None:
    jobs = yaml.safe_load(NIGHTLY.read_text())["jobs"]
    steps = jobs["update"]["steps"]
    names = [step.get("id") or step.get("name") or step.get("uses") for step in steps]
    nightly = names.index("nightly")

    sync = next(index for index, step in enumerate(steps) if "scripts/deploy-rclone.sh site" in step.get("run", ""))
    install = next(index for index, step in enumerate(steps) if "scripts/ensure-rclone.sh" in step.get("run", ""))
    assert nightly < install < sync
    for step in (steps[install], steps[sync]):
        condition = step["if"]
        assert ON_RCLONE in condition and condition.startswith("success() && ")
        # Complete (0) and partial (1) nights publish; a failed one (2) does not.
        assert "steps.nightly.outputs.status == '0'" in condition
        assert "steps.nightly.outputs.status == '1'" in condition
    assert steps[sync]["env"]["DEPLOY_RCLONE_CONFIG"] == "${{ secrets.RCLONE_CONFIG }}"
    assert steps[sync]["env"]["DEPLOY_RCLONE_REMOTE"] == "${{ secrets.RCLONE_REMOTE }}"

    upload = next(step for step in steps if step.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["if"] == ON_PAGES
    published = next(step for step in steps if "scripts/published-copy.sh site published" in step.get("run", ""))
    assert published["if"] == ON_PAGES and upload["with"]["path"] == "published"
    assert steps.index(published) < steps.index(upload)
    assert jobs["deploy"]["if"] == ON_PAGES
    # The partial-night flag still shows when the Pages job was skipped for rclone.
    assert "needs.deploy.result == 'skipped'" in jobs["partial"]["if"]
    assert "needs.update.outputs.status == '1'" in jobs["partial"]["if"]
