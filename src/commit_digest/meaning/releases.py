"""Releases: the first release tag that carries each stored commit. Pure: no git, no network.

A tag *contains* a commit when the commit is the tagged commit or one of its ancestors, so a tag
on a release branch forked from main after commit C contains C, and a tag whose branch forked
before C does not, however new it is. A commit's *first release* is the earliest release that
contains it: earliest by ``tagged_at``, a tie broken by version (``v0.11.0rc3`` before
``v0.11.0``), then by name. Each ``Release`` lists the stored commits whose first release it is,
so every stored commit is in at most one release, and a commit in none is not yet released.

The sources decide containment (a clone exactly with ``git rev-list``; the GitHub API through one
compare per tag, whose answer is kept as the release's ``branch_point`` and judged here by
``contained_by_branch_point``). ``plan_placement`` says which commits must be (re)placed when
tags or commits are new, and ``apply_placement`` turns the sources' answer into the records to store.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Self

from pydantic import AwareDatetime, StringConstraints, field_validator, model_validator

from commit_digest.fields import RepositoryName, Sha
from commit_digest.models import StrictModel

TagName = Annotated[str, StringConstraints(min_length=1, max_length=255)]

# Pre-release words in version order; a final release sorts after all of them, a post release after it.
_PRE_RELEASE_RANK = {"dev": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "c": 3, "pre": 3, "preview": 3, "rc": 3}
_FINAL_RANK = 4
_POST_RANK = 5
_VERSION = re.compile(r"^\D*?(\d+(?:\.\d+)*)(?:[-_.]?([A-Za-z]+)[-_.]?(\d*))?")
# What git refuses in a tag's name (``git check-ref-format``): a part starting with a dot or ending
# in ".lock", "..", control characters, space and ~^:?*[\\, an empty part (a leading, trailing or
# doubled slash), a trailing dot, "@{". So a tag name is never "..", nor a path from the root.
_NOT_IN_TAG_NAME = re.compile(r"(?:^|/)\.|\.lock(?:/|$)|\.\.|[\x00-\x20\x7f~^:?*\[\\]|^/|/$|//|\.$|@\{")


class BranchPoint(StrictModel):
    """Where a tag's history meets the fetched branch, as the GitHub compare API answered.

    ``sha`` is the merge base of the tag and the branch (None: they share no history, and the tag
    contains no commit of the branch); ``later`` lists the branch commits after it that were
    committed at or before it (the exceptions to the date rule, read from the first page of the
    comparison). See ``contained_by_branch_point``.
    """

    branch: Annotated[str, StringConstraints(min_length=1, max_length=255)]
    sha: Sha | None
    committed_at: AwareDatetime | None
    later: tuple[Sha, ...] = ()

    @model_validator(mode="after")
    def _dated(self) -> Self:
        if (self.sha is None) != (self.committed_at is None):
            raise ValueError("a branch point has both a sha and a commit time, or neither (no shared history)")
        return self

    @field_validator("later")
    @classmethod
    def _sorted(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted(set(value)))


class Release(StrictModel):
    """One release tag of a repository and the stored commits it released first."""

    repository: RepositoryName
    tag: TagName
    sha: Sha  # the tagged commit (an annotated tag peeled)
    # The tagger date of an annotated tag read from a clone, else the tagged commit's committer date.
    tagged_at: AwareDatetime
    commits: tuple[Sha, ...] = ()  # sorted: the stored commits whose first release this is
    # How the GitHub source decided containment (None from a clone, which asks git each time, and
    # for a tag that shares no history with the branch).
    branch_point: BranchPoint | None = None

    @field_validator("commits")
    @classmethod
    def _sorted(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted(set(value)))

    @property
    def key(self) -> tuple[str, str]:
        return (self.repository, self.tag)


def version_key(tag: str) -> tuple[tuple[int, ...], int, int, str]:
    """A sort key of a tag name by version: ``v0.9.2`` < ``v0.10.0rc1`` < ``v0.10.0`` < ``v0.10.0.post1``;
    a name with no number sorts first, by name."""
    match = _VERSION.match(tag)
    if match is None:
        return ((), _FINAL_RANK, 0, tag)
    numbers = tuple(int(part) for part in match.group(1).split("."))
    word, number = (match.group(2) or "").lower(), match.group(3)
    if not word:
        rank = _FINAL_RANK
    elif word in ("post", "p"):
        rank = _POST_RANK
    else:
        rank = _PRE_RELEASE_RANK.get(word, _FINAL_RANK)
    return (numbers, rank, int(number) if number else 0, tag)


def is_tag_name(tag: str) -> bool:
    """Whether git could have made a tag named ``tag``: what a durable form or a store holds may
    not come from git, and a release's name reaches page paths and links."""
    return bool(tag) and _NOT_IN_TAG_NAME.search(tag) is None


def is_release_tag(tag: str, pattern: str) -> bool:
    """Whether ``tag`` names a release of a repository whose ``release_tags`` is ``pattern``
    (``re.search``): the one test of fetched, restored and shown releases alike."""
    return is_tag_name(tag) and re.search(pattern, tag) is not None


def release_order(release: Release) -> tuple[datetime, tuple[tuple[int, ...], int, int, str]]:
    """The order in which releases happened: by ``tagged_at``, then by version."""
    return (release.tagged_at, version_key(release.tag))


