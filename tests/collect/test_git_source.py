"""The local-clone source: a repository built here with git (set dates, a binary file, a
rename) gives the same Commit records the GitHub source gives for the same facts."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from commit_digest.cli import main
from commit_digest.collect.errors import SourceError
from commit_digest.collect.fetch import fetch_commits
from commit_digest.collect.git import GitSource
from commit_digest.collect.git_identity import roots_key
from commit_digest.collect.window import FetchWindow, days_window
from commit_digest.models import Commit, PatchState
from commit_digest.store.analysis_store import AnalysisStore
from tests.fakes.github_server import FakeCommit, FakeFile, FakeGithubServer, FakeRepository
from tests.git import run_git

from .conftest import REPOSITORY, SourceFactory

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"
OLD_PY = "".join(f"value_{index} = {index}\n" for index in range(12))
SAMPLE = Path(__file__).parents[2] / "src" / "commit_digest" / "data" / "sample-vllm.jsonl"


@dataclass(frozen=True)
class Scripted:
    """One commit made with git, and the same facts written the way GitHub reports them."""

    message: str
    authored: str
    committed: str
    files: list[FakeFile]


HISTORY = [
    Scripted(
        "[Core] Add the first files (#11)",
        "2026-01-06T20:00:00+08:00",
        "2026-01-07T10:00:00+08:00",  # 02:00:00 UTC
        [
            FakeFile("a.txt", "added", 2, 0, "@@ -0,0 +1,2 @@\n+one\n+two"),
            FakeFile("docs/logo.png", "added", 0, 0, None),
            FakeFile(
                "old.py",
                "added",
                12,
                0,
                "@@ -0,0 +1,12 @@\n" + OLD_PY.replace("value", "+value").rstrip("\n"),
            ),
        ],
    ),
    Scripted(
        "[Misc] Rename and modify (#12)\n\nThe body says why.\n\nSigned-off-by: Ada <ada@example.com>\n",
        "2026-01-07T20:00:00+00:00",
        "2026-01-07T23:59:59+00:00",
        [
            FakeFile("a.txt", "modified", 1, 1, "@@ -1,2 +1,2 @@\n one\n-two\n+three"),
            FakeFile("new.py", "renamed", 0, 0, None, previous_filename="old.py"),
        ],
    ),
    Scripted(
        "Remove the logo",
        "2026-01-08T00:00:00+00:00",
        "2026-01-08T00:00:00+00:00",
        [
            FakeFile("b.txt", "added", 1, 0, "@@ -0,0 +1 @@\n+bee"),
            FakeFile("docs/logo.png", "removed", 0, 0, None),
        ],
    ),
]


@dataclass(frozen=True)
class Clone:
    path: Path
    shas: list[str]


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Clone:
    path = tmp_path_factory.mktemp("clone")
    run_git(path, "init", "-q", "-b", "main")
    contents = [
        {"a.txt": b"one\ntwo\n", "docs/logo.png": PNG, "old.py": OLD_PY.encode()},
        {"a.txt": b"one\nthree\n", "docs/logo.png": PNG, "new.py": OLD_PY.encode()},
        {"a.txt": b"one\nthree\n", "new.py": OLD_PY.encode(), "b.txt": b"bee\n"},
    ]
    shas = []
    for scripted, tree in zip(HISTORY, contents, strict=True):
        for existing in path.rglob("*"):
            if existing.is_file() and ".git" not in existing.parts:
                existing.unlink()
        for name, data in tree.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_bytes(data)
        run_git(path, "add", "-A")
        env = {
            "GIT_AUTHOR_NAME": "Ada Lovelace",
            "GIT_AUTHOR_EMAIL": "ada@example.com",
            "GIT_COMMITTER_NAME": "GitHub",
            "GIT_COMMITTER_EMAIL": "noreply@github.com",
            "GIT_AUTHOR_DATE": scripted.authored,
            "GIT_COMMITTER_DATE": scripted.committed,
        }
        run_git(path, "commit", "-q", "-m", scripted.message, env=env)
        shas.append(run_git(path, "rev-parse", "HEAD"))
    return Clone(path, shas)


def everything() -> FetchWindow:
    return FetchWindow(datetime(2026, 1, 1, tzinfo=UTC))


def test_the_clone_and_the_api_give_identical_records_for_the_same_facts(
    clone: Clone, repository: FakeRepository, make_source: SourceFactory
) -> None:
    for scripted, sha in zip(HISTORY, clone.shas, strict=True):
        repository.add_commit(
            FakeCommit(
                sha=sha,
                message=scripted.message.rstrip("\n"),  # GitHub drops the final newline
                committed_at=datetime.fromisoformat(scripted.committed),
                authored_at=datetime.fromisoformat(scripted.authored),
                author_name="Ada Lovelace",
                author_email="ada@example.com",
                files=scripted.files,
            )
        )
    git_source = GitSource(REPOSITORY, clone.path, patch_cap_bytes=400_000)
    github_source = make_source()

    from_git = [git_source.detail_commit(sha, with_pull_request=False) for sha in clone.shas]
    from_api = [github_source.detail_commit(sha, with_pull_request=False) for sha in clone.shas]

    for ours, theirs in zip(from_git, from_api, strict=True):
        assert ours.model_dump(mode="json") == theirs.model_dump(mode="json")
    first, second, third = from_git
    assert first.committed_at == datetime(2026, 1, 7, 2, tzinfo=UTC)
    assert first.authored_at == datetime(2026, 1, 6, 12, tzinfo=UTC)
    assert first.pr_number == 11 and first.author_login is None
    assert [(file.path, file.patch_state) for file in first.files] == [
        ("a.txt", PatchState.INCLUDED),
        ("docs/logo.png", PatchState.UNAVAILABLE),
        ("old.py", PatchState.INCLUDED),
    ]
    assert second.body == "The body says why.\n\nSigned-off-by: Ada <ada@example.com>"
    assert (second.files[1].path, second.files[1].previous_path) == ("new.py", "old.py")
    assert third.files[1].status.value == "removed"


def test_listing_is_day_correct_in_utc_and_in_shanghai(clone: Clone) -> None:
    source = GitSource(REPOSITORY, clone.path, patch_cap_bytes=400_000)

    def listed(first: date, last: date, zone: object) -> list[str]:
        window = days_window(first, last, zone)  # type: ignore[arg-type]
        return sorted(ref.sha for ref in source.list_commits(None, window))

    day_7, day_8 = date(2026, 1, 7), date(2026, 1, 8)
    assert listed(day_7, day_7, UTC) == sorted(clone.shas[:2])  # 23:59:59 is still the 7th
    assert listed(day_8, day_8, UTC) == [clone.shas[2]]  # 00:00:00 is the 8th
    shanghai = ZoneInfo("Asia/Shanghai")
    assert listed(day_7, day_7, shanghai) == [clone.shas[0]]  # 10:00 on the 7th in Shanghai
    assert listed(day_8, day_8, shanghai) == sorted(clone.shas[1:])  # 07:59:59 and 08:00:00 on the 8th


def test_the_pipeline_stores_the_clone_without_a_single_api_request(
    clone: Clone, server: FakeGithubServer, tmp_path: Path
) -> None:
    with AnalysisStore(tmp_path / "store") as store:
        source = GitSource(REPOSITORY, clone.path, patch_cap_bytes=400_000)
        report = fetch_commits(source, store, everything(), branch="main", with_pull_requests=True)
        assert (report.listed, report.new, report.failed) == (3, 3, [])
        again = fetch_commits(source, store, everything(), branch="main", with_pull_requests=True)
        assert (again.new, again.already_stored) == (0, 3)
    assert server.count() == 0


def test_a_missing_clone_or_branch_is_one_clear_error(clone: Clone, tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="is not a directory"):
        list(GitSource(REPOSITORY, tmp_path / "missing", patch_cap_bytes=1).list_commits(None, everything()))
    (tmp_path / "plain").mkdir()
    with pytest.raises(SourceError, match="is not a git repository"):
        list(GitSource(REPOSITORY, tmp_path / "plain", patch_cap_bytes=1).list_commits(None, everything()))
    with pytest.raises(SourceError, match="branch 'nope' not found in the clone"):
        list(GitSource(REPOSITORY, clone.path, patch_cap_bytes=1).list_commits("nope", everything()))


def test_the_command_writes_records_in_the_shape_of_the_embedded_sample(
    clone: Clone, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    arguments = [
        "fetch",
        "--source",
        "git",
        "--git-dir",
        str(clone.path),
        "--repo",
        "vllm-project/vllm",
        "--since",
        "2026-01-07",
        "--until",
        "2026-01-08",
        "--no-pr",
        "--no-patch",
        "--cache",
        str(cache),
    ]
    assert main(arguments) == 0
    assert "3 listed, 3 new, 0 already stored, 0 failed" in capsys.readouterr().out

    with AnalysisStore(cache) as store:
        records = [json.loads(record.model_dump_json()) for record in store.records()]
    sample = json.loads(SAMPLE.read_text(encoding="utf-8").splitlines()[0])

    def same_shape(ours: object, theirs: object) -> None:
        """Same keys at every level, same JSON types where both have a value."""
        if isinstance(ours, dict) and isinstance(theirs, dict):
            assert set(ours) == set(theirs)
            for key in ours:
                same_shape(ours[key], theirs[key])
        elif isinstance(ours, list) and isinstance(theirs, list):
            same_shape(ours[0], theirs[0])
        elif ours is not None and theirs is not None:
            assert type(ours) is type(theirs)

    for record in records:
        same_shape(record, sample)
        assert {file["patch_state"] for file in record["commit"]["files"]} == {"not-collected"}
    assert Commit.model_validate(records[0]["commit"]).repository == "vllm-project/vllm"


def test_patches_from_the_clone_are_capped_per_commit(clone: Clone) -> None:
    source = GitSource(REPOSITORY, clone.path, patch_cap_bytes=40)
    files = source.detail_commit(clone.shas[0], with_pull_request=False).files
    assert [file.patch_state for file in files] == [
        PatchState.INCLUDED,
        PatchState.UNAVAILABLE,
        PatchState.TRUNCATED,
    ]
    assert files[2].patch is None or len(files[2].patch.encode()) <= 40 - len(files[0].patch.encode())  # type: ignore[union-attr]


# -- the clone must be the repository named ------------------------------------------------


def _repository(path: Path, message: str, *, remote: str | None = None) -> Path:
    """A one-commit repository; ``message`` makes its root commit differ from another's."""
    path.mkdir(parents=True)
    run_git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text(f"{message}\n", encoding="utf-8")
    run_git(path, "add", "-A")
    dated = {"GIT_AUTHOR_DATE": "2026-01-07T12:00:00+00:00", "GIT_COMMITTER_DATE": "2026-01-07T12:00:00+00:00"}
    identity = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "Ada"}
    run_git(path, "commit", "-q", "-m", message, env={**dated, **identity, "GIT_COMMITTER_EMAIL": "a@x"})
    if remote is not None:
        run_git(path, "remote", "add", "origin", remote)  # never contacted
    return path


