"""`nightly` with a site past its ``site_size_limit``, from a store far smaller than the published
site, or on a site another build holds: exit 2 (the workflow deploys nothing), a message that says
what to do, and the site published the night before left exactly as it was."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from commit_digest.cli import main
from commit_digest.commands.nightly import EXIT_COMPLETE, EXIT_FAILED
from commit_digest.models import CommitRecord
from commit_digest.site.build.size_guard import site_size
from commit_digest.store.analysis_store import AnalysisStore
from tests.site.conftest import PROJECT, project_config
from tests.site.factories import make_commit


def configure(root: Path, **options: object) -> None:
    config = project_config(cache_dir="cache", **options)
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")


def night(root: Path) -> int:
    """A night without GitHub or an LLM: what is stored is analysed offline and published."""
    arguments = ["-f", str(root / "mkdocs.yml"), "--durable-dir", str(root / "data"), "--site-dir", str(root / "site")]
    return main(["nightly", *arguments, "--no-fetch", "--offline"])


def snapshot(site: Path) -> dict[str, bytes]:
    return {str(path.relative_to(site)): path.read_bytes() for path in site.rglob("*") if path.is_file()}


def test_a_site_past_its_limit_fails_the_night_and_keeps_the_published_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "project"
    shutil.copytree(PROJECT / "docs", root / "docs")
    now = datetime.now(UTC)
    with AnalysisStore(root / "cache") as store:
        for n in range(5):
            store.put(
                CommitRecord(
                    commit=make_commit(f"night-{n}", f"[Core] Change {n} (#{60000 + n})", now - timedelta(days=n))
                )
            )
    configure(root)
    monkeypatch.chdir(root)  # gen-files scripts are relative to the site's folder
    monkeypatch.setenv("COLUMNS", "1000")  # the console wraps no line of the report
    assert night(root) == EXIT_COMPLETE
    site = root / "site"
    before = snapshot(site)

    configure(root, site_size_limit=f"{site_size(site) // 2000} kB")
    capsys.readouterr()
    assert night(root) == EXIT_FAILED
    said = capsys.readouterr().err
    assert "past its site_size_limit" in said and f"{site} is unchanged" in said
    assert "DEPLOY_TARGET=rclone" in said and "a bigger host" in said and "fewer languages" in said
    assert said.endswith("\nnightly: failed: the site is too large to publish\n")
    assert snapshot(site) == before


def stored_night(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose first night published 5 commits; returns its site."""
    shutil.copytree(PROJECT / "docs", root / "docs")
    now = datetime.now(UTC)
    with AnalysisStore(root / "cache") as store:
        for n in range(5):
            commit = make_commit(f"night-{n}", f"[Core] Change {n} (#{60000 + n})", now - timedelta(days=n))
            store.put(CommitRecord(commit=commit))
    configure(root)
    monkeypatch.chdir(root)  # gen-files scripts are relative to the site's folder
    monkeypatch.setenv("COLUMNS", "1000")  # the console wraps no line of the report
    assert night(root) == EXIT_COMPLETE
    return root / "site"


def test_a_night_whose_store_and_durable_form_are_lost_keeps_the_published_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "project"
    site = stored_night(root, monkeypatch)
    before = snapshot(site)
    shutil.rmtree(root / "cache")  # the Actions cache evicted
    shutil.rmtree(root / "data")  # and no durable form to restore it from
    capsys.readouterr()
    assert night(root) == EXIT_FAILED
    said = capsys.readouterr().err
    assert f"build: failed: the store {root / 'cache'} holds 0 commits and the published site {site} shows 5" in said
    assert "--allow-shrink" in said and "Traceback" not in said
    assert said.endswith("\nnightly: failed: the site was not built\n")
    assert snapshot(site) == before

    arguments = ["-f", str(root / "mkdocs.yml"), "--durable-dir", str(root / "data"), "--site-dir", str(site)]
    assert main(["nightly", *arguments, "--no-fetch", "--offline", "--allow-shrink"]) == EXIT_COMPLETE
    assert json.loads((site / "status.json").read_text(encoding="utf-8")).get("commits", 0) == 0


_HOLDER = """
import sys
from pathlib import Path
from commit_digest.site.build.builder_lock import holding, site_lock

with holding([site_lock(Path(sys.argv[1]))]):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes it
"""


def test_a_night_on_a_site_another_build_holds_ends_with_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    root = tmp_path / "project"
    site = stored_night(root, monkeypatch)
    before = snapshot(site)
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(site)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        capsys.readouterr()
        caplog.set_level(logging.INFO)
        arguments = ["-f", str(root / "mkdocs.yml"), "--durable-dir", str(root / "data"), "--site-dir", str(site)]
        assert main(["nightly", *arguments, "--no-fetch", "--offline", "--wait", "0.2"]) == EXIT_FAILED
    finally:
        holder.communicate(input="", timeout=60)
    assert "waiting up to 0.2 s" in caplog.text  # it said it waits (logged), then that it gave up
    (said,) = capsys.readouterr().err.strip().splitlines()
    assert f"holds the site folder {site}" in said and "this night did not start; waited 0.2 s" in said
    assert snapshot(site) == before
    assert night(root) == EXIT_COMPLETE  # free again
