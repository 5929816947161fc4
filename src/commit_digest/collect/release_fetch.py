"""The release pipeline: after a fetch, bring each repository's releases up to date.

list the tags → keep the release tags (``release_tags``) → describe the new ones (and moved
ones) → place the stored commits that need it → store the releases that changed.

Only what is needed is recomputed: the stored commits in no release, and, when a new tag comes
before stored releases (a release candidate once the pattern counts them, a tag pushed late), the
commits of those later releases. A run with no new tag and no unplaced commit stores nothing and
sends only the tag listing. A source that stops (a rate limit) while describing new tags keeps
what it described: commits are placed with the tags known so far, and a later run that learns an
earlier tag takes them back from the later releases, so nothing is ever placed for good wrongly.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from commit_digest.collect.errors import SourceError
from commit_digest.legacy.importer import is_placeholder
from commit_digest.meaning.releases import Release, TagRef, apply_placement, is_release_tag, plan_placement, version_key
from commit_digest.store.analysis_store import AnalysisStore

logger = logging.getLogger("mkdocs.plugins.commit_digest.meaning.releases")

_NAMES_SHOWN = 8


@runtime_checkable
class ReleaseSource(Protocol):
    """What the release pipeline asks of a source (GitSource and GithubSource follow it)."""

    @property
    def repository(self) -> str: ...

    def list_tags(self) -> Iterator[TagRef]:
        """Every tag of the repository with the commit it points at."""
        ...

    def describe_release(self, tag: TagRef, branch: str | None) -> Release:
        """The record of a new release tag, with no commits yet."""
        ...

    def is_described(self, release: Release) -> bool:
        """Whether a stored release carries what this source needs to place commits with it."""
        ...

    def first_releases(self, releases: Sequence[Release], candidates: Mapping[str, datetime]) -> dict[str, str]:
        """sha → tag of the first of ``releases`` (in order) containing each candidate (sha → commit time)."""
        ...


@dataclass
class ReleaseReport:
    repository: str
    new: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # stored releases whose tags no longer match
    placed: int = 0  # commits whose first release was found or changed
    stopped: SourceError | None = None  # some new tags are not described yet: the next run continues

    @property
    def complete(self) -> bool:
        return self.stopped is None

    def summary(self) -> str:
        count = len(self.new)
        line = f"{self.repository}: {count} new release{'' if count == 1 else 's'}"
        if self.new:
            line += f" ({_names(self.new)})"
        line += f", {self.placed} commit{'' if self.placed == 1 else 's'} placed"
        if self.moved:
            line += f", {len(self.moved)} moved ({_names(self.moved)})"
        if self.dropped:
            line += f", {len(self.dropped)} no longer release tags ({_names(self.dropped)})"
        if self.stopped is not None:
            line += f"; stopped: {self.stopped}"
        return line


def update_releases(source: ReleaseSource, store: AnalysisStore, *, pattern: str, branch: str | None) -> ReleaseReport:
    """Brings the stored releases of ``source.repository`` up to date with its tags and stored commits.

    ``pattern`` is the regular expression of release tag names (``re.search``); ``branch`` the branch
    the commits were fetched from (None: the default branch). A SourceError while listing tags or
    placing commits propagates with nothing stored; one while describing new tags ends the
    describing, and what was described is stored (``ReleaseReport.stopped``).
    """
    repository = source.repository
    report = ReleaseReport(repository)
    listed = {tag.name: tag for tag in source.list_tags() if is_release_tag(tag.name, pattern)}
    stored_releases = {release.tag: release for release in store.releases(repository)}
    report.dropped = sorted((tag for tag in stored_releases if not is_release_tag(tag, pattern)), key=version_key)
    existing = {tag: release for tag, release in stored_releases.items() if tag not in report.dropped}
    fresh = sorted((name for name in listed if name not in existing), key=version_key, reverse=True)
    moved = sorted(
        (name for name, tag in listed.items() if name in existing and existing[name].sha != tag.sha),
        key=version_key,
        reverse=True,
    )
    stored = {
        record.commit.sha: record.commit.committed_at
        for record in store.records(repository)
        if not is_placeholder(record.commit.sha)
    }
    released = {sha for release in existing.values() for sha in release.commits}
    if not fresh and not moved and not report.dropped and not set(stored) - released:
        logger.debug("%s: no new release tag and no commit to place", repository)
        return report

    described: list[Release] = []
    for name in [*moved, *fresh]:
        try:
            described.append(source.describe_release(listed[name], branch))
        except SourceError as error:
            report.stopped = error
            break
        (report.moved if name in existing else report.new).append(name)
    report.new.sort(key=version_key)
    report.moved.sort(key=version_key)
    kept = [release for release in existing.values() if release.tag not in report.moved]
    plan = plan_placement(kept, described, stored)
    if plan.candidates and report.stopped is None:
        kept = _refreshed(source, kept, listed, branch, report)
        plan = plan_placement(kept, described, stored)
    first = source.first_releases(plan.releases, plan.candidates) if plan.candidates else {}
    results = apply_placement(plan, first)

    before = {sha: release.tag for release in stored_releases.values() for sha in release.commits}
    report.placed = sum(1 for sha, tag in first.items() if sha in plan.candidates and before.get(sha) != tag)
    for tag in report.dropped:
        store.delete_release(repository, tag)
    for release in results:
        store.put_release(release)
    return report


def _refreshed(
    source: ReleaseSource,
    releases: list[Release],
    listed: Mapping[str, TagRef],
    branch: str | None,
    report: ReleaseReport,
) -> list[Release]:
    """``releases`` with those this source cannot place commits with described anew, their commits
    kept (a release made from a clone, placed with the GitHub API once)."""
    refreshed = []
    for release in releases:
        tag = listed.get(release.tag)
        if tag is not None and report.stopped is None and not source.is_described(release):
            try:
                described = source.describe_release(tag, branch)
            except SourceError as error:
                report.stopped = error
            else:
                release = described.model_copy(update={"commits": release.commits})
        refreshed.append(release)
    return refreshed


def _names(tags: Sequence[str]) -> str:
    shown = ", ".join(tags[:_NAMES_SHOWN])
    return shown + (f" and {len(tags) - _NAMES_SHOWN} more" if len(tags) > _NAMES_SHOWN else "")
