"""Fixtures of the source tests: a fake GitHub server, a fake clock whose sleep only
advances it, and builders of scripted commits."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest

from commit_digest.collect.github import GithubSource
from commit_digest.settings import GithubSettings
from tests.fakes.github_server import FakeCommit, FakeFile, FakeGithubServer, FakeRepository

REPOSITORY = "acme/widgets"
TOKEN = "ghp_test_token_never_stored"
DAY = datetime(2026, 1, 7, tzinfo=UTC)
PATCH = "@@ -1 +1,2 @@\n-a\n+b\n+c"


class FakeClock:
    """``now`` for the retry policy; ``sleep`` records the wait and moves time on, instantly."""

    def __init__(self, start: datetime) -> None:
        self.current = start
        self.sleeps: list[float] = []

    def now(self) -> datetime:
        return self.current

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.current += timedelta(seconds=seconds)


def sha_of(label: str) -> str:
    return hashlib.sha1(label.encode()).hexdigest()


def scripted_commit(
    number: int, committed_at: datetime, *, files: list[FakeFile] | None = None
) -> FakeCommit:
    return FakeCommit(
        sha=sha_of(f"commit {number}"),
        message=f"[Core] Change {number} (#{1000 + number})\n\nWhy change {number}.\n\nSigned-off-by: X",
        committed_at=committed_at,
        authored_at=committed_at - timedelta(hours=2),
        author_name=f"Dev {number}",
        author_login=f"dev{number}" if number % 3 else None,
        files=files
        if files is not None
        else [FakeFile(f"vllm/module_{number}.py", additions=2, deletions=1, patch=PATCH)],
    )


def add_day(
    repository: FakeRepository, day: datetime, count: int, *, first_number: int = 0
) -> list[FakeCommit]:
    """``count`` commits spread over ``day`` (UTC), numbered from ``first_number``."""
    step = timedelta(seconds=86_399 // max(count, 1))
    return [
        repository.add_commit(scripted_commit(first_number + index, day + step * index))
        for index in range(count)
    ]


@pytest.fixture
def server() -> Iterator[FakeGithubServer]:
    with FakeGithubServer(token=TOKEN) as running:
        yield running


@pytest.fixture
def repository(server: FakeGithubServer) -> FakeRepository:
    return server.add_repository(REPOSITORY)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 1, 10, 6, 0, tzinfo=UTC))


SourceFactory = Callable[..., GithubSource]


@pytest.fixture
def make_source(server: FakeGithubServer, clock: FakeClock) -> Iterator[SourceFactory]:
    opened: list[GithubSource] = []

    def make(*, token: str | None = TOKEN, repository: str = REPOSITORY, **settings: object) -> GithubSource:
        source = GithubSource(
            repository,
            settings=GithubSettings.model_validate(settings),
            token=token,
            api_url=server.url,
            sleep=clock.sleep,
            clock=clock.now,
        )
        opened.append(source)
        return source

    yield make
    for source in opened:
        source.close()
