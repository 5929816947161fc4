"""A whole night over a clone whose commits are odd in every way git allows: a date past year 9999,
a date before 1970, a NUL in an author's name, no label at all, markup in a title. The night stores
and publishes every commit it can place, names the one it cannot, and the next night is clean."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from commit_digest.cli import main
from commit_digest.settings import read_mkdocs_yml
from commit_digest.store.analysis_store import AnalysisStore
from tests.collect.test_git_odd_dates import IDENTITY, YEAR_10000, at, commit_with_git, crafted_commit
from tests.git import run_git

PROJECT = Path(__file__).resolve().parents[2]
REPOSITORY = "acme/widgets"


def _odd_clone(path: Path, now: datetime) -> dict[str, str]:
    path.mkdir()
    run_git(path, "init", "-q", "-b", "main")
    run_git(path, "remote", "add", "origin", f"https://github.com/{REPOSITORY}.git")
    first = commit_with_git(path, "a", authored=at(now - timedelta(hours=6)), committed=at(now - timedelta(hours=6)))
    ahead = commit_with_git(path, "b", authored=f"@{YEAR_10000} +0000", committed=at(now - timedelta(hours=5)))
    when = int((now - timedelta(hours=4)).timestamp())
    nul = crafted_commit(
        path,
        "c",
        author=b"Ev\x00il <e@example.com> %d +0000" % when,
        committer=b"GitHub <noreply@github.com> %d +0000" % when,
        message=b"<script>alert(1)</script> [x](javascript:alert(1)) {{ 7*7 }}",
    )
    nowhere = crafted_commit(
        path, "d", author=b"Ada <ada@example.com> -100 +0000", committer=b"Ada <ada@example.com> -100 +0000"
    )
    last = commit_with_git(path, "e", authored=at(now - timedelta(hours=1)), committed=at(now - timedelta(hours=1)))
    run_git(path, "tag", "-a", "v1.0.0", "-m", "v1.0.0", env={**IDENTITY, "GIT_COMMITTER_DATE": at(now)})
    return {"first": first, "ahead": ahead, "nul": nul, "nowhere": nowhere, "last": last}


def _configure(root: Path) -> Path:
    config = read_mkdocs_yml(PROJECT / "mkdocs.yml")
    config["site_url"] = "https://digest.example.org/"
    for entry in config["plugins"]:
        if isinstance(entry, dict) and "commit-digest" in entry:
            entry["commit-digest"].update(cache_dir="cache", repository=REPOSITORY, github={"default_days": 2})
    path = root / "mkdocs.yml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.slow
def test_an_odd_clone_never_stops_the_night(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(PROJECT / "docs", tmp_path / "docs")
    monkeypatch.chdir(tmp_path)  # gen-files scripts are relative to the site's folder
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    shas = _odd_clone(tmp_path / "clone", datetime.now(UTC).replace(microsecond=0))
    config = _configure(tmp_path)
    night = ["nightly", "-f", str(config), "--git-dir", str(tmp_path / "clone"), "--offline"]
    night += ["--durable-dir", str(tmp_path / "data"), "--site-dir", str(tmp_path / "site")]

    assert main(night) == 1  # one commit no date places: named once, the night partial
    output = capsys.readouterr().err
    assert shas["nowhere"][:12] in output
    with AnalysisStore(tmp_path / "cache") as store:
        stored = {record.commit.sha: record for record in store.records(REPOSITORY)}
    assert set(stored) == {shas["first"], shas["ahead"], shas["nul"], shas["last"]}
    assert "\x00" not in stored[shas["nul"]].commit.author_name
    for name in ("first", "ahead", "nul", "last"):
        page = tmp_path / "site" / "commits" / shas[name][:12] / "index.html"
        assert page.exists(), name
    html = (tmp_path / "site" / "commits" / shas["nul"][:12] / "index.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert "{{ 7*7 }}" in html or "{{ 7*7 }}" in html.replace("&#123;", "{").replace("&#125;", "}")

    assert main(night) == 0  # the next night: nothing new failed
