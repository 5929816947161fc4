"""A real git history with releases, made with git in a test, and its mirror on the fake GitHub.

    main:  c1 ─ c2 ─ c3 ─ c4 ─ c5 ─ c6 ─ c7            (one commit a day, Jan 1 … Jan 9)
                │    │                   v0.3.0, v0.3.0rc1 on c6 (lightweight, Jan 8); nightly on c7
                │    └─ releases/v0.2: p2 (cherry-pick of c5, Jan 6 06:00) ← v0.2.0 (annotated, Jan 6 12:00)
                └─ releases/v0.1: p1 (cherry-pick of c4, Jan 7 06:00) ← v0.1.1 (annotated, Jan 7 12:00)
           v0.1.0 on c2 (lightweight, Jan 2)

So the first release of c1 and c2 is v0.1.0, of c3 v0.2.0 (its branch forked at c3), of c4…c6
v0.3.0 (v0.1.1 is newer than v0.2.0 but forked before c3: it releases nothing new), and c7 is not
released. With release candidates counted, v0.3.0rc1 (same commit and time as v0.3.0, an earlier
version) releases c4…c6 instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tests.fakes.github_server import FakeCommit, FakeRepository
from tests.git import run_git

RC_PATTERN = r"^v?\d+(\.\d+)+(rc\d+)?$"


def day(number: int, hour: int = 12) -> datetime:
    return datetime(2026, 1, number, hour, tzinfo=UTC)


def _identity(when: datetime) -> dict[str, str]:
    stamp = when.isoformat()
    return {
        "GIT_AUTHOR_NAME": "Ada Lovelace",
        "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": "GitHub",
        "GIT_COMMITTER_EMAIL": "noreply@github.com",
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
    }


@dataclass
class History:
    path: Path
    main: list[str]  # c1 … c7: main[0] is c1
    picks: dict[str, str]  # release branch → its cherry-pick

    def c(self, number: int) -> str:
        return self.main[number - 1]

    def commit(self, number: int, when: datetime) -> str:
        """A new commit on the checked-out branch touching its own file."""
        (self.path / f"file_{number}.txt").write_text(f"change {number}\n")
        run_git(self.path, "add", "-A")
        run_git(self.path, "commit", "-q", "-m", f"[Core] Change {number} (#{100 + number})", env=_identity(when))
        sha = run_git(self.path, "rev-parse", "HEAD")
        self.main.append(sha)
        return sha

    def tag(self, name: str, ref: str, *, annotated_at: datetime | None = None) -> None:
        if annotated_at is None:
            run_git(self.path, "tag", name, ref)
        else:
            run_git(self.path, "tag", "-a", name, "-m", f"Release {name}", ref, env=_identity(annotated_at))

    def release_branch(self, branch: str, fork: str, pick: str, when: datetime) -> str:
        run_git(self.path, "checkout", "-q", "-b", branch, fork)
        run_git(self.path, "cherry-pick", "-x", pick, env=_identity(when))
        sha = run_git(self.path, "rev-parse", "HEAD")
        run_git(self.path, "checkout", "-q", "main")
        self.picks[branch] = sha
        return sha


def make_history(path: Path) -> History:
    run_git(path, "init", "-q", "-b", "main")
    history = History(path, [], {})
    for number, date in zip(range(1, 8), (1, 2, 3, 4, 5, 8, 9), strict=True):
        history.commit(number, day(date))
    history.tag("v0.1.0", history.c(2))
    history.tag("v0.3.0", history.c(6))
    history.tag("v0.3.0rc1", history.c(6))
    history.tag("nightly", history.c(7))
    history.release_branch("releases/v0.2", history.c(3), history.c(5), day(6, 6))
    history.tag("v0.2.0", "releases/v0.2", annotated_at=day(6, 12))
    history.release_branch("releases/v0.1", history.c(2), history.c(4), day(7, 6))
    history.tag("v0.1.1", "releases/v0.1", annotated_at=day(7, 12))
    return history


def mirror(history: History, repository: FakeRepository) -> None:
    """Puts what the clone holds and the fake lacks on the fake: every branch's commits (with their
    parents) and every tag, so the API tells the same facts."""
    known = {commit.sha for commits in repository.branches.values() for commit in commits}
    branches = run_git(history.path, "for-each-ref", "--format=%(refname:strip=2)", "refs/heads").split()
    for branch in ["main", *sorted(name for name in branches if name != "main")]:
        exclude = [] if branch == "main" else ["--not", "main"]
        listing = run_git(history.path, "log", "--reverse", "--format=%H%x00%P%x00%cI%x00%s", branch, *exclude)
        for line in listing.splitlines():
            sha, parents, committed, subject = line.split("\0")
            if sha in known:
                continue
            known.add(sha)
            repository.add_commit(
                FakeCommit(
                    sha=sha,
                    message=subject,
                    committed_at=datetime.fromisoformat(committed),
                    author_name="Ada Lovelace",
                    author_email="ada@example.com",
                    parents=parents.split(),
                ),
                branch,
            )
    tags = run_git(
        history.path, "for-each-ref", "--format=%(refname:strip=2) %(objectname) %(*objectname)", "refs/tags"
    )
    for line in tags.splitlines():
        name, sha, *peeled = line.split()
        if name not in repository.tags:
            repository.add_tag(name, peeled[0] if peeled else sha)
