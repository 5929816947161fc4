"""The store's commits as relating looks them up: by sha prefix, by pull request and by title.

Built once per ``relate`` from the headers of the whole store; reverts resolve their shas and
quoted titles here, and references their pull request numbers.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from datetime import datetime

from commit_digest.meaning.relations.relation import PR_SUFFIX, CommitHeader, CommitKey


class CommitIndex:
    """The store's commits by sha prefix, by (repository, pull request) and by (repository, title)."""

    def __init__(self, commits: dict[CommitKey, CommitHeader]) -> None:
        self.commits = commits
        self.repositories = {repository.lower(): repository for repository, _ in commits}
        self._shas = sorted((sha, repository) for repository, sha in commits)
        self._pulls: dict[tuple[str, int], CommitKey] = {}
        self._titles: dict[tuple[str, str], list[tuple[datetime, str]]] = defaultdict(list)
        self._bare_titles: dict[tuple[str, str], list[tuple[datetime, str]]] = defaultdict(list)
        for key, commit in sorted(commits.items(), key=lambda item: (item[1].committed_at, item[0])):
            if commit.pr_number is not None:
                self._pulls.setdefault((commit.repository, commit.pr_number), key)
            title = commit.title.strip()
            self._titles[(commit.repository, title)].append((commit.committed_at, commit.sha))
            self._bare_titles[(commit.repository, PR_SUFFIX.sub("", title))].append((commit.committed_at, commit.sha))

    def repository(self, written: str | None, own: str) -> str:
        if written is None:
            return own
        return self.repositories.get(written.lower(), written)

    def pull(self, repository: str, number: int) -> CommitKey | None:
        return self._pulls.get((repository, number))

    def by_sha(self, prefix: str, repository: str) -> CommitKey | None:
        """The commit whose sha starts with ``prefix``: in ``repository`` if any there, else in
        any repository; None when none or several match."""
        prefix = prefix.lower()
        matches = []
        at = bisect.bisect_left(self._shas, (prefix,))
        while at < len(self._shas) and self._shas[at][0].startswith(prefix):
            matches.append(self._shas[at])
            at += 1
        own = [(repository, sha) for sha, found in matches if found == repository]
        if own:
            return own[0] if len(own) == 1 else None
        return (matches[0][1], matches[0][0]) if len(matches) == 1 else None

    def by_title(self, repository: str, title: str, before: CommitHeader) -> CommitKey | None:
        """The newest commit of ``repository`` titled ``title`` that landed before ``before``:
        the title as written, else without its pull request number."""
        for index, wanted in ((self._titles, title.strip()), (self._bare_titles, PR_SUFFIX.sub("", title.strip()))):
            landed = index.get((repository, wanted), [])
            at = bisect.bisect_right(landed, before.committed_at, key=lambda entry: entry[0])
            for _, sha in reversed(landed[:at]):
                if sha != before.sha:
                    return (repository, sha)
        return None