def _copy(clone: Clone, path: Path, *, remote: str | None) -> Path:
    """A clone of the module's clone; its origin then points where ``remote`` says (None: removed)."""
    run_git(path.parent, "clone", "-q", str(clone.path), str(path))
    if remote is None:
        run_git(path, "remote", "remove", "origin")
    else:
        run_git(path, "remote", "set-url", "origin", remote)
    return path


def fetch_clone(git_dir: Path, cache: Path, *, repo: str = REPOSITORY) -> int:
    arguments = ["fetch", "--source", "git", "--git-dir", str(git_dir), "--repo", repo, "--cache", str(cache)]
    return main([*arguments, "--since", "2026-01-07", "--until", "2026-01-08", "--no-pr"])


def stored(cache: Path) -> tuple[int, object]:
    """How many records the store holds, and the roots it remembers for REPOSITORY."""
    with AnalysisStore(cache) as store:
        return len(store), store.get_meta(roots_key(REPOSITORY))


def test_a_clone_of_another_repository_is_refused_and_nothing_is_stored(
    clone: Clone, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = _copy(clone, tmp_path / "other", remote="https://x-access-token:ghs_secret@github.com/other/thing.git")
    cache = tmp_path / "cache"

    assert fetch_clone(other, cache) == 2

    out, err = capsys.readouterr()
    assert err == (
        f"commit-digest fetch: error: the clone at {other} has remote origin = https://github.com/other/thing.git, "
        f"not {REPOSITORY}: give --repo other/thing or the right --git-dir\n"
    )
    assert out == ""
    assert stored(cache) == (0, None)


def test_a_clone_whose_remote_names_the_repository_is_fetched_and_its_roots_recorded(
    clone: Clone, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    right = _copy(clone, tmp_path / "right", remote="git@github.com:ACME/Widgets.git/")
    run_git(right, "remote", "add", "fork", "https://github.com/someone/widgets")  # any remote may name it
    cache = tmp_path / "cache"

    assert fetch_clone(right, cache) == 0

    assert "3 listed, 3 new" in capsys.readouterr().out
    assert stored(cache) == (3, [clone.shas[0]])


def test_a_remote_naming_the_repository_on_a_remote_other_than_origin_is_enough(clone: Clone, tmp_path: Path) -> None:
    fork = _copy(clone, tmp_path / "fork", remote="https://github.com/someone/widgets")
    run_git(fork, "remote", "add", "upstream", "https://github.com/acme/widgets")
    assert fetch_clone(fork, tmp_path / "cache") == 0


def test_remote_less_clones_are_told_apart_by_the_root_commits_of_the_first_fetch(
    clone: Clone, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    assert fetch_clone(clone.path, cache) == 0  # no remote: the roots are recorded
    assert stored(cache) == (3, [clone.shas[0]])
    unrelated = _repository(tmp_path / "unrelated", "Another project")
    capsys.readouterr()

    assert fetch_clone(unrelated, cache) == 2

    err = capsys.readouterr().err
    assert f"the clone at {unrelated} has no remote naming a repository and its root commits" in err
    assert f"are not those recorded for {REPOSITORY} at its first fetch ({clone.shas[0][:12]})" in err
    assert err.count("\n") == 1
    assert stored(cache) == (3, [clone.shas[0]])  # nothing new, the record unchanged


def test_a_clone_of_a_clone_on_disk_is_checked_by_its_roots(clone: Clone, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert fetch_clone(clone.path, cache) == 0
    same_history = tmp_path / "same"
    run_git(tmp_path, "clone", "-q", str(clone.path), str(same_history))  # origin: a path on disk
    assert fetch_clone(same_history, cache) == 0

    unrelated = _repository(tmp_path / "unrelated", "Another project")
    clone_of_unrelated = tmp_path / "clone-of-unrelated"
    run_git(tmp_path, "clone", "-q", f"file://{unrelated}", str(clone_of_unrelated))
    assert fetch_clone(clone_of_unrelated, cache) == 2
    assert stored(cache)[0] == 3


def test_roots_recorded_through_a_remote_check_a_later_remote_less_clone(clone: Clone, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert fetch_clone(_copy(clone, tmp_path / "right", remote="https://github.com/acme/widgets"), cache) == 0
    assert fetch_clone(_repository(tmp_path / "unrelated", "Another project"), cache) == 2
    assert fetch_clone(_copy(clone, tmp_path / "bare-history", remote=None), cache) == 0


def test_a_folder_inside_a_repository_is_refused(
    clone: Clone, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    assert fetch_clone(clone.path / "docs", cache) == 2
    err = capsys.readouterr().err
    assert f"--git-dir {clone.path / 'docs'} is a folder inside the repository at {clone.path}, not its top" in err
    assert fetch_clone(clone.path / ".git", cache) == 2
    assert "is not the top folder of a clone nor a bare repository" in capsys.readouterr().err
    assert stored(cache) == (0, None)


def test_a_bare_repository_is_a_clone_too(clone: Clone, tmp_path: Path) -> None:
    bare = tmp_path / "widgets.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(clone.path), str(bare))
    run_git(bare, "remote", "set-url", "origin", "https://github.com/acme/widgets.git")
    assert fetch_clone(bare, tmp_path / "cache") == 0


def test_a_shallow_clone_without_a_remote_naming_a_repository_cannot_be_checked(clone: Clone, tmp_path: Path) -> None:
    shallow = tmp_path / "shallow"
    run_git(tmp_path, "clone", "-q", "--depth", "1", f"file://{clone.path}", str(shallow))
    cache = tmp_path / "cache"
    assert fetch_clone(shallow, cache) == 2
    assert stored(cache) == (0, None)

    run_git(shallow, "remote", "set-url", "origin", "https://github.com/acme/widgets")
    assert fetch_clone(shallow, cache) == 0
    assert stored(cache) == (1, None)  # where a shallow clone was cut is no root: nothing recorded


def test_the_pipeline_checks_the_clone_before_storing_anything(clone: Clone, tmp_path: Path) -> None:
    """The path `nightly --git-dir` takes: fetch_commits with a GitSource."""
    other = _copy(clone, tmp_path / "other", remote="https://github.com/other/thing")
    with AnalysisStore(tmp_path / "store") as store:
        source = GitSource(REPOSITORY, other, patch_cap_bytes=None)
        with pytest.raises(
            SourceError, match=re.escape("has remote origin = https://github.com/other/thing, not acme/widgets")
        ):
            fetch_commits(source, store, everything(), branch=None, with_pull_requests=False)
        assert len(store) == 0


def test_every_remote_naming_a_repository_is_listed_origin_first(
    clone: Clone, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = _copy(clone, tmp_path / "other", remote="https://github.com/other/thing")
    run_git(other, "remote", "add", "a-fork", "git@github.com:me/thing.git")
    run_git(other, "remote", "add", "disk", str(clone.path))  # names no repository: not listed
    assert fetch_clone(other, tmp_path / "cache") == 2
    assert (
        "has remotes origin = https://github.com/other/thing, a-fork = git@github.com:me/thing.git, "
        f"not {REPOSITORY}: give --repo other/thing or the right --git-dir" in capsys.readouterr().err
    )


def test_a_damaged_roots_record_is_a_store_error(
    clone: Clone, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    with AnalysisStore(cache) as store:
        store.set_meta(roots_key(REPOSITORY), "not a list")
    assert fetch_clone(clone.path, cache) == 2
    assert "git-roots/acme/widgets is not a list of commit shas" in capsys.readouterr().err
