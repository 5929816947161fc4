"""A clone whose commits carry dates git cannot print in ISO form (year 10000, before 1970) or a
NUL in the author's name: every commit git lists is stored or, when no date places it on a day,
skipped once with a warning naming it, and neither stops the commits after it nor the next night."""

from __future__ import annotations

import logging
import os
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.collect.fetch import fetch_commits, window_for_run
from commit_digest.collect.git import GitSource
from commit_digest.collect.window import FetchWindow
from commit_digest.fields import EARLIEST_DATE, LATEST_DATE
from commit_digest.store.analysis_store import AnalysisStore
from tests.git import run_git

REPOSITORY = "acme/widgets"
YEAR_10000 = 253_402_300_800  # 10000-01-01T00:00:00Z: git prints it, Python's datetime cannot hold it
IDENTITY = {
    "GIT_AUTHOR_NAME": "Ada Lovelace",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "GitHub",
    "GIT_COMMITTER_EMAIL": "noreply@github.com",
}


def at(moment: datetime) -> str:
    """``moment`` the way git reads any date it can hold: ``@seconds +zone``."""
    return f"@{int(moment.timestamp())} +0000"


def commit_with_git(path: Path, name: str, *, authored: str, committed: str) -> str:
    """A commit made by ``git commit`` with the dates given as git's own ``@seconds +zone``."""
    (path / f"{name}.txt").write_text(f"{name}\n", encoding="utf-8")
    run_git(path, "add", "-A")
    env = {**IDENTITY, "GIT_AUTHOR_DATE": authored, "GIT_COMMITTER_DATE": committed}
    run_git(path, "commit", "-q", "-m", name, env=env)
    return run_git(path, "rev-parse", "HEAD")


def crafted_commit(
    path: Path, name: str, *, author: bytes, committer: bytes, headers: bytes = b"", message: bytes | None = None
) -> str:
    """A commit object written byte for byte (git refuses these idents from its environment),
    made the branch's head."""
    (path / f"{name}.txt").write_text(f"{name}\n", encoding="utf-8")
    run_git(path, "add", "-A")
    tree = run_git(path, "write-tree")
    parent = run_git(path, "rev-parse", "HEAD")
    raw = b"tree %s\nparent %s\nauthor %s\ncommitter %s\n%s\n%s\n" % (
        tree.encode(),
        parent.encode(),
        author,
        committer,
        headers,
        name.encode() if message is None else message,
    )
    sha = (
        subprocess.run(
            ["git", "-C", str(path), "hash-object", "-w", "-t", "commit", "--literally", "--stdin"],
            env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(path)},
            input=raw,
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .strip()
    )
    run_git(path, "update-ref", "refs/heads/main", sha)
    return sha


def shown(path: Path, sha: str) -> str:
    """The author's name and the message as ``git show`` prints them (in UTF-8 where git can)."""
    printed = subprocess.run(
        ["git", "-C", str(path), "show", "-s", "--format=%an%n%B", sha],
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(path)},
        check=True,
        capture_output=True,
    ).stdout
    return printed.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class OddClone:
    path: Path
    start: datetime  # the first commit's time; the others follow, ten minutes apart
    normal: str
    author_in_year_10000: str
    author_before_1970: str
    nul_in_name: str
    both_in_year_10000: str
    committer_before_1970: str
    last: str

    @property
    def placeable(self) -> list[str]:
        return [self.normal, self.author_in_year_10000, self.author_before_1970, self.nul_in_name, self.last]

    @property
    def unplaceable(self) -> list[str]:
        return [self.both_in_year_10000, self.committer_before_1970]


@pytest.fixture(scope="module")
def odd(tmp_path_factory: pytest.TempPathFactory) -> OddClone:
    path = tmp_path_factory.mktemp("odd")
    run_git(path, "init", "-q", "-b", "main")
    # Recent enough for a run given no dates (a night): its window has no end, so git lists the
    # commits dated past year 9999 too. All on yesterday (UTC), whatever the hour the test runs:
    # the second run starts at the newest stored commit's day and must list them all again.
    start = datetime.now(UTC).replace(hour=1, minute=0, second=0, microsecond=0) - timedelta(days=1)
    minutes = [start + timedelta(minutes=10 * step) for step in range(6)]
    normal = commit_with_git(path, "normal", authored=at(minutes[0]), committed=at(minutes[0]))
    year_10000 = commit_with_git(path, "author-10000", authored=f"@{YEAR_10000} +0000", committed=at(minutes[1]))
    run_git(path, "fsck", "--strict")  # git itself finds nothing wrong with it
    before_1970 = crafted_commit(
        path,
        "author-negative",
        author=b"Ada Lovelace <ada@example.com> -1 +0000",
        committer=b"GitHub <noreply@github.com> %d +0000" % minutes[2].timestamp(),
    )
    nul = crafted_commit(
        path,
        "nul-in-name",
        author=b"Ev\x00il\x1b[31m Dev <evil@example.com> %d +0200" % minutes[3].timestamp(),
        committer=b"GitHub <noreply@github.com> %d +0000" % minutes[4].timestamp(),
    )
    both = commit_with_git(path, "both-10000", authored=f"@{YEAR_10000} +0000", committed=f"@{YEAR_10000} +0000")
    committer_negative = crafted_commit(
        path,
        "committer-negative",
        author=b"Ada Lovelace <ada@example.com> -100 +0000",
        committer=b"GitHub <noreply@github.com> -100 +0000",
    )
    last = commit_with_git(path, "last", authored=at(minutes[5]), committed=at(minutes[5]))
    return OddClone(path, start, normal, year_10000, before_1970, nul, both, committer_negative, last)


