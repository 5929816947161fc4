"""Releases from a local clone: a real history (release branches, cherry-picks, annotated and
lightweight tags) made with git here, a real store, the real pipeline and the CLI."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.collect.fetch import fetch_commits
from commit_digest.collect.git import GitSource
from commit_digest.collect.release_fetch import update_releases
from commit_digest.collect.window import FetchWindow
from commit_digest.meaning.releases import first_release_of
from commit_digest.settings import DEFAULT_RELEASE_TAGS
from commit_digest.store.analysis_store import AnalysisStore
from tests.git import run_git

from .conftest import REPOSITORY
from .release_history import RC_PATTERN, History, day, make_history


@pytest.fixture
def history(tmp_path: Path) -> History:
    path = tmp_path / "clone"
    path.mkdir()
    return make_history(path)


class CountingGitSource(GitSource):
    """The clone source, counting the git processes it runs for releases (not the clone's check,
    which a fetch has run already)."""

    def __init__(self, git_dir: Path) -> None:
        super().__init__(REPOSITORY, git_dir, patch_cap_bytes=None)
        self.runs: list[str] = []

    def _git(self, *arguments: str, input: bytes | None = None) -> bytes:
        if arguments[0] not in ("rev-parse", "config"):
            self.runs.append(arguments[0])
        return super()._git(*arguments, input=input)


def fetch_all(
    source: GitSource, store: AnalysisStore, since: datetime | None = None, until: datetime | None = None
) -> None:
    window = FetchWindow(since or day(1, 0), until)
    report = fetch_commits(source, store, window, branch="main", with_pull_requests=False)
    assert report.complete


def carried(store: AnalysisStore) -> dict[str, list[str]]:
    """tag → the numbers (c1 → 1) of the commits it released first, in order of tagging."""
    return {release.tag: sorted(release.commits) for release in store.releases(REPOSITORY)}


def numbered(history: History, *numbers: int) -> list[str]:
    return sorted(history.c(number) for number in numbers)


def test_each_commit_is_placed_in_the_first_release_that_contains_it(history: History, store: AnalysisStore) -> None:
    source = GitSource(REPOSITORY, history.path, patch_cap_bytes=None)
    fetch_all(source, store)

    report = update_releases(source, store, pattern=DEFAULT_RELEASE_TAGS, branch="main")

    assert report.summary() == f"{REPOSITORY}: 4 new releases (v0.1.0, v0.1.1, v0.2.0, v0.3.0), 6 commits placed"
    releases = list(store.releases(REPOSITORY))
    # In the order they were tagged: v0.1.1 (Jan 7) is newer than v0.2.0 (Jan 6) but forked before c3.
    assert [release.tag for release in releases] == ["v0.1.0", "v0.2.0", "v0.1.1", "v0.3.0"]
    assert carried(store) == {
        "v0.1.0": numbered(history, 1, 2),
        "v0.2.0": numbered(history, 3),
        "v0.1.1": [],
        "v0.3.0": numbered(history, 4, 5, 6),
    }
    first = first_release_of(releases)
    assert (REPOSITORY, history.c(7)) not in first  # after the last tag: not yet released
    assert first[(REPOSITORY, history.c(3))].tag == "v0.2.0"
    by_tag = {release.tag: release for release in releases}
    # An annotated tag is dated by its tagger and names the commit it points at; a lightweight one
    # is dated by its commit.
    assert by_tag["v0.2.0"].tagged_at == day(6, 12)
    assert by_tag["v0.2.0"].sha == history.picks["releases/v0.2"]
    assert by_tag["v0.1.0"].tagged_at == day(2) and by_tag["v0.1.0"].sha == history.c(2)
    assert all(release.branch_point is None for release in releases)


def test_widening_the_pattern_to_release_candidates_takes_commits_back_and_narrowing_returns_them(
    history: History, store: AnalysisStore
) -> None:
    source = GitSource(REPOSITORY, history.path, patch_cap_bytes=None)
    fetch_all(source, store)
    update_releases(source, store, pattern=DEFAULT_RELEASE_TAGS, branch="main")

    widened = update_releases(source, store, pattern=RC_PATTERN, branch="main")

    # Same commit, same time: the release candidate is the earlier version, so it came first.
    assert widened.summary() == f"{REPOSITORY}: 1 new release (v0.3.0rc1), 3 commits placed"
    assert carried(store)["v0.3.0rc1"] == numbered(history, 4, 5, 6)
    assert carried(store)["v0.3.0"] == []

    narrowed = update_releases(source, store, pattern=DEFAULT_RELEASE_TAGS, branch="main")

    assert narrowed.dropped == ["v0.3.0rc1"]
    assert "1 no longer release tags (v0.3.0rc1)" in narrowed.summary()
    assert carried(store)["v0.3.0"] == numbered(history, 4, 5, 6)
    assert "v0.3.0rc1" not in carried(store)


def test_a_second_fetch_after_a_new_tag_updates_incrementally(history: History, store: AnalysisStore) -> None:
    source = GitSource(REPOSITORY, history.path, patch_cap_bytes=None)
    fetch_all(source, store)
    update_releases(source, store, pattern=DEFAULT_RELEASE_TAGS, branch="main")
    before = {release.tag: release for release in store.releases(REPOSITORY)}
    revision = store.revision()

    # A night with nothing new writes nothing, so the site's revision stays.
    counting = CountingGitSource(history.path)
    quiet = update_releases(counting, store, pattern=DEFAULT_RELEASE_TAGS, branch="main")
    assert quiet.summary() == f"{REPOSITORY}: 0 new releases, 0 commits placed"
    assert store.revision() == revision
    # c7 is still to place: the tags are listed, the clone asked which tags contain it (none), no walk.
    assert counting.runs == ["for-each-ref", "cat-file", "for-each-ref", "for-each-ref"]

    history.commit(8, day(10))
    history.tag("v0.4.0", "main", annotated_at=day(10, 13))
    fetch_all(source, store, since=day(9, 13))
    counting = CountingGitSource(history.path)

    report = update_releases(counting, store, pattern=DEFAULT_RELEASE_TAGS, branch="main")

    assert report.summary() == f"{REPOSITORY}: 1 new release (v0.4.0), 2 commits placed"
    assert carried(store)["v0.4.0"] == numbered(history, 7, 8)
    after = {release.tag: release for release in store.releases(REPOSITORY)}
    assert all(after[tag] == before[tag] for tag in before)  # older releases untouched
    assert counting.runs.count("rev-list") == 1  # only the new tag is walked
    assert store.revision() != revision


def test_a_backfill_of_older_days_places_its_commits_in_existing_releases(
    history: History, store: AnalysisStore
) -> None:
    source = GitSource(REPOSITORY, history.path, patch_cap_bytes=None)
    fetch_all(source, store, since=day(4, 0))  # c4 … c7
    first = update_releases(source, store, pattern=DEFAULT_RELEASE_TAGS, branch="main")
    assert first.placed == 3 and carried(store)["v0.1.0"] == []

    fetch_all(source, store, since=day(1, 0), until=day(3, 23))  # c1 … c3, days before the first fetch
    backfill = update_releases(source, store, pattern=DEFAULT_RELEASE_TAGS, branch="main")

    assert backfill.summary() == f"{REPOSITORY}: 0 new releases, 3 commits placed"
    assert carried(store)["v0.1.0"] == numbered(history, 1, 2)
    assert carried(store)["v0.2.0"] == numbered(history, 3)


def test_the_fetch_command_with_a_clone_picks_releases_up(
    history: History, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "plugins:\n  - commit-digest:\n      repositories:\n        - name: acme/widgets\n"
        f"          release_tags: '{RC_PATTERN}'\n",
        encoding="utf-8",
    )
    arguments = ["fetch", "-f", str(config), "--cache", str(tmp_path / "cache"), "--source", "git"]
    arguments += ["--git-dir", str(history.path), "--since", "2026-01-01", "--until", "2026-01-09"]

    assert main(arguments) == 0

    fetched, releases = capsys.readouterr().out.splitlines()  # the commits, then the releases
    assert "7 listed, 7 new" in fetched
    assert releases == f"{REPOSITORY}: 5 new releases (v0.1.0, v0.1.1, v0.2.0, v0.3.0rc1, v0.3.0), 6 commits placed"
    with AnalysisStore(tmp_path / "cache") as store:
        assert {release.tag: len(release.commits) for release in store.releases()} == {
            "v0.1.0": 2,
            "v0.2.0": 1,
            "v0.1.1": 0,
            "v0.3.0rc1": 3,
            "v0.3.0": 0,
        }
    assert main([*arguments, "--no-releases"]) == 0
    assert "new release" not in capsys.readouterr().out


def test_a_bad_release_tags_pattern_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "plugins:\n  - commit-digest:\n      repositories:\n        - name: acme/widgets\n"
        "          release_tags: 'v(\\d+'\n",
        encoding="utf-8",
    )
    assert main(["fetch", "-f", str(config), "--days", "1"]) == 2
    err = capsys.readouterr().err
    assert "plugins.commit-digest.repositories.0.release_tags: v(\\d+ is not a regular expression: missing )" in err
    assert len(err.strip().splitlines()) == 1


def test_tags_the_clone_cannot_date_or_that_name_no_commit_are_not_releases(history: History) -> None:
    tree = run_git(history.path, "rev-parse", "HEAD^{tree}")
    run_git(history.path, "tag", "v9.9.9", tree)  # a tag of a tree, as linux has one
    listed = {tag.name: tag for tag in GitSource(REPOSITORY, history.path, patch_cap_bytes=None).list_tags()}
    assert "v9.9.9" not in listed
    assert listed["v0.1.1"].sha == history.picks["releases/v0.1"]
    assert listed["v0.1.1"].tagged_at == day(7, 12)
    assert listed["nightly"].tagged_at == day(9)
    assert all(tag.tagged_at is not None and tag.tagged_at.tzinfo is UTC for tag in listed.values())
