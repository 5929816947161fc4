"""The GitHub source and the fetch pipeline, driven through the real PyGithub against the
fake GitHub server: request counts, pagination, patches and pull requests, missed days."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from commit_digest.collect.fetch import fetch_commits, window_for_run
from commit_digest.collect.window import days_window
from commit_digest.models import FileStatus, PatchState
from commit_digest.store.analysis_store import AnalysisStore
from tests.fakes.github_server import FakeCommit, FakeFile, FakeGithubServer, FakePull, FakeRepository

from .conftest import DAY, REPOSITORY, TOKEN, SourceFactory, add_day, scripted_commit, sha_of

COMMITS_PATH = f"/repos/{REPOSITORY}/commits"


def one_day(day: datetime = DAY) -> object:
    return days_window(day.date(), day.date(), UTC)


def test_one_day_of_50_commits_costs_one_listing_and_one_request_per_commit_and_pull(
    server: FakeGithubServer, repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    commits = add_day(repository, DAY, 50)
    for commit in commits[:40]:  # ten titles name pull requests the repository does not have
        number = int(commit.message.split("(#")[1].split(")")[0])
        repository.add_pull(FakePull(number, body=f"Description of {number}", labels=["ready", "ci"]))

    report = fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=True)

    assert (report.listed, report.new, report.already_stored, report.failed) == (50, 50, 0, [])
    assert server.count(COMMITS_PATH) == 1 + 50  # one listing page (per_page=100) + one per commit
    assert server.count(f"/repos/{REPOSITORY}/pulls/") == 50
    assert server.count() == 101
    listing = server.requests[0]
    assert listing.query == {
        "since": "2026-01-07T00:00:00Z",
        "until": "2026-01-07T23:59:59Z",
        "per_page": "100",
    }
    assert all(request.authorized for request in server.requests)
    stored = store.get(REPOSITORY, commits[1].sha)
    assert stored is not None
    commit = stored.commit
    assert commit.title == "[Core] Change 1 (#1001)"
    assert commit.body == "Why change 1.\n\nSigned-off-by: X"
    assert commit.pr_number == 1001
    assert commit.author_name == "Dev 1" and commit.author_login == "dev1"
    assert commit.committed_at == commits[1].committed_at
    assert commit.authored_at == commits[1].committed_at - timedelta(hours=2)
    assert commit.pull_request is not None
    assert commit.pull_request.description == "Description of 1001"
    assert commit.pull_request.labels == ("ready", "ci")
    assert commit.files[0].patch_state is PatchState.INCLUDED
    assert store.get(REPOSITORY, commits[0].sha).commit.author_login is None  # type: ignore[union-attr]
    assert store.get(REPOSITORY, commits[45].sha).commit.pull_request is None  # type: ignore[union-attr]


def test_no_pr_skips_the_pull_request_requests(
    server: FakeGithubServer, repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    add_day(repository, DAY, 50)
    fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)
    assert server.count() == 51
    assert server.count(f"/repos/{REPOSITORY}/pulls/") == 0


def test_a_warm_rerun_of_the_same_window_costs_at_most_two_requests(
    server: FakeGithubServer, repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    add_day(repository, DAY, 50)
    fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=True)
    server.clear_requests()

    report = fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=True)

    assert (report.listed, report.new, report.already_stored) == (50, 0, 50)
    assert server.count() <= 2
    assert server.count() == 1


def test_three_missed_days_are_filled_by_one_run_that_continues_from_the_newest_stored(
    server: FakeGithubServer, repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    add_day(repository, DAY, 10)
    fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)
    for offset in (1, 2, 3):  # three nights the job did not run
        add_day(repository, DAY + timedelta(days=offset), 12, first_number=100 * offset)

    now = DAY + timedelta(days=4, hours=5)
    window = window_for_run(store, REPOSITORY, None, now=now, zone=UTC, default_days=2)
    report = fetch_commits(make_source(), store, window, branch=None, with_pull_requests=False)

    assert window.start == DAY and window.end is None
    assert (report.new, report.already_stored, report.failed) == (36, 10, [])
    days = sorted({record.commit.day(UTC) for record in store.records(REPOSITORY)})
    assert [day.isoformat() for day in days] == ["2026-01-07", "2026-01-08", "2026-01-09", "2026-01-10"]
    assert len(store) == 46


def test_an_empty_store_starts_with_the_last_default_days(
    repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    for offset in range(4):
        add_day(repository, DAY + timedelta(days=offset), 3, first_number=10 * offset)
    now = DAY + timedelta(days=3, hours=8)
    window = window_for_run(store, REPOSITORY, None, now=now, zone=UTC, default_days=2)
    report = fetch_commits(make_source(), store, window, branch=None, with_pull_requests=False)
    assert report.new == 6
    assert {record.commit.day(UTC).isoformat() for record in store.records()} == {"2026-01-09", "2026-01-10"}


def test_a_commit_with_301_files_is_read_completely_across_file_pages(
    server: FakeGithubServer, repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    files = [
        FakeFile(f"pkg/file_{index:03}.py", additions=1, patch="@@ -0,0 +1 @@\n+x") for index in range(301)
    ]
    big = repository.add_commit(scripted_commit(1, DAY + timedelta(hours=3), files=files))

    report = fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=False)

    assert report.new == 1
    commit = store.get(REPOSITORY, big.sha).commit  # type: ignore[union-attr]
    assert [file.path for file in commit.files] == [file.filename for file in files]
    assert commit.additions == 301
    detail_requests = [request for request in server.requests if request.path.endswith(big.sha)]
    assert len(detail_requests) == 2
    assert detail_requests[1].path == f"/repositories/{repository.id}/commits/{big.sha}"  # followed the Link
    assert detail_requests[1].query == {"page": "2", "per_page": "300"}


def test_files_without_a_patch_are_recorded_as_unavailable_and_patches_are_capped(
    repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    long_patch = "@@ -1,40 +1,40 @@\n" + "".join(f"+line {index}\n" for index in range(40)).rstrip("\n")
    commit = repository.add_commit(
        scripted_commit(
            1,
            DAY + timedelta(hours=1),
            files=[
                FakeFile("docs/logo.png", status="added"),  # binary: GitHub sends no patch
                FakeFile("a.py", additions=40, deletions=40, patch=long_patch),
                FakeFile("b.py", additions=1, patch="@@ -1 +1 @@\n+b"),
                FakeFile("new/name.py", status="renamed", previous_filename="old/name.py"),
            ],
        )
    )

    fetch_commits(make_source(patch_cap_bytes=200), store, one_day(), branch=None, with_pull_requests=False)

    files = store.get(REPOSITORY, commit.sha).commit.files  # type: ignore[union-attr]
    assert files[0].patch is None and files[0].patch_state is PatchState.UNAVAILABLE
    assert files[1].patch_state is PatchState.TRUNCATED
    assert files[1].patch is not None and long_patch.startswith(files[1].patch)
    assert len(files[1].patch.encode()) <= 200 and files[1].patch.endswith("\n")
    assert files[2].patch is None and files[2].patch_state is PatchState.TRUNCATED
    assert files[3].status is FileStatus.RENAMED and files[3].previous_path == "old/name.py"
    assert files[3].patch_state is PatchState.UNAVAILABLE


def test_a_title_naming_no_pull_request_of_the_repository_still_stores_the_commit(
    repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    commit = repository.add_commit(scripted_commit(7, DAY + timedelta(hours=1)))  # no pull #1007 scripted
    report = fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=True)
    assert (report.new, report.failed) == (1, [])
    assert store.get(REPOSITORY, commit.sha).commit.pull_request is None  # type: ignore[union-attr]


def test_a_branch_is_listed_by_name_and_an_unknown_branch_is_one_clear_error(
    server: FakeGithubServer, repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    repository.add_commit(scripted_commit(1, DAY + timedelta(hours=1)), branch="release")
    add_day(repository, DAY, 3, first_number=10)
    report = fetch_commits(make_source(), store, one_day(), branch="release", with_pull_requests=False)
    assert report.new == 1
    assert server.requests[0].query["sha"] == "release"

    from commit_digest.collect.errors import SourceError

    with pytest.raises(SourceError, match="branch 'nope' not found"):
        fetch_commits(make_source(), store, one_day(), branch="nope", with_pull_requests=False)


def test_a_listing_longer_than_one_page_follows_the_link_header(
    server: FakeGithubServer, repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    commits = add_day(repository, DAY, 230)
    listed = list(make_source().list_commits(None, one_day()))
    assert sorted(ref.sha for ref in listed) == sorted(commit.sha for commit in commits)
    assert {ref.committed_at for ref in listed} == {commit.committed_at for commit in commits}
    listings = server.requests
    assert [request.query.get("page") for request in listings] == [None, "2", "3"]
    assert listings[1].path == f"/repositories/{repository.id}/commits"


def test_the_token_reaches_neither_the_store_nor_the_log(
    tmp_path: Path,
    repository: FakeRepository,
    make_source: SourceFactory,
    caplog: pytest.LogCaptureFixture,
) -> None:
    add_day(repository, DAY, 3)
    caplog.set_level(logging.DEBUG)
    with AnalysisStore(tmp_path / "secret-check") as store:
        fetch_commits(make_source(), store, one_day(), branch=None, with_pull_requests=True)
        dumped = json.dumps([record.model_dump(mode="json") for record in store.records()])
    assert TOKEN not in dumped
    assert TOKEN not in caplog.text
    for path in (tmp_path / "secret-check").rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes()


def test_anonymous_requests_carry_no_authorization(
    server: FakeGithubServer, repository: FakeRepository, make_source: SourceFactory, store: AnalysisStore
) -> None:
    add_day(repository, DAY, 2)
    fetch_commits(make_source(token=None), store, one_day(), branch=None, with_pull_requests=False)
    assert server.count() == 3
    assert not any(request.authorized for request in server.requests)


def test_sha_of_is_stable() -> None:
    assert sha_of("x") == "11f6ad8ec52a2984abaafd7c3b516503785c2072"
    assert isinstance(FakeCommit, type)
