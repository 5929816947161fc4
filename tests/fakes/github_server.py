"""A GitHub REST API server for tests: scripted repository state served on 127.0.0.1.

It speaks the part of the REST API commit-digest reads, with GitHub's JSON shapes, status
codes, rate-limit headers and Link-header pagination (``/repositories/{id}/...`` URLs, as
github.com writes them), so the real PyGithub client runs against it unchanged::

    with FakeGithubServer(token="good-token") as server:
        repo = server.add_repository("acme/widgets")
        repo.add_commit(FakeCommit(sha=..., message="Fix (#12)", committed_at=...,
                                   files=[FakeFile("a.py", additions=1, patch="@@ ...")]))
        repo.add_pull(FakePull(12, body="why", labels=["bug"]))
        server.queue_fault("/repos/acme/widgets/commits", Reply.server_error())
        ...  # point the client at server.url (the API base, like GITHUB_API_URL)
        assert server.count("/repos/acme/widgets/commits") == 2

Endpoints: ``GET /repos/{o}/{r}``, ``GET /repos/{o}/{r}/commits`` (sha, since, until,
per_page ≤ 100, page; newest first; filtered on the committer date like GitHub),
``GET /repos/{o}/{r}/commits/{ref}`` (files paginated: per_page ≤ 300, page),
``GET /repos/{o}/{r}/pulls/{n}``, ``GET /repos/{o}/{r}/tags`` (per_page ≤ 100, page; the tag added
last first), ``GET /repos/{o}/{r}/compare/{base}...{head}`` (commits paginated: per_page ≤ 1000,
default 250, oldest first; 404 when the two share no history) — each also under
``/repositories/{id}/``.

History: a commit's parents are its ``parents``, or when it names none, the commit added before it
on its branch (a branch scripted as a list is a line of commits; a commit whose ``parents`` name a
commit of another branch forks from there). ``add_tag(name, ref)`` tags a commit, a branch's tip
or another tag's commit; compare walks this history like git (merge base, ahead/behind).

Faults: ``queue_fault(path, reply)`` makes the next request(s) to ``path`` (the API path
without the prefix and query, or ``"*"`` for any path) get ``reply`` instead; replies are
consumed in order. ``Reply`` has constructors for GitHub's primary and secondary rate-limit
replies, a bare 429, 5xx, and a dropped connection. Every request is recorded (``requests``,
``count``) — the Authorization header is recorded only as whether it was present.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

DOCS_URL = "https://docs.github.com/rest"
LIST_DEFAULT_PER_PAGE, LIST_MAX_PER_PAGE = 30, 100
FILES_DEFAULT_PER_PAGE, FILES_MAX_PER_PAGE = 300, 300
COMPARE_DEFAULT_PER_PAGE, COMPARE_MAX_PER_PAGE = 250, 1000


@dataclass
class FakeFile:
    filename: str
    status: str = "modified"
    additions: int = 0
    deletions: int = 0
    patch: str | None = None  # None: GitHub leaves the field out (binary, too large)
    previous_filename: str | None = None


@dataclass
class FakeCommit:
    sha: str
    message: str
    committed_at: datetime
    authored_at: datetime | None = None  # defaults to committed_at
    author_name: str = "A Developer"
    author_email: str = "dev@example.com"
    author_login: str | None = None  # None: no GitHub account matched the email
    committer_name: str = "GitHub"
    committer_email: str = "noreply@github.com"
    files: list[FakeFile] = field(default_factory=list)
    parents: list[str] = field(default_factory=list)


@dataclass
class FakePull:
    number: int
    title: str = "A pull request"
    body: str | None = ""
    labels: list[str] = field(default_factory=list)


@dataclass
class FakeRepository:
    full_name: str
    id: int
    default_branch: str = "main"
    branches: dict[str, list[FakeCommit]] = field(default_factory=dict)
    pulls: dict[int, FakePull] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)  # name → sha of the tagged commit

    def add_commit(self, commit: FakeCommit, branch: str | None = None) -> FakeCommit:
        self.branches.setdefault(branch or self.default_branch, []).append(commit)
        return commit

    def add_pull(self, pull: FakePull) -> FakePull:
        self.pulls[pull.number] = pull
        return pull

    def commits_on(self, branch: str) -> list[FakeCommit] | None:
        return self.branches.get(branch)

    def add_tag(self, name: str, ref: str) -> str:
        """Tags the commit ``ref`` names (a sha, a branch's tip, a tag); returns its sha."""
        commit = self.resolve(ref)
        assert commit is not None, f"no commit {ref!r} to tag"
        self.tags[name] = commit.sha
        return commit.sha

    def resolve(self, ref: str) -> FakeCommit | None:
        if ref in self.tags:
            return self.find_commit(self.tags[ref])
        return self.find_commit(ref)

    def parents_of(self, commit: FakeCommit) -> list[str]:
        if commit.parents:
            return list(commit.parents)
        for commits in self.branches.values():
            for index, listed in enumerate(commits):
                if listed.sha == commit.sha:
                    return [commits[index - 1].sha] if index else []
        return []

    def ancestors(self, sha: str) -> set[str]:
        """``sha`` and every commit reachable from it."""
        seen: set[str] = set()
        stack = [sha]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            commit = self.find_commit(current)
            if commit is not None:
                stack.extend(self.parents_of(commit))
        return seen

    def find_commit(self, ref: str) -> FakeCommit | None:
        if self.branches.get(ref):
            return max(self.branches[ref], key=lambda c: c.committed_at)
        for commits in self.branches.values():
            for commit in commits:
                if len(ref) >= 7 and commit.sha.startswith(ref):
                    return commit
        return None


@dataclass(frozen=True)
class Reply:
    """A scripted reply; ``drop_connection`` closes the socket without answering."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    drop_connection: bool = False

    @classmethod
    def primary_rate_limit(cls, reset_at: datetime, *, status: int = 403) -> Reply:
        return cls(
            status,
            {
                "message": "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated "
                "requests get a higher rate limit. Check out the documentation for more details.)",
                "documentation_url": DOCS_URL,
            },
            {
                "X-RateLimit-Limit": "60",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Used": "60",
                "X-RateLimit-Reset": str(int(reset_at.timestamp())),
                "X-RateLimit-Resource": "core",
            },
        )

    @classmethod
    def secondary_rate_limit(cls, retry_after_seconds: int, *, status: int = 403) -> Reply:
        return cls(
            status,
            {
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                "documentation_url": DOCS_URL,
            },
            {"Retry-After": str(retry_after_seconds)},
        )

    @classmethod
    def too_many_requests(cls) -> Reply:
        return cls(429, {"message": "Too Many Requests", "documentation_url": DOCS_URL})

    @classmethod
    def server_error(cls, status: int = 502) -> Reply:
        return cls(status, {"message": "Server Error"})

    @classmethod
    def connection_drop(cls) -> Reply:
        return cls(0, drop_connection=True)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str  # without the API prefix and the query
    query: dict[str, str]
    authorized: bool


class FakeGithubServer:
    """Start with ``with FakeGithubServer() as server`` (or start()/stop()); ``url`` is the API base."""

    def __init__(self, *, token: str | None = None, prefix: str = "/api/v3") -> None:
        self.token = token
        self.prefix = prefix.rstrip("/")
        self.repositories: dict[str, FakeRepository] = {}
        self.requests: list[RecordedRequest] = []
        self._faults: dict[str, deque[Reply]] = {}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # A short poll interval: shutdown() waits for the serving loop to notice, each test.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-github", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def origin(self) -> str:
        assert self._httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def url(self) -> str:
        return self.origin + self.prefix

    # -- scripting -------------------------------------------------------------------------

    def add_repository(self, full_name: str, *, default_branch: str = "main") -> FakeRepository:
        repository = FakeRepository(full_name, id=1000 + len(self.repositories), default_branch=default_branch)
        self.repositories[full_name] = repository
        return repository

    def queue_fault(self, path: str, reply: Reply, *, times: int = 1) -> None:
        with self._lock:
            self._faults.setdefault(path, deque()).extend([reply] * times)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def clear_requests(self) -> None:
        with self._lock:
            self.requests.clear()

    def count(self, path_prefix: str = "") -> int:
        with self._lock:
            return sum(1 for request in self.requests if request.path.startswith(path_prefix))

    # -- serving ---------------------------------------------------------------------------

    def _next_fault(self, path: str) -> Reply | None:
        with self._lock:
            for key in (path, "*"):
                queue = self._faults.get(key)
                if queue:
                    return queue.popleft()
        return None

    def handle(self, method: str, raw_path: str, authorization: str | None) -> Reply:
        parts = urlsplit(raw_path)
        path = parts.path[len(self.prefix) :] if parts.path.startswith(self.prefix) else parts.path
        query = dict(parse_qsl(parts.query))
        with self._lock:
            self.requests.append(RecordedRequest(method, path, query, authorization is not None))
        fault = self._next_fault(path)
        if fault is not None:
            return fault
        presented = None if authorization is None else authorization.split(" ", 1)[-1]
        if presented is not None and self.token is not None and presented != self.token:
            return Reply(401, {"message": "Bad credentials", "documentation_url": DOCS_URL, "status": "401"})
        if method != "GET":
            return _not_found()
        return _Router(self).route(path, query)


class _Router:
    def __init__(self, server: FakeGithubServer) -> None:
        self.server = server
        self.base = server.url

    def route(self, path: str, query: dict[str, str]) -> Reply:
        segments = [unquote(segment) for segment in path.strip("/").split("/")]
        repository, rest = self._repository(segments)
        if repository is None:
            return _not_found()
        if not rest:
            return Reply(200, self._repository_json(repository))
        if rest == ["commits"]:
            return self._list_commits(repository, query)
        if len(rest) == 2 and rest[0] == "commits":
            return self._commit(repository, rest[1], query)
        if rest == ["tags"]:
            return self._list_tags(repository, query)
        if len(rest) >= 2 and rest[0] == "compare" and "..." in "/".join(rest[1:]):
            base, _, head = "/".join(rest[1:]).partition("...")
            return self._compare(repository, base, head, query)
        if len(rest) == 2 and rest[0] == "pulls" and rest[1].isdigit():
            pull = repository.pulls.get(int(rest[1]))
            return Reply(200, self._pull_json(repository, pull)) if pull else _not_found()
        return _not_found()

    def _repository(self, segments: list[str]) -> tuple[FakeRepository | None, list[str]]:
        if len(segments) >= 3 and segments[0] == "repos":
            return self.server.repositories.get(f"{segments[1]}/{segments[2]}"), segments[3:]
        if len(segments) >= 2 and segments[0] == "repositories" and segments[1].isdigit():
            for repository in self.server.repositories.values():
                if repository.id == int(segments[1]):
                    return repository, segments[2:]
        return None, []

    def _list_commits(self, repository: FakeRepository, query: dict[str, str]) -> Reply:
        branch = query.get("sha", repository.default_branch)
        commits = repository.commits_on(branch)
        if commits is None:
            return Reply(404, {"message": f"No commit found for SHA: {branch}", "documentation_url": DOCS_URL})
        since = _parse_time(query.get("since"))
        until = _parse_time(query.get("until"))
        selected = [
            commit
            for commit in commits
            if (since is None or commit.committed_at >= since) and (until is None or commit.committed_at <= until)
        ]
        # Newest first, like GitHub; a stable sort keeps later-added commits first among equals.
        selected = sorted(reversed(selected), key=lambda commit: commit.committed_at, reverse=True)
        per_page = min(_int(query.get("per_page"), LIST_DEFAULT_PER_PAGE), LIST_MAX_PER_PAGE)
        page = max(_int(query.get("page"), 1), 1)
        chunk = selected[(page - 1) * per_page : page * per_page]
        body = [self._commit_json(repository, commit, files=None) for commit in chunk]
        link = _link_header(
            f"{self.base}/repositories/{repository.id}/commits", query, page, _pages(len(selected), per_page)
        )
        return Reply(200, body, {"Link": link} if link else {})

    def _list_tags(self, repository: FakeRepository, query: dict[str, str]) -> Reply:
        api = f"{self.base}/repos/{repository.full_name}"
        names = list(reversed(repository.tags))
        per_page = min(_int(query.get("per_page"), LIST_DEFAULT_PER_PAGE), LIST_MAX_PER_PAGE)
        page = max(_int(query.get("page"), 1), 1)
        body = [
            {
                "name": name,
                "commit": {"sha": repository.tags[name], "url": f"{api}/commits/{repository.tags[name]}"},
                "zipball_url": f"{api}/zipball/refs/tags/{name}",
                "tarball_url": f"{api}/tarball/refs/tags/{name}",
                "node_id": f"REF_{name}",
            }
            for name in names[(page - 1) * per_page : page * per_page]
        ]
        link = _link_header(f"{self.base}/repositories/{repository.id}/tags", query, page, _pages(len(names), per_page))
        return Reply(200, body, {"Link": link} if link else {})

    def _compare(self, repository: FakeRepository, base_ref: str, head_ref: str, query: dict[str, str]) -> Reply:
        base, head = repository.resolve(base_ref), repository.resolve(head_ref)
        if base is None or head is None:
            return _not_found()
        base_side, head_side = repository.ancestors(base.sha), repository.ancestors(head.sha)
        common = base_side & head_side
        if not common:
            return Reply(
                404,
                {"message": f"No common ancestor between {base_ref} and {head_ref}.", "documentation_url": DOCS_URL},
            )
        # The merge base: a common ancestor no other common ancestor descends from.
        best = [sha for sha in common if not any(sha in repository.ancestors(other) - {other} for other in common)]
        merge_base = max((repository.find_commit(sha) for sha in best), key=lambda commit: commit.committed_at)
        order = {commit.sha: index for index, commit in enumerate(c for cs in repository.branches.values() for c in cs)}
        ahead = sorted(
            (repository.find_commit(sha) for sha in head_side - base_side),
            key=lambda commit: (commit.committed_at, order.get(commit.sha, 0)),
        )
        behind = len(base_side - head_side)
        status = (
            "identical"
            if not ahead and not behind
            else "ahead"
            if not behind
            else "behind"
            if not ahead
            else "diverged"
        )
        per_page = min(_int(query.get("per_page"), COMPARE_DEFAULT_PER_PAGE), COMPARE_MAX_PER_PAGE)
        page = max(_int(query.get("page"), 1), 1)
        api = f"{self.base}/repos/{repository.full_name}"
        body = {
            "url": f"{api}/compare/{base_ref}...{head_ref}",
            "html_url": f"https://github.com/{repository.full_name}/compare/{base_ref}...{head_ref}",
            "permalink_url": f"https://github.com/{repository.full_name}/compare/{base.sha}...{head.sha}",
            "diff_url": f"https://github.com/{repository.full_name}/compare/{base_ref}...{head_ref}.diff",
            "patch_url": f"https://github.com/{repository.full_name}/compare/{base_ref}...{head_ref}.patch",
            "base_commit": self._commit_json(repository, base, files=None),
            "merge_base_commit": self._commit_json(repository, merge_base, files=None),
            "status": status,
            "ahead_by": len(ahead),
            "behind_by": behind,
            "total_commits": len(ahead),
            "commits": [
                self._commit_json(repository, commit, files=None)
                for commit in ahead[(page - 1) * per_page : page * per_page]
            ],
            "files": [],
        }
        link = _link_header(
            f"{self.base}/repositories/{repository.id}/compare/{base_ref}...{head_ref}",
            query,
            page,
            _pages(len(ahead), per_page),
        )
        return Reply(200, body, {"Link": link} if link else {})

    def _commit(self, repository: FakeRepository, ref: str, query: dict[str, str]) -> Reply:
        commit = repository.find_commit(ref)
        if commit is None:
            return Reply(422, {"message": f"No commit found for SHA: {ref}", "documentation_url": DOCS_URL})
        per_page = min(_int(query.get("per_page"), FILES_DEFAULT_PER_PAGE), FILES_MAX_PER_PAGE)
        page = max(_int(query.get("page"), 1), 1)
        files = commit.files[(page - 1) * per_page : page * per_page]
        body = self._commit_json(repository, commit, files=files)
        link = _link_header(
            f"{self.base}/repositories/{repository.id}/commits/{commit.sha}",
            query,
            page,
            _pages(len(commit.files), per_page),
        )
        return Reply(200, body, {"Link": link} if link else {})

    # -- GitHub's JSON shapes -----------------------------------------------------------------

    def _repository_json(self, repository: FakeRepository) -> dict[str, Any]:
        owner = repository.full_name.split("/")[0]
        return {
            "id": repository.id,
            "node_id": f"R_{repository.id}",
            "name": repository.full_name.split("/")[1],
            "full_name": repository.full_name,
            "private": False,
            "owner": self._user_json(owner),
            "url": f"{self.base}/repos/{repository.full_name}",
            "default_branch": repository.default_branch,
            "html_url": f"https://github.com/{repository.full_name}",
        }

    def _user_json(self, login: str) -> dict[str, Any]:
        return {
            "login": login,
            "id": sum(login.encode()),
            "node_id": f"U_{login}",
            "type": "User",
            "url": f"{self.base}/users/{login}",
            "html_url": f"https://github.com/{login}",
            "site_admin": False,
            "avatar_url": f"https://avatars.githubusercontent.com/{login}",
        }

    def _commit_json(
        self, repository: FakeRepository, commit: FakeCommit, *, files: list[FakeFile] | None
    ) -> dict[str, Any]:
        api = f"{self.base}/repos/{repository.full_name}"
        authored_at = commit.authored_at or commit.committed_at
        data: dict[str, Any] = {
            "sha": commit.sha,
            "node_id": f"C_{commit.sha[:16]}",
            "commit": {
                "author": {
                    "name": commit.author_name,
                    "email": commit.author_email,
                    "date": _iso(authored_at),
                },
                "committer": {
                    "name": commit.committer_name,
                    "email": commit.committer_email,
                    "date": _iso(commit.committed_at),
                },
                "message": commit.message,
                "tree": {"sha": "0" * 40, "url": f"{api}/git/trees/{'0' * 40}"},
                "url": f"{api}/git/commits/{commit.sha}",
                "comment_count": 0,
                "verification": {
                    "verified": False,
                    "reason": "unsigned",
                    "signature": None,
                    "payload": None,
                    "verified_at": None,
                },
            },
            "url": f"{api}/commits/{commit.sha}",
            "html_url": f"https://github.com/{repository.full_name}/commit/{commit.sha}",
            "comments_url": f"{api}/commits/{commit.sha}/comments",
            "author": self._user_json(commit.author_login) if commit.author_login else None,
            "committer": self._user_json("web-flow"),
            "parents": [
                {
                    "sha": parent,
                    "url": f"{api}/commits/{parent}",
                    "html_url": f"https://github.com/{repository.full_name}/commit/{parent}",
                }
                for parent in commit.parents
            ],
        }
        if files is not None:
            additions = sum(file.additions for file in commit.files)
            deletions = sum(file.deletions for file in commit.files)
            data["stats"] = {"total": additions + deletions, "additions": additions, "deletions": deletions}
            data["files"] = [self._file_json(repository, commit, file) for file in files]
        return data

    def _file_json(self, repository: FakeRepository, commit: FakeCommit, file: FakeFile) -> dict[str, Any]:
        data: dict[str, Any] = {
            "sha": "1" * 40,
            "filename": file.filename,
            "status": file.status,
            "additions": file.additions,
            "deletions": file.deletions,
            "changes": file.additions + file.deletions,
            "blob_url": f"https://github.com/{repository.full_name}/blob/{commit.sha}/{file.filename}",
            "raw_url": f"https://github.com/{repository.full_name}/raw/{commit.sha}/{file.filename}",
            "contents_url": (f"{self.base}/repos/{repository.full_name}/contents/{file.filename}?ref={commit.sha}"),
        }
        if file.patch is not None:
            data["patch"] = file.patch
        if file.previous_filename is not None:
            data["previous_filename"] = file.previous_filename
        return data

    def _pull_json(self, repository: FakeRepository, pull: FakePull) -> dict[str, Any]:
        api = f"{self.base}/repos/{repository.full_name}"
        return {
            "url": f"{api}/pulls/{pull.number}",
            "id": 5000 + pull.number,
            "node_id": f"PR_{pull.number}",
            "number": pull.number,
            "state": "closed",
            "locked": False,
            "title": pull.title,
            "body": pull.body,
            "user": self._user_json("contributor"),
            "merged": True,
            "html_url": f"https://github.com/{repository.full_name}/pull/{pull.number}",
            "labels": [
                {
                    "id": index + 1,
                    "node_id": f"L_{index}",
                    "url": f"{api}/labels/{name}",
                    "name": name,
                    "color": "ededed",
                    "default": False,
                    "description": None,
                }
                for index, name in enumerate(pull.labels)
            ],
        }


def _handler_for(server: FakeGithubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes; with Nagle on, the client's delayed ACK
        # adds ~40 ms to every keep-alive request.
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            self._answer("GET")

        def do_POST(self) -> None:
            self._answer("POST")

        def _answer(self, method: str) -> None:
            reply = server.handle(method, self.path, self.headers.get("Authorization"))
            if reply.drop_connection:
                self.close_connection = True
                return
            payload = b"" if reply.body is None else json.dumps(reply.body).encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            headers = {
                "X-RateLimit-Limit": "5000",
                "X-RateLimit-Remaining": "4999",
                "X-RateLimit-Used": "1",
                "X-RateLimit-Reset": "4102444800",
                "X-RateLimit-Resource": "core",
                **reply.headers,
            }
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            del format, args  # keep test output clean

    return Handler


def _not_found() -> Reply:
    return Reply(404, {"message": "Not Found", "documentation_url": DOCS_URL, "status": "404"})


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(text: str | None) -> datetime | None:
    return None if not text else datetime.fromisoformat(text.replace("Z", "+00:00"))


def _int(text: str | None, default: int) -> int:
    return int(text) if text and text.isdigit() else default


def _pages(total: int, per_page: int) -> int:
    return max((total + per_page - 1) // per_page, 1)


def _link_header(url: str, query: dict[str, str], page: int, last: int) -> str:
    def page_url(number: int) -> str:
        return f"{url}?{urlencode({**query, 'page': str(number)})}"

    links: list[tuple[str, int]] = []
    if page > 1:
        links += [("prev", page - 1), ("first", 1)]
    if page < last:
        links += [("next", page + 1), ("last", last)]
    # GitHub lists next/last before prev/first.
    links.sort(key=lambda link: ("next", "last", "first", "prev").index(link[0]))
    return ", ".join(f'<{page_url(number)}>; rel="{rel}"' for rel, number in links)
