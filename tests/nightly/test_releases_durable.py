"""Releases in the durable form (saved beside the records, restored after a lost store), and a
night's release step against the fake GitHub: a lost store does not spend the compares again."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from commit_digest.cli import main
from commit_digest.errors import InputError, StoreError
from commit_digest.meaning.releases import Release
from commit_digest.models import CommitRecord
from commit_digest.settings import read_mkdocs_yml
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import restore_durable, save_durable
from tests.factories import make_commit, make_release
from tests.factories import numbered_sha as sha
from tests.fakes.github_server import FakeCommit, FakeGithubServer, FakeRepository

PROJECT = Path(__file__).resolve().parents[2]
REPOSITORY = "vllm-project/vllm"
START = datetime(2026, 1, 1, tzinfo=UTC)


def release(tag: str, days: int, *commits: int, repository: str = REPOSITORY) -> Release:
    tagged_at = START + timedelta(days=days)
    return make_release(tag, tagged_at, *commits, tagged=500 + days, repository=repository, branch_point=True)


def filled(store: AnalysisStore) -> None:
    store.merge_all(CommitRecord(commit=make_commit(number)) for number in range(1, 6))
    for item in (
        release("v0.2.0", 5, 3, 4),
        release("v0.1.0", 1, 1, 2),
        release("v1.0.0", 2, repository="acme/widgets"),
    ):
        store.put_release(item)


def test_releases_are_saved_one_file_per_repository_and_restored_into_a_lost_store(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        filled(store)
        saved = save_durable(store, durable)
        expected = list(store.releases())
    assert saved.releases == 3
    files = sorted(path.relative_to(durable).as_posix() for path in (durable / "releases").iterdir())
    assert files == ["releases/acme.widgets.jsonl", "releases/vllm-project.vllm.jsonl"]
    lines = (durable / "releases" / "vllm-project.vllm.jsonl").read_text(encoding="utf-8").splitlines()
    assert [Release.model_validate_json(line).tag for line in lines] == ["v0.1.0", "v0.2.0"]  # in tag order
    assert '"releases": 3' in (durable / "manifest.json").read_text(encoding="utf-8")

    with AnalysisStore(tmp_path / "fresh") as fresh:
        result = restore_durable(fresh, durable)
        assert (result.releases, result.releases_added, result.records) == (3, 3, 5)
        assert list(fresh.releases()) == expected
        assert restore_durable(fresh, durable).skipped
        # The same store saved again: not one file rewritten.
        again = save_durable(fresh, durable)
        assert again.files_written == 0 and again.releases == 3


def test_only_a_changed_repository_file_is_rewritten_and_a_store_with_no_release_left_removes_its_file(
    tmp_path: Path,
) -> None:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        filled(store)
        save_durable(store, durable)
        widgets = durable / "releases" / "acme.widgets.jsonl"
        before = widgets.stat().st_mtime_ns
        store.put_release(release("v0.2.0", 5, 3, 4, 5))
        assert save_durable(store, durable).files_written == 1
        assert widgets.stat().st_mtime_ns == before

        store.delete_release("acme/widgets", "v1.0.0")  # its tags no longer match release_tags
        with pytest.raises(StoreError, match=r"acme.widgets.jsonl \(1 of its records are not in the store\)"):
            save_durable(store, durable)  # with the release_tags that took it, not another
        save_durable(store, durable, release_tags={"acme/widgets": r"^v0\."})
    assert not widgets.exists()
    with AnalysisStore(tmp_path / "fresh") as fresh:
        restore_durable(fresh, durable)
        assert [item.tag for item in fresh.releases()] == ["v0.1.0", "v0.2.0"]


def test_restoring_keeps_the_stores_own_release_of_a_tag(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        filled(store)
        save_durable(store, durable)
        store.put_release(release("v0.2.0", 5, 3, 4, 5))  # placed after the save
        store.set_meta("durable-restored-digest", "another")
        assert restore_durable(store, durable).releases_added == 0
        kept = store.release(REPOSITORY, "v0.2.0")
        assert kept is not None and kept.commits == (sha(3), sha(4), sha(5))


def test_a_bad_release_line_changes_nothing(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        filled(store)
        save_durable(store, durable)
    (durable / "releases" / "acme.widgets.jsonl").write_text('{"repository": "acme/widgets", "tag": ""}\n')
    with AnalysisStore(tmp_path / "fresh") as fresh:
        with pytest.raises(InputError, match=r"acme.widgets.jsonl: changed \(1 line where the manifest lists 1 record"):
            restore_durable(fresh, durable)
        assert len(fresh) == 0 and list(fresh.releases()) == []


# -- a night ---------------------------------------------------------------------------------

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def night(tmp_path: Path) -> Iterator[tuple[Path, FakeGithubServer, FakeRepository]]:
    root = tmp_path / "night"
    shutil.copytree(PROJECT / "docs", root / "docs")
    with FakeGithubServer() as github:
        repository = github.add_repository(REPOSITORY)
        commits = [
            repository.add_commit(
                FakeCommit(
                    sha=f"{number:04x}" + "ef" * 18,
                    message=f"[Core] Change {number} (#{45000 + number})",
                    committed_at=NOW - timedelta(hours=20 - number * 2),
                )
            )
            for number in range(8)
        ]  # one line of commits on main: each one's parent is the one before
        repository.add_tag("v0.1.0", commits[2].sha)
        repository.add_tag("v0.2.0", commits[5].sha)
        repository.add_tag("v0.3.0rc1", commits[6].sha)
        config = read_mkdocs_yml(PROJECT / "mkdocs.yml")
        config["site_url"] = "https://digest.example.org/"
        for entry in config["plugins"]:
            if isinstance(entry, dict) and "commit-digest" in entry:
                entry["commit-digest"].update(
                    cache_dir="cache", repository=REPOSITORY, github={"api_url": github.url, "default_days": 2}
                )
        (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
        yield root, github, repository


def run_night(root: Path) -> int:
    arguments = ["nightly", "-f", str(root / "mkdocs.yml"), "--durable-dir", str(root / "data")]
    return main([*arguments, "--site-dir", str(root / "site"), "--offline"])


@pytest.mark.slow
def test_a_night_finds_the_releases_and_a_lost_store_does_not_spend_the_requests_again(
    night: tuple[Path, FakeGithubServer, FakeRepository],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, github, _ = night
    monkeypatch.chdir(root)
    monkeypatch.setenv("COLUMNS", "400")  # report lines unwrapped

    assert run_night(root) == 0

    err = capsys.readouterr().err
    assert f"releases: {REPOSITORY}: 2 new releases (v0.1.0, v0.2.0), 6 commits placed" in err
    assert "save: 8 records, 2 releases in" in err
    assert (root / "data" / "releases" / "vllm-project.vllm.jsonl").exists()
    assert github.count(f"/repos/{REPOSITORY}/compare/") == 2

    shutil.rmtree(root / "cache")
    github.clear_requests()

    assert run_night(root) == 0

    err = capsys.readouterr().err
    assert "restore: merged 2 releases: 2 not in the store" in err
    assert f"releases: {REPOSITORY}: 0 new releases, 0 commits placed" in err
    assert github.count(f"/repos/{REPOSITORY}/compare/") == 0
    assert github.count(f"/repos/{REPOSITORY}/tags") == 1
    with AnalysisStore(root / "cache") as store:
        assert {item.tag: len(item.commits) for item in store.releases(REPOSITORY)} == {"v0.1.0": 3, "v0.2.0": 3}
