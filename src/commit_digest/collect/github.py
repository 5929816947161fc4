"""The GitHub REST API as a commit source: the only importer of PyGithub.

GithubException and the transport's connection errors are turned into SourceError,
CommitFetchError or RateLimitError here, once. PyGithub runs lazily (constructing the
source sends nothing) and with its own retry disabled: ``retry.Retrier`` decides.

Requests per run: one per 100 listed commits, one per detailed commit (plus one per further
300 files), and one per pull request named in a title.

Releases — requests per run: one per 100 tags listed; then, only when some release tag is new (or
moved), one for the repository's default branch (none when a branch is configured) and one
compare per new release tag. Tags already stored cost nothing again: a night with no new tag
sends the tag listing only. (A stored release made from a clone is compared once, the first time
commits are placed with this source; a tag sharing no history with the branch costs one more
request, for its commit's date.)

Containment rule: ``compare(<tagged commit>, <branch>)`` gives the merge base F of the tag and
the branch (the branch point, stored with the release), the tagged commit's committer date (the
release's ``tagged_at``) and the branch commits after F, oldest first, of which the first page
(``COMPARE_PAGE_SIZE``) is read. A stored commit is in the tag when it is F, or it is not one of
the branch commits after F and was committed at or before F: exact for the listed page,
date-based beyond it (see ``releases.contained_by_branch_point``). Later runs place newly stored
commits with the stored branch points alone, sending nothing.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

import requests.exceptions
from github import Auth, Consts, Github, GithubException
from github.Commit import Commit as GithubCommit
from github.Comparison import Comparison
from github.File import File as GithubFile
from github.PaginatedList import PaginatedList

from commit_digest.collect.base import (
    AUTHOR_NAME_LIMIT,
    PULL_REQUEST_DESCRIPTION_LIMIT,
    CommitRef,
    as_utc,
    cap_patches,
    split_message,
)
from commit_digest.collect.errors import CommitFetchError, SourceError
from commit_digest.collect.retry import FailedRequest, Retrier, TransientFailure
from commit_digest.collect.window import FetchWindow
from commit_digest.meaning.releases import BranchPoint, Release, TagRef, first_releases_by_branch_points
from commit_digest.models import Commit, FileChange, FileStatus, PullRequestInfo
from commit_digest.settings import GithubSettings

logger = logging.getLogger("mkdocs.plugins.commit_digest.collect")

T = TypeVar("T")

DEFAULT_API_URL = Consts.DEFAULT_BASE_URL
LIST_PAGE_SIZE = 100  # the API's maximum: a day of a busy repository is one request
FILES_PAGE_SIZE = 300  # the maximum for the files of one commit
# The branch commits after a tag's branch point read per compare: the ones nearest the branch point,
# where a commit time out of order would matter. (The first page also carries up to 300 changed files.)
COMPARE_PAGE_SIZE = 100
REQUEST_TIMEOUT_SECONDS = 30

_RETRYABLE: tuple[type[BaseException], ...] = (
    GithubException,
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
    requests.exceptions.ChunkedEncodingError,
)


def _failure_of(error: BaseException) -> FailedRequest | None:
    if isinstance(error, GithubException):
        return FailedRequest(error.status, dict(error.headers or {}), _message_of(error))
    if isinstance(error, requests.exceptions.RequestException):
        return FailedRequest(None, {}, type(error).__name__)
    return None


def _message_of(error: GithubException) -> str:
    data = error.data
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return data["message"]
    return error.message or str(data)


class GithubSource:
    """Commits of one repository read through the REST API (github.com or an Enterprise server)."""

    def __init__(
        self,
        repository: str,
        *,
        settings: GithubSettings,
        token: str | None,
        api_url: str | None,
        sleep: Callable[[float], None],
        clock: Callable[[], datetime],
        collect_patches: bool = True,
    ) -> None:
        self._repository = repository
        self._patch_cap_bytes = settings.patch_cap_bytes if collect_patches else None
        self._settings = settings
        self.api_url = (api_url or DEFAULT_API_URL).rstrip("/")
        self._github = Github(
            auth=Auth.Token(token) if token else None,
            base_url=self.api_url,
            timeout=REQUEST_TIMEOUT_SECONDS,
            per_page=LIST_PAGE_SIZE,
            retry=0,
            # PyGithub pauses 0.25 s before every request by default (time.sleep, not
            # injectable). GitHub asks clients to send requests serially, which this source
            # does; a secondary limit is answered with Retry-After, which the Retrier honours.
            seconds_between_requests=None,
            lazy=True,
        )
        self._repo = self._github.get_repo(repository)
        self._default_branch: str | None = None
        self.retrier = Retrier(
            max_retries=settings.max_retries,
            max_rate_limit_wait=settings.max_rate_limit_wait_seconds,
            sleep=sleep,
            clock=clock,
        )

    @property
    def repository(self) -> str:
        return self._repository

    def close(self) -> None:
        self._github.close()

    # -- listing ---------------------------------------------------------------------------

    def list_commits(self, branch: str | None, window: FetchWindow) -> Iterator[CommitRef]:
        parameters: dict[str, Any] = {"since": window.api_since}
        if window.api_until is not None:
            parameters["until"] = window.api_until
        if branch:
            parameters["sha"] = branch
        what = f"the commits of {self._repository}" + (f" on {branch}" if branch else "")
        try:
            for listed in self._pages(what, self._repo.get_commits(**parameters)):
                # The listing already carries the commit's dates: reading them sends nothing.
                committed_at = as_utc(listed.commit.committer.date)
                if window.contains(committed_at):
                    yield CommitRef(listed.sha, committed_at)
        except GithubException as error:
            raise self._listing_error(error, branch) from None

    def _listing_error(self, error: GithubException, branch: str | None) -> SourceError:
        message = _message_of(error)
        where = f"{self._repository} at {self.api_url}"
        if error.status == 401:
            return SourceError(f"GitHub rejected the token for {where} (401 {message}): check GITHUB_TOKEN")
        if error.status == 404 and branch and "commit" in message.lower():
            return SourceError(f"branch {branch!r} not found in {where} ({message})")
        if error.status == 404:
            return SourceError(
                f"repository {where} not found (404): check --repo OWNER/NAME, or the token cannot see it"
            )
        return SourceError(f"cannot list the commits of {where}: HTTP {error.status} {message}")

    # -- detailing -------------------------------------------------------------------------

    def detail_commit(self, sha: str, *, with_pull_request: bool) -> Commit:
        what = f"commit {sha[:12]} of {self._repository}"
        try:
            listed = self._call(
                what, lambda: self._repo.get_commit(sha, commit_files_per_page=FILES_PAGE_SIZE).complete()
            )
            files = [self._file_change(file) for file in self._pages(f"the files of {what}", listed.files)]
            commit = self._commit(listed, files)
            if with_pull_request and commit.pr_number is not None:
                commit = commit.model_copy(update={"pull_request": self._pull_request(commit.pr_number)})
        except TransientFailure as error:
            raise CommitFetchError(sha, str(error)) from None
        except GithubException as error:
            if error.status == 401:
                raise SourceError(
                    f"GitHub rejected the token for {self._repository} (401): check GITHUB_TOKEN"
                ) from None
            raise CommitFetchError(sha, f"HTTP {error.status} {_message_of(error)}") from None
        return commit

    def _commit(self, detailed: GithubCommit, files: list[FileChange]) -> Commit:
        git_commit = detailed.commit
        title, body = split_message(git_commit.message)
        login = detailed.author.login if detailed.author is not None else None
        return Commit(
            repository=self._repository,
            sha=detailed.sha,
            author_name=(git_commit.author.name or "")[:AUTHOR_NAME_LIMIT],
            author_login=login,
            authored_at=as_utc(git_commit.author.date),
            committed_at=as_utc(git_commit.committer.date),
            title=title,
            body=body,
            files=cap_patches(files, self._patch_cap_bytes),
        )

    @staticmethod
    def _file_change(file: GithubFile) -> FileChange:
        # GitHub leaves "patch" out for binary files and diffs too large to show.
        return FileChange(
            path=file.filename,
            status=FileStatus(file.status),
            additions=file.additions,
            deletions=file.deletions,
            previous_path=file.previous_filename,
            patch=file.patch,
        )

    def _pull_request(self, number: int) -> PullRequestInfo | None:
        try:
            pull = self._call(
                f"pull request #{number} of {self._repository}", lambda: self._repo.get_pull(number).complete()
            )
        except GithubException as error:
            if error.status == 404:
                # "(#123)" may name an issue, or a pull request of another repository.
                logger.debug("no pull request #%s in %s", number, self._repository)
                return None
            raise
        return PullRequestInfo(
            number=number,
            description=(pull.body or "")[:PULL_REQUEST_DESCRIPTION_LIMIT],
            labels=tuple(label.name for label in pull.labels),
        )

    # -- releases --------------------------------------------------------------------------

    def list_tags(self) -> Iterator[TagRef]:
        """Every tag with the commit it points at (GitHub peels annotated tags); no dates."""
        what = f"the tags of {self._repository}"
        try:
            for tag in self._pages(what, self._repo.get_tags()):
                yield TagRef(tag.name, tag.commit.sha)
        except GithubException as error:
            raise self._request_error(error, what) from None

    def describe_release(self, tag: TagRef, branch: str | None) -> Release:
        """The record of a release tag, with its branch point on ``branch`` (the default branch when
        None): one compare request (plus one for the default branch's name, once per run)."""
        head = branch or self._default_branch_name()
        what = f"the comparison of tag {tag.name} with {head} in {self._repository}"

        def compared() -> Comparison:
            comparison = self._repo.compare(tag.sha, head, comparison_commits_per_page=COMPARE_PAGE_SIZE)
            comparison.status  # noqa: B018 -- the one request: the first page of commits comes with it
            return comparison

        try:
            comparison = self._call(what, compared)
        except GithubException as error:
            if error.status == 404:  # "No common ancestor between …": both exist, they were just listed
                return self._unrelated_release(tag, head)
            raise self._request_error(error, what) from None
        merge_base = comparison.merge_base_commit
        point_at = as_utc(merge_base.commit.committer.date)
        # The first page only, which arrived with the comparison: reading it sends nothing.
        first_page = len(comparison.raw_data.get("commits") or ())
        later = [
            listed.sha
            for listed in itertools.islice(comparison.commits, first_page)
            if as_utc(listed.commit.committer.date) <= point_at
        ]
        return Release(
            repository=self._repository,
            tag=tag.name,
            sha=tag.sha,
            tagged_at=as_utc(comparison.base_commit.commit.committer.date),
            branch_point=BranchPoint(branch=head, sha=merge_base.sha, committed_at=point_at, later=tuple(later)),
        )

    def is_described(self, release: Release) -> bool:
        """Whether the release carries what this source places commits with (a branch point)."""
        return release.branch_point is not None

    def first_releases(self, releases: Sequence[Release], candidates: Mapping[str, datetime]) -> dict[str, str]:
        """sha → tag of the first release that contains each candidate, by the stored branch points
        (no request)."""
        return first_releases_by_branch_points(releases, candidates)

    def _unrelated_release(self, tag: TagRef, head: str) -> Release:
        what = f"commit {tag.sha[:12]} of tag {tag.name} in {self._repository}"
        try:
            tagged_at = self._call(what, lambda: self._repo.get_commit(tag.sha).commit.committer.date)
        except GithubException as error:
            raise self._request_error(error, what) from None
        return Release(
            repository=self._repository,
            tag=tag.name,
            sha=tag.sha,
            tagged_at=as_utc(tagged_at),
            branch_point=BranchPoint(branch=head, sha=None, committed_at=None),
        )

    def _default_branch_name(self) -> str:
        if self._default_branch is None:
            what = f"the default branch of {self._repository}"
            try:
                self._default_branch = self._call(what, lambda: self._repo.default_branch)
            except GithubException as error:
                raise self._request_error(error, what) from None
        return self._default_branch

    def _request_error(self, error: GithubException, what: str) -> SourceError:
        if error.status == 401:
            return SourceError(f"GitHub rejected the token for {self._repository} (401): check GITHUB_TOKEN")
        return SourceError(f"cannot read {what} at {self.api_url}: HTTP {error.status} {_message_of(error)}")

    # -- requests under the retry policy ---------------------------------------------------

    def _call(self, what: str, operation: Callable[[], T]) -> T:
        return self.retrier.call(what, operation, failure_of=_failure_of, retryable=_RETRYABLE)

    def _pages(self, what: str, paginated: PaginatedList[T]) -> Iterator[T]:
        """Every item of a paginated list, retrying a failed page without refetching earlier
        ones: PaginatedList keeps the pages it has, and its next-page link until one arrives."""
        produced = 0
        iterator: Iterator[T] = iter(paginated)
        end = object()

        def next_item() -> Any:
            nonlocal iterator
            try:
                return next(iterator, end)
            except _RETRYABLE:
                # A generator that raised is finished: a fresh one replays the kept pages.
                iterator = itertools.islice(iter(paginated), produced, None)
                raise

        while (item := self._call(what, next_item)) is not end:
            produced += 1
            yield item
