"""What a commit means beyond its analysis: the operator changes in its diff, the commits it is
related to (reverts, fixes, follow-ups, its series) and the first release that carries it.

All of it is derived at build time from what the store holds (patches under each repository's
impact rules, every commit's title and message, the release records the fetch wrote): nothing
here is paid for, so a changed rule or a new tag re-derives the archive with no LLM call. Pure:
site commits, releases and rules in; answers per commit out, each computed when first asked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from commit_digest.meaning.impact.extract import OperatorImpact
from commit_digest.meaning.impact.rules import ImpactRules
from commit_digest.meaning.relations.relate import Relations, relate
from commit_digest.meaning.relations.relation import Relation, RelationKind
from commit_digest.meaning.relations.series import Series
from commit_digest.meaning.releases import Release, first_release_of
from commit_digest.site.fingerprint import digest
from commit_digest.site.model.commit import SiteCommit, commit_impact

CommitKey = tuple[str, str]


# page_input of a commit with no relation, no series and no release, by knows_releases.
_NO_FACTS = {known: digest("facts", [], None, None, known) for known in (False, True)}

@dataclass(frozen=True)
class SiteRelease:
    """A release as the site shows it: what it brought (the commits it first carries, of the site's)."""

    release: Release
    commits: tuple[SiteCommit, ...]  # newest first
    previous: Release | None  # the release of its repository before it: the compare link's base

    @property
    def tag(self) -> str:
        return self.release.tag

    @property
    def repository(self) -> str:
        return self.release.repository


class SiteFacts:
    """The facts of the site's commits. ``commits`` newest first; ``releases`` the store's records;
    ``rules`` each repository's impact rules (the default rules for one not named)."""

    def __init__(
        self,
        commits: Sequence[SiteCommit] = (),
        *,
        releases: Sequence[Release] = (),
        rules: Mapping[str, ImpactRules] | None = None,
    ) -> None:
        self._commits = tuple(commits)
        self._releases = tuple(releases)
        self._rules = dict(rules or {})
        self._impacts: dict[CommitKey, OperatorImpact] = {}

    # -- lookups --------------------------------------------------------------------------

    @cached_property
    def by_key(self) -> dict[CommitKey, SiteCommit]:
        return {(item.repository, item.sha): item for item in self._commits}

    def commit(self, key: CommitKey | None) -> SiteCommit | None:
        return None if key is None else self.by_key.get(key)

    # -- operator impact ------------------------------------------------------------------

    def impact(self, item: SiteCommit) -> OperatorImpact:
        key = (item.repository, item.sha)
        if item.impact is not None:  # found when the index was made, while the record was at hand
            return item.impact
        found = self._impacts.get(key)
        if found is None:
            found = commit_impact(item.record.commit, self._rules.get(item.repository))
            self._impacts[key] = found
        return found

    @cached_property
    def impact_commits(self) -> tuple[SiteCommit, ...]:
        """The commits whose diff changes what operators configure, newest first."""
        return tuple(item for item in self._commits if self.impact(item).changes)

    # -- related commits ------------------------------------------------------------------

    @cached_property
    def relations(self) -> Relations:
        return relate(self._commits, links=lambda key: self.by_key[key].links)

    def related(self, item: SiteCommit) -> tuple[Relation, ...]:
        return self.relations.of((item.repository, item.sha))

    def series_of(self, item: SiteCommit) -> Series | None:
        return self.relations.series_of((item.repository, item.sha))

    def reverted_by(self, item: SiteCommit) -> Relation | None:
        """The newest revert of this commit when it is reverted still (not restored since)."""
        if not self.relations.reverted((item.repository, item.sha)):
            return None
        reverts = [relation for relation in self.related(item) if relation.kind is RelationKind.REVERTED_BY]
        return reverts[-1] if reverts else None

    def restored(self, item: SiteCommit) -> bool:
        """Reverted once, and brought back by a revert of the revert."""
        reverted = any(relation.kind is RelationKind.REVERTED_BY for relation in self.related(item))
        return reverted and not self.relations.reverted((item.repository, item.sha))

    # -- releases ---------------------------------------------------------------------------

    @cached_property
    def _first_release(self) -> dict[CommitKey, Release]:
        return first_release_of(self._releases)

    @cached_property
    def _released_repositories(self) -> frozenset[str]:
        return frozenset(release.repository for release in self._releases)

    def release(self, item: SiteCommit) -> Release | None:
        return self._first_release.get((item.repository, item.sha))

    def knows_releases(self, item: SiteCommit) -> bool:
        """Whether the store has the releases of the commit's repository ("not yet released" is then a fact)."""
        return item.repository in self._released_repositories

    @cached_property
    def releases(self) -> tuple[SiteRelease, ...]:
        """Every release, newest first, with the site's commits it first carries."""
        carried: dict[tuple[str, str], list[SiteCommit]] = {}
        for item in self._commits:  # newest first
            release = self.release(item)
            if release is not None:
                carried.setdefault((release.repository, release.tag), []).append(item)
        ordered = sorted(self._releases, key=lambda release: (release.tagged_at, release.repository, release.tag))
        previous: dict[str, Release] = {}
        views = []
        for release in ordered:
            views.append(
                SiteRelease(
                    release, tuple(carried.get((release.repository, release.tag), ())), previous.get(release.repository)
                )
            )
            previous[release.repository] = release
        return tuple(reversed(views))

    @cached_property
    def unreleased(self) -> tuple[SiteCommit, ...]:
        """The commits of repositories with known releases that no release carries yet, newest first."""
        return tuple(item for item in self._commits if self.knows_releases(item) and self.release(item) is None)

    # -- what a commit page shows besides its record ------------------------------------------

    def page_input(self, item: SiteCommit) -> str:
        """A digest of the facts a commit's page shows that its own record does not hold: its
        relations (and the titles they link), its series' parts and its release."""
        related = [
            (relation.kind.value, relation.other, relation.reference, self._title(relation.other))
            for relation in self.related(item)
        ]
        series = self.series_of(item)
        release = self.release(item)
        if not related and series is None and release is None:
            return _NO_FACTS[self.knows_releases(item)]  # most commits: one of two digests
        return digest(
            "facts",
            related,
            (series.slug, series.total, [(part, key) for part, key in series.parts]) if series else None,
            (release.tag, release.tagged_at.isoformat()) if release else None,
            self.knows_releases(item),
        )

    def _title(self, key: CommitKey | None) -> str | None:
        other = self.commit(key)
        return other.title if other else None