def fetch(odd: OddClone, cache: Path) -> int:
    return main(
        [
            "fetch",
            "--source",
            "git",
            "--git-dir",
            str(odd.path),
            "--repo",
            REPOSITORY,
            "--no-pr",
            "--no-releases",
            "--cache",
            str(cache),
        ]
    )


def test_every_placeable_commit_is_stored_and_the_rest_are_skipped_once_naming_their_sha(
    odd: OddClone, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    cache = tmp_path / "cache"
    caplog.set_level(logging.INFO)

    assert fetch(odd, cache) == 1  # something could not be stored: said once, on the night it was found

    out = capsys.readouterr().out
    assert "7 listed, 5 new, 0 already stored, 0 failed, 2 skipped for good" in out
    assert "run again" not in out
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    for sha in odd.unplaceable:
        (line,) = [message for message in warnings if sha[:12] in message and "skipped" in message]
        assert "\n" not in line and "no date" in line
    for sha in (odd.author_in_year_10000, odd.author_before_1970):
        assert any(sha[:12] in message and "author date" in message for message in warnings)
    with AnalysisStore(cache) as store:
        stored = {record.commit.sha: record.commit for record in store.records()}
    assert set(stored) == set(odd.placeable)
    minutes = [odd.start + timedelta(minutes=10 * step) for step in range(6)]
    assert stored[odd.last].committed_at == minutes[5]
    # An author date no day can hold is the committer's.
    assert stored[odd.author_in_year_10000].authored_at == minutes[1]
    assert stored[odd.author_before_1970].authored_at == minutes[2]
    # git prints neither this name nor this author date; the commit object holds both.
    assert stored[odd.nul_in_name].author_name == "Evil[31m Dev"
    assert stored[odd.nul_in_name].authored_at == minutes[3]
    assert stored[odd.nul_in_name].title == "nul-in-name"
    assert [file.path for file in stored[odd.nul_in_name].files] == ["nul-in-name.txt"]

    caplog.clear()
    assert fetch(odd, cache) == 0  # nothing new failed: the night is not partial forever

    out = capsys.readouterr().out
    assert "7 listed, 0 new, 5 already stored, 0 failed, 2 skipped by an earlier run" in out
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]


def test_the_listing_places_absurd_committer_times_nowhere_instead_of_crashing(odd: OddClone) -> None:
    source = GitSource(REPOSITORY, odd.path, patch_cap_bytes=None)
    listed = {ref.sha: ref.committed_at for ref in source.list_commits(None, FetchWindow(EARLIEST_DATE))}
    assert listed[odd.last] == odd.start + timedelta(minutes=50)
    assert listed[odd.both_in_year_10000] is None
    assert listed[odd.committer_before_1970] is None


def test_the_bounds_leave_room_for_every_time_zone() -> None:
    assert (EARLIEST_DATE.year, LATEST_DATE.year) == (1970, 9998)
    assert EARLIEST_DATE.tzinfo is UTC and LATEST_DATE.tzinfo is UTC


def test_a_commit_the_model_refuses_is_skipped_and_the_next_one_stored(tmp_path: Path) -> None:
    path = tmp_path / "clone"
    path.mkdir()
    run_git(path, "init", "-q", "-b", "main")
    deep = path.joinpath(*(["d" * 200] * 5), "file.txt")  # a path longer than the model's 1,000 characters
    deep.parent.mkdir(parents=True)
    deep.write_text("deep\n", encoding="utf-8")
    refused = commit_with_git(path, "deep", authored="2026-01-07T09:00:00+00:00", committed="2026-01-07T09:00:00+00:00")
    after = commit_with_git(path, "after", authored="2026-01-07T10:00:00+00:00", committed="2026-01-07T10:00:00+00:00")
    source = GitSource(REPOSITORY, path, patch_cap_bytes=None)
    window = FetchWindow(datetime(2026, 1, 7, tzinfo=UTC))

    with AnalysisStore(tmp_path / "store") as store:
        report = fetch_commits(source, store, window, branch=None, with_pull_requests=False)
        assert [skip.sha for skip in report.skipped] == [refused]
        assert "path: String should have at most 1000 characters" in report.skipped[0].reason
        assert not report.failed and not report.complete
        assert [record.commit.sha for record in store.records()] == [after]

        again = fetch_commits(source, store, window, branch=None, with_pull_requests=False)
        assert again.complete and (again.new, again.skipped, again.skipped_before) == (0, [], 1)


