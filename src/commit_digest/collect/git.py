"""A local clone as a commit source: reads history with git itself, sends no API request.

Records match what the GitHub source gives for the same commit: UTC times, GitHub's file
status words, the patch without its ``diff --git``/``---``/``+++`` header (as GitHub's
``patch`` field), binary files without a patch, merges diffed against their first parent.
A clone knows no GitHub logins or pull request descriptions: ``author_login`` and
``pull_request`` stay empty. This module decides what to ask git; reading its answers is
``git_commit_object`` (the commit, its dates) and ``git_diff`` (the files), and starting it
``git_process``.

A clone only claims to be the repository given, so ``check_identity`` checks the claim before
anything is stored: its remote URL, or (no remote naming a repository) the root commits
recorded at the repository's first fetch. ``git_identity`` holds the pure part.

Releases: the clone's tags come from one ``git for-each-ref`` (annotated tags peeled, dated by
their tagger), and containment is exact: one ``git for-each-ref --contains`` finds the tags that
contain any commit to place (when there are at most ``CONTAINS_PREFILTER_LIMIT``), then one
``git rev-list <tag> --not <earlier release tags>`` per such release lists the commits it released
first. A night with new commits and no new tag runs four git processes.
"""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from commit_digest.collect.base import AUTHOR_NAME_LIMIT, CommitRef, cap_patches, split_message
from commit_digest.collect.errors import CommitFetchError, SourceError, UnusableCommitError
from commit_digest.collect.git_commit_object import moment, parse_commit, refused_seconds
from commit_digest.collect.git_diff import DIFF_OPTIONS, file_changes
from commit_digest.collect.git_identity import (
    Remote,
    RootMemory,
    display_url,
    named_remotes,
    recorded_roots,
    roots_key,
    same_repository,
)
from commit_digest.collect.git_process import run_git, stderr_line, text
from commit_digest.collect.window import FetchWindow
from commit_digest.meaning.releases import Release, TagRef
from commit_digest.models import Commit

logger = logging.getLogger("mkdocs.plugins.commit_digest.collect")

# git's --since stops walking at old-enough commits; a margin keeps commits whose committer
# date is slightly older than a parent's, and the exact window is applied afterwards.
WALK_MARGIN = timedelta(days=1)

# More commits to place than this: every release tag is walked instead of asking git first which
# tags contain any of them (each is one --contains argument).
CONTAINS_PREFILTER_LIMIT = 1000
_TAG_FIELDS = "%00".join(
    (
        "%(refname:strip=2)",
        "%(objecttype)",
        "%(objectname)",
        "%(*objecttype)",
        "%(*objectname)",
        "%(creatordate:unix)",  # the tagger date of an annotated tag, the committer date of a commit
        "%(committerdate:unix)%(*committerdate:unix)",  # for an annotated tag without a tagger
    )
)