def ordered(releases: Iterable[Release]) -> list[Release]:
    """``releases`` by repository, then in the order they happened."""
    return sorted(releases, key=lambda release: (release.repository, release_order(release)))


def first_release_of(releases: Iterable[Release]) -> dict[tuple[str, str], Release]:
    """(repository, sha) → the release that first carried the commit. A commit listed by two
    releases (a store restored beside a newer one) belongs to the earlier."""
    found: dict[tuple[str, str], Release] = {}
    for release in reversed(ordered(releases)):
        for sha in release.commits:
            found[(release.repository, sha)] = release
    return found


def contained_by_branch_point(point: BranchPoint | None, committed: Mapping[str, datetime]) -> set[str]:
    """The commits of ``committed`` (sha → committer date; commits of the fetched branch) that the tag
    whose history meets the branch at ``point`` contains.

    A branch commit is contained when it is the branch point, or it is not among the branch commits
    after the branch point and was committed at or before it. This is exact for the commits the
    comparison listed (its first page, oldest first: ``later`` keeps those dated at or before the
    branch point) and date-based beyond that page: a commit after the branch point dated before it
    and not on that page, or one before it dated after it, is misjudged. Squash-merged histories
    such as vLLM's main have committer dates in commit order, where the rule is exact.
    """
    if point is None or point.sha is None or point.committed_at is None:
        return set()
    at = point.committed_at
    excluded = set(point.later)
    return {sha for sha, moment in committed.items() if sha == point.sha or (sha not in excluded and moment <= at)}


@dataclass(frozen=True)
class TagRef:
    """A tag as a source lists it: its name, the commit it points at (peeled), and when it was
    tagged when the listing says (a clone's does; GitHub's tag listing does not)."""

    name: str
    sha: str
    tagged_at: datetime | None = None


def first_releases_by_branch_points(releases: Sequence[Release], candidates: Mapping[str, datetime]) -> dict[str, str]:
    """sha → tag of the first of ``releases`` (in order) whose ``branch_point`` contains the commit."""
    contained = {release.tag: contained_by_branch_point(release.branch_point, candidates) for release in releases}
    return first_release_by_order(releases, contained, candidates)


@dataclass(frozen=True)
class Placement:
    """What an update must decide: ``candidates`` (sha → committer date) to place, in ``releases``
    (every release in order, new ones included), the other commits of each release kept."""

    releases: tuple[Release, ...]
    candidates: dict[str, datetime]
    kept: dict[str, frozenset[str]]  # tag → commits that stay in the release whatever is decided
    reopened: frozenset[str]  # commits taken back from a release to be placed again


def plan_placement(existing: Iterable[Release], new: Iterable[Release], stored: Mapping[str, datetime]) -> Placement:
    """Which stored commits an update must place, and against which releases.

    ``existing``: the stored releases of one repository (still release tags); ``new``: releases
    of new or moved tags (a moved tag's new record replaces its old one); ``stored``: sha →
    committer date of the repository's stored commits. The candidates are the stored commits in
    no release, plus the commits of every existing release that comes at or after the earliest
    new release (a new earlier tag, such as a release candidate once the pattern counts them, may
    have released them first). A commit listed by two releases is kept by the earlier only.
    """
    new_by_tag = {release.tag: release for release in new}
    kept_releases = [release for release in existing if release.tag not in new_by_tag]
    replaced = [release for release in existing if release.tag in new_by_tag]
    releases = tuple(sorted([*kept_releases, *new_by_tag.values()], key=release_order))
    earliest_new = min((release_order(release) for release in new_by_tag.values()), default=None)
    reopened: set[str] = {sha for release in replaced for sha in release.commits}
    kept: dict[str, frozenset[str]] = {}
    taken: set[str] = set()
    for release in sorted(kept_releases, key=release_order):
        if earliest_new is not None and release_order(release) >= earliest_new:
            reopened.update(release.commits)
            kept[release.tag] = frozenset()
            continue
        own = frozenset(sha for sha in release.commits if sha not in taken)
        taken.update(own)
        kept[release.tag] = own
    for release in new_by_tag.values():
        kept[release.tag] = frozenset()
    reopened -= taken
    candidates = {sha: moment for sha, moment in stored.items() if sha in reopened or sha not in taken}
    return Placement(releases=releases, candidates=candidates, kept=kept, reopened=frozenset(reopened))


def apply_placement(plan: Placement, first_release: Mapping[str, str]) -> list[Release]:
    """Every release of the plan with its commits: the kept ones and the candidates whose first
    release (``first_release``: sha → tag, from the source) it is."""
    placed: dict[str, set[str]] = {release.tag: set(plan.kept[release.tag]) for release in plan.releases}
    for sha, tag in first_release.items():
        if sha in plan.candidates and tag in placed:
            placed[tag].add(sha)
    return [release.model_copy(update={"commits": tuple(sorted(placed[release.tag]))}) for release in plan.releases]


def first_release_by_order(
    releases: Sequence[Release], contained: Mapping[str, set[str]], candidates: Iterable[str]
) -> dict[str, str]:
    """sha → tag of the first release (``releases`` in order) whose ``contained`` set holds it."""
    remaining = set(candidates)
    found: dict[str, str] = {}
    for release in releases:
        hits = remaining & contained.get(release.tag, set())
        for sha in hits:
            found[sha] = release.tag
        remaining -= hits
    return found