def test_a_commit_dated_centuries_ahead_does_not_stop_the_nights_after_it(tmp_path: Path) -> None:
    path = tmp_path / "clone"
    path.mkdir()
    run_git(path, "init", "-q", "-b", "main")
    far = at(datetime(9000, 1, 1, tzinfo=UTC))
    commit_with_git(path, "far", authored=far, committed=far)
    source = GitSource(REPOSITORY, path, patch_cap_bytes=None)
    now = datetime(2026, 1, 8, 6, tzinfo=UTC)
    with AnalysisStore(tmp_path / "store") as store:
        first = fetch_commits(
            source, store, FetchWindow(datetime(2026, 1, 7, tzinfo=UTC)), branch=None, with_pull_requests=False
        )
        assert first.new == 1
        later = commit_with_git(
            path,
            "later",
            authored=at(datetime(2026, 1, 8, 5, tzinfo=UTC)),
            committed=at(datetime(2026, 1, 8, 5, tzinfo=UTC)),
        )

        window = window_for_run(store, REPOSITORY, None, now=now, zone=UTC, default_days=2)

        assert window.start <= datetime(2026, 1, 8, 5, tzinfo=UTC)
        fetch_commits(source, store, window, branch=None, with_pull_requests=False)
        assert (REPOSITORY, later) in store


def test_a_tag_dated_past_year_9999_is_dated_by_its_commit(tmp_path: Path) -> None:
    path = tmp_path / "clone"
    path.mkdir()
    run_git(path, "init", "-q", "-b", "main")
    committed = datetime(2026, 1, 7, 10, tzinfo=UTC)
    commit_with_git(path, "tagged", authored=at(committed), committed=at(committed))
    run_git(path, "tag", "-a", "v1.0.0", "-m", "v1.0.0", env={**IDENTITY, "GIT_COMMITTER_DATE": f"@{YEAR_10000} +0000"})

    (tag,) = GitSource(REPOSITORY, path, patch_cap_bytes=None).list_tags()

    assert (tag.name, tag.tagged_at) == ("v1.0.0", committed)


def test_a_message_in_another_encoding_reads_as_git_shows_it(tmp_path: Path) -> None:
    path = tmp_path / "clone"
    path.mkdir()
    run_git(path, "init", "-q", "-b", "main")
    commit_with_git(
        path, "first", authored=at(datetime(2026, 1, 7, tzinfo=UTC)), committed=at(datetime(2026, 1, 7, tzinfo=UTC))
    )
    when = b"%d +0000" % datetime(2026, 1, 7, 1, tzinfo=UTC).timestamp()
    shas = [
        crafted_commit(
            path,
            f"encoded-{index}",
            author=b"Jos\xe9 <jose@example.com> " + when,
            committer=b"GitHub <noreply@github.com> " + when,
            headers=b"encoding " + encoding + b"\n",
            message=b"Caf\xe9 ouvert\n\nCorps \xe0 lire\n",
        )
        for index, encoding in enumerate((b"ISO-8859-1", b"no-such-encoding", b"base64"))
    ]
    source = GitSource(REPOSITORY, path, patch_cap_bytes=None)

    commits = [source.detail_commit(sha, with_pull_request=False) for sha in shas]

    assert (commits[0].title, commits[0].body) == ("Café ouvert", "Corps à lire")
    assert commits[0].author_name == "José"
    for sha, commit in zip(shas, commits, strict=True):
        name, message = shown(path, sha).split("\n", 1)
        assert (commit.author_name, f"{commit.title}\n\n{commit.body}") == (name, message.strip())


def test_a_tag_no_date_places_is_left_out_with_a_warning_and_the_other_releases_are_stored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "clone"
    path.mkdir()
    run_git(path, "init", "-q", "-b", "main")
    committed = datetime(2026, 1, 7, 10, tzinfo=UTC)
    commit_with_git(path, "first", authored=at(committed), committed=at(committed))
    run_git(path, "tag", "v1.0.0")
    undated = crafted_commit(
        path, "undated", author=b"Ada <ada@example.com> -100 +0000", committer=b"Ada <ada@example.com> -100 +0000"
    )
    run_git(path, "update-ref", "refs/tags/v1.1.0", undated)  # git tag refuses to name it
    run_git(path, "remote", "add", "origin", f"https://github.com/{REPOSITORY}.git")

    with caplog.at_level(logging.WARNING, logger="mkdocs.plugins.commit_digest"):
        tags = list(GitSource(REPOSITORY, path, patch_cap_bytes=None).list_tags())
    assert [tag.name for tag in tags] == ["v1.0.0"]
    assert any("v1.1.0" in record.getMessage() and undated[:12] in record.getMessage() for record in caplog.records)

    cache = tmp_path / "cache"
    arguments = ["fetch", "--source", "git", "--git-dir", str(path), "--repo", REPOSITORY, "--cache", str(cache)]
    assert main([*arguments, "--since", "2026-01-01", "--until", "2026-01-31"]) in (0, 1)
    with AnalysisStore(cache) as store:
        assert [release.tag for release in store.releases(REPOSITORY)] == ["v1.0.0"]
    # The next night is not stopped by it either.
    assert main([*arguments, "--since", "2026-01-01", "--until", "2026-01-31"]) == 0
