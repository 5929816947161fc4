"""Releases through the GitHub API: the real PyGithub client against the scripted server, which
answers the tag listing and compare requests from the fake repository's history. The facts are
the clone's of ``release_history`` (mirrored commit by commit), so both sources must agree, and
the requests are counted against the budget in ``sources/github.py``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.collect.errors import RateLimitError
from commit_digest.collect.fetch import fetch_commits
from commit_digest.collect.git import GitSource
from commit_digest.collect.github import GithubSource
from commit_digest.collect.release_fetch import update_releases
from commit_digest.collect.window import FetchWindow
from commit_digest.meaning.releases import Release
from commit_digest.settings import DEFAULT_RELEASE_TAGS
from commit_digest.store.analysis_store import AnalysisStore
from tests.fakes.github_server import FakeCommit, FakeGithubServer, FakeRepository, Reply

from .conftest import REPOSITORY, TOKEN, SourceFactory, sha_of
from .release_history import History, day, make_history, mirror

TAGS = f"/repos/{REPOSITORY}/tags"
COMPARE = f"/repos/{REPOSITORY}/compare/"


@pytest.fixture
def history(tmp_path: Path, repository: FakeRepository) -> History:
    path = tmp_path / "clone"
    path.mkdir()
    made = make_history(path)
    mirror(made, repository)
    return made


def fetch_all(source: GithubSource | GitSource, store: AnalysisStore, branch: str | None = None) -> None:
    report = fetch_commits(source, store, FetchWindow(day(1, 0)), branch=branch, with_pull_requests=False)
    assert report.complete


def facts(store: AnalysisStore) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(release.tag, release.sha, release.commits) for release in store.releases(REPOSITORY)]


def test_the_api_places_commits_like_the_clone_within_the_request_budget(
    history: History, server: FakeGithubServer, make_source: SourceFactory, tmp_path: Path
) -> None:
    with AnalysisStore(tmp_path / "api") as api, AnalysisStore(tmp_path / "git") as clone:
        source = make_source()
        fetch_all(source, api)
        server.clear_requests()

        report = update_releases(source, api, pattern=DEFAULT_RELEASE_TAGS, branch=None)

        assert report.summary() == f"{REPOSITORY}: 4 new releases (v0.1.0, v0.1.1, v0.2.0, v0.3.0), 6 commits placed"
        # One tag page, the default branch's name (GET /repos/o/r), one compare per new release tag.
        paths = [request.path for request in server.requests]
        assert paths.count(TAGS) == 1 and paths.count(f"/repos/{REPOSITORY}") == 1
        assert server.count(COMPARE) == 4 and server.count() == 6
        git_source = GitSource(REPOSITORY, history.path, patch_cap_bytes=None)
        fetch_all(git_source, clone, branch="main")
        update_releases(git_source, clone, pattern=DEFAULT_RELEASE_TAGS, branch="main")
        assert facts(api) == facts(clone)
        by_tag = {release.tag: release for release in api.releases(REPOSITORY)}
        # GitHub's tag listing has no dates: an annotated tag is dated by the commit it tags.
        assert by_tag["v0.2.0"].tagged_at == day(6, 6)
        point = by_tag["v0.2.0"].branch_point
        assert point is not None and (point.branch, point.sha, point.later) == ("main", history.c(3), ())

        # The next night, with no new tag: the tag listing and nothing else, and nothing written.
        server.clear_requests()
        revision = api.revision()
        again = update_releases(make_source(), api, pattern=DEFAULT_RELEASE_TAGS, branch=None)
        assert again.summary() == f"{REPOSITORY}: 0 new releases, 0 commits placed"
        assert [request.path for request in server.requests] == [TAGS]
        assert api.revision() == revision


def test_a_new_tag_costs_one_compare_and_many_tags_one_request_per_hundred(
    history: History,
    repository: FakeRepository,
    server: FakeGithubServer,
    make_source: SourceFactory,
    store: AnalysisStore,
) -> None:
    for number in range(130):
        repository.add_tag(f"nightly-{number}", history.c(7))
    fetch_all(make_source(), store)
    update_releases(make_source(), store, pattern=DEFAULT_RELEASE_TAGS, branch="main")
    history.commit(8, day(10))
    history.tag("v0.4.0", "main", annotated_at=day(10, 13))
    mirror(history, repository)
    fetch_all(make_source(), store)
    server.clear_requests()

    report = update_releases(make_source(), store, pattern=DEFAULT_RELEASE_TAGS, branch="main")

    assert report.summary() == f"{REPOSITORY}: 1 new release (v0.4.0), 2 commits placed"
    assert {release.tag: len(release.commits) for release in store.releases(REPOSITORY)}["v0.4.0"] == 2
    # 131 tags: two pages; the branch is configured, so its name costs nothing; one compare.
    assert server.count() == 3 and server.count(COMPARE) == 1


def test_a_rate_limit_while_comparing_keeps_what_was_learnt_and_the_next_run_finishes(
    history: History, server: FakeGithubServer, make_source: SourceFactory, store: AnalysisStore
) -> None:
    fetch_all(make_source(), store)
    records = list(store.records())
    # New tags are compared newest version first: v0.3.0, then v0.2.0, which is refused.
    reset = datetime(2026, 1, 10, 7, 0, tzinfo=UTC)
    server.queue_fault(f"{COMPARE}{history.picks['releases/v0.2']}...main", Reply.primary_rate_limit(reset))

    stopped = update_releases(
        make_source(max_rate_limit_wait_seconds=0), store, pattern=DEFAULT_RELEASE_TAGS, branch="main"
    )

    assert isinstance(stopped.stopped, RateLimitError) and not stopped.complete
    assert stopped.summary().startswith(f"{REPOSITORY}: 1 new release (v0.3.0), 6 commits placed; stopped: GitHub")
    assert list(store.records()) == records  # nothing stored is lost
    assert [release.tag for release in store.releases(REPOSITORY)] == ["v0.3.0"]
    server.clear_requests()

    finished = update_releases(make_source(), store, pattern=DEFAULT_RELEASE_TAGS, branch="main")

    # The earlier tags take back the commits they released first; v0.3.0 is not compared again.
    assert finished.summary() == f"{REPOSITORY}: 3 new releases (v0.1.0, v0.1.1, v0.2.0), 3 commits placed"
    assert server.count(COMPARE) == 3
    assert {release.tag: len(release.commits) for release in store.releases(REPOSITORY)} == {
        "v0.1.0": 2,
        "v0.2.0": 1,
        "v0.1.1": 0,
        "v0.3.0": 3,
    }


def test_releases_made_from_a_clone_are_compared_once_when_the_api_places_commits(
    history: History, server: FakeGithubServer, make_source: SourceFactory, store: AnalysisStore
) -> None:
    git_source = GitSource(REPOSITORY, history.path, patch_cap_bytes=None)
    fetch_all(git_source, store, branch="main")
    update_releases(git_source, store, pattern=DEFAULT_RELEASE_TAGS, branch="main")
    placed = facts(store)
    server.clear_requests()

    update_releases(make_source(), store, pattern=DEFAULT_RELEASE_TAGS, branch="main")

    assert server.count(COMPARE) == 4  # c7 waits to be placed: each release learns its branch point
    assert facts(store) == placed
    assert all(release.branch_point is not None for release in store.releases(REPOSITORY))
    server.clear_requests()
    update_releases(make_source(), store, pattern=DEFAULT_RELEASE_TAGS, branch="main")
    assert server.count() == 1


def commit_at(label: str, when: datetime, *parents: str) -> FakeCommit:
    return FakeCommit(sha=sha_of(label), message=f"{label} (#1)", committed_at=when, parents=list(parents))


def test_a_branch_commit_dated_before_the_branch_point_is_judged_by_the_compare_listing(
    repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    a1 = repository.add_commit(commit_at("a1", start))
    a2 = repository.add_commit(commit_at("a2", start + timedelta(days=2)))
    skewed = repository.add_commit(commit_at("a3", start + timedelta(days=1)))  # after a2, dated before it
    a4 = repository.add_commit(commit_at("a4", start + timedelta(days=4)))
    fork = repository.add_commit(commit_at("r1", start + timedelta(days=3), a2.sha), "releases/v1.0")
    repository.add_tag("v1.0.0", fork.sha)
    fetch_all(make_source(), store)

    update_releases(make_source(), store, pattern=DEFAULT_RELEASE_TAGS, branch="main")

    (release,) = store.releases(REPOSITORY)
    assert release.branch_point is not None and release.branch_point.later == (skewed.sha,)
    assert release.commits == tuple(sorted([a1.sha, a2.sha]))
    assert a4.sha not in release.commits


def test_a_tag_sharing_no_history_with_the_branch_releases_nothing(
    repository: FakeRepository, server: FakeGithubServer, make_source: SourceFactory, store: AnalysisStore
) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    main_commit = repository.add_commit(commit_at("m1", start))
    orphan = repository.add_commit(commit_at("o1", start + timedelta(days=1)), "gh-pages")
    repository.add_tag("v2.0.0", orphan.sha)
    fetch_all(make_source(), store)
    server.clear_requests()

    report = update_releases(make_source(), store, pattern=DEFAULT_RELEASE_TAGS, branch="main")

    (release,) = store.releases(REPOSITORY)
    assert release.branch_point is not None and release.branch_point.sha is None
    assert release.tagged_at == start + timedelta(days=1) and release.commits == ()
    assert report.placed == 0 and main_commit.sha not in release.commits
    assert server.count() == 3  # tags, the refused compare, the tagged commit for its date


def test_the_fetch_command_reports_releases_and_a_failure_keeps_the_commits(
    history: History,
    server: FakeGithubServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", server.url)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    config = tmp_path / "mkdocs.yml"
    config.write_text("plugins:\n  - commit-digest:\n      github:\n        max_rate_limit_wait_seconds: 0\n")
    arguments = ["fetch", "-f", str(config), "--repo", REPOSITORY, "--cache", str(tmp_path / "cache"), "--no-pr"]
    arguments += ["--since", "2026-01-01", "--until", "2026-01-09"]
    server.queue_fault(TAGS, Reply.primary_rate_limit(datetime.now(UTC) + timedelta(hours=1)))

    assert main(arguments) == 1

    out, err = capsys.readouterr()
    assert "7 listed, 7 new" in out
    assert "releases: failed: GitHub primary rate limit exhausted while reading the tags of acme/widgets" in err
    assert "every fetched commit is kept" in err
    with AnalysisStore(tmp_path / "cache") as store:
        assert len(store) == 7 and list(store.releases()) == []

    assert main(arguments) == 0

    out = capsys.readouterr().out
    assert "7 listed, 0 new, 7 already stored" in out
    assert f"{REPOSITORY}: 4 new releases (v0.1.0, v0.1.1, v0.2.0, v0.3.0), 6 commits placed" in out


def test_a_release_names_its_commits_sorted_and_once() -> None:
    release = Release(
        repository=REPOSITORY,
        tag="v1",
        sha=sha_of("t"),
        tagged_at=day(1),
        commits=(sha_of("b"), sha_of("a"), sha_of("b")),
    )
    assert release.commits == tuple(sorted({sha_of("a"), sha_of("b")}))