class GitSource:
    """Commits of a repository read from a local clone at ``git_dir``."""

    def __init__(self, repository: str, git_dir: Path, *, patch_cap_bytes: int | None) -> None:
        """``patch_cap_bytes`` None: keep no patches (files marked not-collected)."""
        self._repository = repository
        self.git_dir = git_dir
        self._patch_cap_bytes = patch_cap_bytes
        # Whether a remote names the repository (None: not checked yet); git's answer does not
        # change during a run, so the clone is checked once.
        self._named_by_remote: bool | None = None

    @property
    def repository(self) -> str:
        return self._repository

    def list_commits(self, branch: str | None, window: FetchWindow) -> Iterator[CommitRef]:
        self._check_clone()
        revision = self._verified_revision(branch)
        arguments = ["log", "--format=%H %ct", f"--since={(window.start - WALK_MARGIN).isoformat()}"]
        if window.end is not None:
            arguments.append(f"--until={(window.end + WALK_MARGIN).isoformat()}")
        output = self._git_or_fail(f"cannot list the commits of {revision}", *arguments, revision, "--")
        for line in output.decode("ascii").splitlines():
            sha, _, timestamp = line.partition(" ")
            committed_at = moment(timestamp)
            # git lists a commit whose date it cannot print (negative, past year 9999) whatever the
            # window: passed on unplaced, its details decide whether it can be stored.
            if committed_at is None or window.contains(committed_at):
                yield CommitRef(sha, committed_at)

    def detail_commit(self, sha: str, *, with_pull_request: bool) -> Commit:
        del with_pull_request  # a clone has no pull requests
        try:
            raw = parse_commit(self._git("cat-file", "--batch", input=f"{sha}\n".encode()))
            if raw is None:
                raise CommitFetchError(sha, "git has no such commit")
            statuses = self._git("show", *DIFF_OPTIONS, "-z", "--name-status", sha)
            counts = self._git("show", *DIFF_OPTIONS, "-z", "--numstat", sha)
            collect = self._patch_cap_bytes is not None
            patches = self._git("show", *DIFF_OPTIONS, "--patch", sha) if collect else b""
        except subprocess.CalledProcessError as error:
            raise CommitFetchError(sha, f"git show failed: {stderr_line(error)}") from None
        committed_at = moment(raw.committer.seconds)
        if committed_at is None:
            raise UnusableCommitError(
                raw.sha, f"no date places it on a day: its committer date {refused_seconds(raw.committer.seconds)}"
            )
        authored_at = moment(raw.author.seconds)
        if authored_at is None:
            logger.warning(
                "%s: commit %s: author date %s; its committer date stands for it",
                self._repository,
                raw.sha[:12],
                refused_seconds(raw.author.seconds),
            )
            authored_at = committed_at
        title, body = split_message(raw.message)
        files = file_changes(statuses, counts, patches)
        return Commit(
            repository=self._repository,
            sha=raw.sha,
            author_name=raw.author.name[:AUTHOR_NAME_LIMIT],
            author_login=None,
            authored_at=authored_at,
            committed_at=committed_at,
            title=title,
            body=body,
            files=cap_patches(files, self._patch_cap_bytes),
        )

    def check_identity(self, memory: RootMemory, branch: str | None) -> None:
        """Refuses a clone that is not ``repository``; run before anything is listed or stored.

        A remote URL naming the repository settles it. With no such remote (``git init``, a
        clone of a clone on disk), the root commits recorded at the repository's first fetch
        must be among the clone's: an unrelated history has other roots. The roots are recorded
        whenever they are trustworthy, so a later remote-less clone can be checked too.
        """
        named_by_remote = self._check_clone()
        revision = self._verified_revision(branch)
        if self._is_shallow():
            if named_by_remote:
                return  # a shallow clone's parentless commits are where it was cut, not its roots
            raise SourceError(
                f"the clone at {self.git_dir} is shallow and has no remote naming a repository, so nothing "
                f"shows it is {self._repository}: add the remote it was cloned from "
                f"(git -C {self.git_dir} remote add origin URL) or give a full clone"
            )
        key = roots_key(self._repository)
        recorded = recorded_roots(memory.get_meta(key), key)
        roots = self._roots(revision)
        if named_by_remote:
            if recorded != roots:
                memory.set_meta(key, roots)
            return
        if recorded is None:
            logger.info(
                "%s: the clone at %s has no remote naming a repository; its root commits %s are recorded, "
                "and later clones without a remote must share them",
                self._repository,
                self.git_dir,
                _short(roots),
            )
            memory.set_meta(key, roots)
            return
        # Any shared root will do: a repository that merges in another history gains a root,
        # and its older clones are still the same repository.
        if not set(recorded) & set(roots):
            raise SourceError(
                f"the clone at {self.git_dir} has no remote naming a repository and its root commits "
                f"({_short(roots)}) are not those recorded for {self._repository} at its first fetch "
                f"({_short(recorded)}): give the right --git-dir, or the --repo this clone holds"
            )

    # -- releases --------------------------------------------------------------------------

    def list_tags(self) -> Iterator[TagRef]:
        """Every tag of the clone that points (through an annotated tag) at a commit, dated by its
        tagger when annotated, else by the commit's committer date."""
        self._check_clone()
        output = self._git_or_fail("cannot list the tags", "for-each-ref", f"--format={_TAG_FIELDS}", "refs/tags")
        for line in text(output).splitlines():
            name, kind, sha, peeled_kind, peeled, created, committed = line.split("\0")
            if kind == "tag" and peeled_kind == "commit":
                sha = peeled
            elif kind != "commit":
                logger.debug("%s: tag %s points at a %s, not a commit: not a release", self._repository, name, kind)
                continue
            # A tagger date no day can hold (year 10000) gives way to the commit's, as it does
            # for an annotated tag without a tagger.
            tagged_at = moment(created) or moment(committed)
            if tagged_at is None:
                # A release is ordered and shown by its date: without one it cannot be placed, and
                # describing it would stop every night's releases at it.
                logger.warning(
                    "%s: tag %s (%s) has no date a site can show: not a release", self._repository, name, sha[:12]
                )
                continue
            yield TagRef(name, sha, tagged_at)

    def describe_release(self, tag: TagRef, branch: str | None) -> Release:
        """The record of a release tag, from what the listing said (no git process)."""
        del branch  # containment is asked of git itself, for any branch
        if tag.tagged_at is None:
            raise SourceError(f"tag {tag.name} in the clone at {self.git_dir} has no date")
        return Release(repository=self._repository, tag=tag.name, sha=tag.sha, tagged_at=tag.tagged_at)

    def is_described(self, release: Release) -> bool:
        """Always: a clone asks git itself whatever made the release."""
        del release
        return True

    def first_releases(self, releases: Sequence[Release], candidates: Mapping[str, datetime]) -> dict[str, str]:
        """sha → tag of the first of ``releases`` (in order) that contains each candidate commit;
        commits in none (or unknown to the clone) are left out. Exact: git walks the history."""
        if not candidates or not releases:
            return {}
        known = self._known(sorted({*candidates, *(release.sha for release in releases)}))
        remaining = known & set(candidates)
        if not remaining:
            return {}
        skipped = self._containing_none(sorted(remaining)) if len(remaining) <= CONTAINS_PREFILTER_LIMIT else set()
        found: dict[str, str] = {}
        earlier: list[str] = []
        for release in releases:
            if release.sha not in known:  # a release read elsewhere whose commit the clone lacks
                continue
            if remaining and release.sha not in skipped:
                stdin = "\n".join([release.sha, *(f"^{sha}" for sha in earlier)]) + "\n"
                output = self._git_or_fail(
                    f"cannot list the commits of tag {release.tag}", "rev-list", "--stdin", input=stdin.encode()
                )
                hits = remaining & set(text(output).split())
                found.update(dict.fromkeys(hits, release.tag))
                remaining -= hits
            earlier.append(release.sha)
        return found

    def _known(self, shas: Sequence[str]) -> set[str]:
        """The commits of ``shas`` the clone has (a store may hold commits fetched elsewhere)."""
        if not shas:
            return set()
        stdin = "".join(f"{sha}\n" for sha in shas).encode()
        output = self._git_or_fail(
            "cannot look commits up", "cat-file", "--batch-check=%(objectname) %(objecttype)", input=stdin
        )
        known = set()
        for line in text(output).splitlines():
            sha, _, kind = line.partition(" ")
            if kind == "commit":
                known.add(sha)
        return known

    def _containing_none(self, shas: Sequence[str]) -> set[str]:
        """The commits tagged only by tags that contain none of ``shas``: their releases need no walk.
        A release whose tag was deleted or moved since is not among them, so it is walked."""
        fields = "%(objectname)%00%(*objectname)"
        every = self._git_or_fail("cannot list the tags", "for-each-ref", f"--format={fields}", "refs/tags")
        containing = self._git_or_fail(
            "cannot list the tags containing new commits",
            "for-each-ref",
            f"--format={fields}",
            *(f"--contains={sha}" for sha in shas),
            "refs/tags",
        )
        return _peeled(every) - _peeled(containing)

    # -- checking the clone ------------------------------------------------------------------

    def _check_clone(self) -> bool:
        """Checks ``git_dir`` is the top of a repository and no remote names another repository;
        True when a remote names this one, False when no remote names any."""
        if self._named_by_remote is None:
            self._check_top()
            self._named_by_remote = self._check_remotes()
        return self._named_by_remote

    def _check_top(self) -> None:
        # A folder inside a repository would read the whole repository's history under the
        # name given, so only the top of a work tree, or a bare repository, is accepted.
        if not self.git_dir.is_dir():
            raise SourceError(f"--git-dir {self.git_dir} is not a directory")
        try:
            bare = self._git("rev-parse", "--is-bare-repository").strip() == b"true"
        except subprocess.CalledProcessError:
            raise SourceError(f"--git-dir {self.git_dir} is not a git repository") from None
        if bare:
            return
        try:
            top = text(self._git("rev-parse", "--show-toplevel")).strip()
        except subprocess.CalledProcessError:
            top = ""  # inside a .git folder there is no work tree
        if not top:
            raise SourceError(
                f"--git-dir {self.git_dir} is not the top folder of a clone nor a bare repository: "
                "give the clone's top folder"
            )
        if not Path(top).samefile(self.git_dir):  # also right through symlinks and case-blind disks
            raise SourceError(
                f"--git-dir {self.git_dir} is a folder inside the repository at {top}, not its top: "
                f"give --git-dir {top} if that is {self._repository}, or the right --git-dir"
            )

    def _check_remotes(self) -> bool:
        named = named_remotes(self._remotes())
        if not named:
            return False
        if any(same_repository(found, self._repository) for _, found in named):
            return True
        found_list = ", ".join(f"{remote.name} = {display_url(remote.url)}" for remote, _ in named)
        remotes = "remote" if len(named) == 1 else "remotes"
        raise SourceError(
            f"the clone at {self.git_dir} has {remotes} {found_list}, not {self._repository}: "
            f"give --repo {named[0][1]} or the right --git-dir"
        )

    def _remotes(self) -> list[Remote]:
        try:
            output = self._git("config", "-z", "--get-regexp", r"^remote\..*\.url$")
        except subprocess.CalledProcessError as error:
            if error.returncode == 1:  # git config's "no such key": the clone has no remote
                return []
            raise SourceError(f"cannot read the remotes of the clone at {self.git_dir}: {stderr_line(error)}") from None
        remotes: list[Remote] = []
        for entry in output.split(b"\0"):
            key, _, url = text(entry).partition("\n")
            if key:
                remotes.append(Remote(key.removeprefix("remote.").removesuffix(".url"), url))
        return remotes

    def _roots(self, revision: str) -> list[str]:
        output = self._git_or_fail("cannot list the root commits", "rev-list", "--max-parents=0", revision, "--")
        return sorted(text(output).split())

    def _is_shallow(self) -> bool:
        return self._git_or_fail("cannot read the clone", "rev-parse", "--is-shallow-repository").strip() == b"true"

    def _verified_revision(self, branch: str | None) -> str:
        revision = branch or "HEAD"
        try:
            self._git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
        except subprocess.CalledProcessError:
            raise SourceError(f"branch {revision!r} not found in the clone at {self.git_dir}") from None
        return revision

    # -- running git -----------------------------------------------------------------------

    def _git_or_fail(self, what: str, *arguments: str, input: bytes | None = None) -> bytes:
        try:
            return self._git(*arguments, input=input)
        except subprocess.CalledProcessError as error:
            raise SourceError(f"{what} in {self.git_dir}: {stderr_line(error)}") from None

    def _git(self, *arguments: str, input: bytes | None = None) -> bytes:
        # Every git process of the source starts here.
        return run_git(self.git_dir, *arguments, input=input)


def _peeled(for_each_ref: bytes) -> set[str]:
    """The commits named by ``%(objectname)%00%(*objectname)`` lines (an annotated tag peeled)."""
    return {peeled or sha for sha, _, peeled in (line.partition("\0") for line in text(for_each_ref).splitlines())}


def _short(shas: Sequence[str]) -> str:
    return ", ".join(sha[:12] for sha in shas) or "none"
