"""What templates call to show what a commit means: its relations (reverts, references), its
series, its release, its operator changes cut to a listing's or a commit page's budget.

Beside ``naming.SiteNaming`` and ``fragments.Fragments``, which it reads; the impact, release and
series views and every listing's template use it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from commit_digest.meaning.impact.extract import OperatorChange
from commit_digest.meaning.relations.relation import Relation
from commit_digest.meaning.relations.series import Series
from commit_digest.site import paths
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.facts import SiteFacts
from commit_digest.site.model.weeks import WeekLine
from commit_digest.site.rendering.budget import size
from commit_digest.site.rendering.escape import title_html
from commit_digest.site.rendering.fragments import Fragments
from commit_digest.site.rendering.impact_view import (
    COMMIT_IMPACT_BYTES,
    ENTRY_IMPACT_BYTES,
    ENTRY_IMPACT_LINES,
    ImpactCut,
    cut_changes,
    kind_name,
    kinds_of,
    platforms_of,
)
from commit_digest.site.rendering.naming import SiteNaming


class Meaning:
    """What templates call to show a commit's facts; every method returns escaped or trusted Markup."""

    def __init__(self, context: SiteNaming, fragments: Fragments) -> None:
        self.context = context
        self.fragments = fragments
        self.facts: SiteFacts = context.index.facts

    def page_values(self, src_uri: str) -> dict[str, Any]:
        """The helpers that link from the page at ``src_uri``."""
        return {
            "relation_html": lambda relation, dated=True: self.relation_html(src_uri, relation, dated=dated),
        }

    def values(self) -> dict[str, Any]:
        """The helpers every page sees alike."""
        return {
            "facts": self.facts,
            "impact_kind_name": lambda kind: kind_name(kind, self.context.texts),
            "release_page": self.release_page,
            "series_page": lambda series: paths.series_page(series.slug),
            "series_progress": self.series_progress,
            "part_of": _part_of,
            "entry_platforms": self.entry_platforms,
            "impact_cut": self.impact_cut,
            "line_impact": self.line_impact,
            "commit_impact": self.commit_impact,
            "entry_kinds": lambda item: " ".join(kinds_of(self.facts.impact(item).changes)),
            "impact_index": paths.IMPACT_INDEX,
            "impact_month_page": paths.impact_month_page,
            "releases_index": paths.RELEASES_INDEX,
            "unreleased_page": paths.UNRELEASED,
            "series_index": paths.SERIES_INDEX,
            # Empty for a tag sample data made up: it names nothing on GitHub.
            "github_tag_url": lambda release: (
                Markup("https://github.com/%s/releases/tag/%s") % (release.repository, quote(release.tag, safe=""))
                if self._real_tag(release.tag)
                else Markup("")
            ),
            "github_compare_url": lambda base, release: (
                Markup("https://github.com/%s/compare/%s...%s")
                % (release.repository, quote(base.tag, safe=""), quote(release.tag, safe=""))
                if self._real_tag(base.tag) and self._real_tag(release.tag)
                else Markup("")
            ),
            "sample_release": lambda release: not self._real_tag(release.tag),
        }

    def _real_tag(self, tag: str) -> bool:
        sample = self.context.index.sample
        return sample is None or sample.links_tag(tag)

    @cached_property
    def _release_pages(self) -> dict[tuple[str, str], str]:
        keys = (view.release.key for view in self.facts.releases)
        return paths.release_pages(keys, self.context.index.several_repositories)

    def release_page(self, release: Any) -> str:
        """The page of a release the site shows (the releases index and every link use this one map)."""
        return self._release_pages[release.key]

    def impact_cut(self, item: SiteCommit, lines: int = ENTRY_IMPACT_LINES) -> ImpactCut:
        """A listing's operator changes of ``item``: the first few, the rest on the commit's page."""
        return cut_changes(self.facts.impact(item).changes, self._line_size, budget=ENTRY_IMPACT_BYTES, lines=lines)

    def line_impact(self, line: WeekLine, lines: int = ENTRY_IMPACT_LINES) -> tuple[ImpactCut, SiteCommit | None]:
        """A week line's operator changes (of all its commits) cut as a listing's, and the commit
        whose page lists the first change left out (None when none is)."""
        found = [(item, change) for item in line.commits for change in self.facts.impact(item).changes]
        cut = cut_changes([change for _, change in found], self._line_size, budget=ENTRY_IMPACT_BYTES, lines=lines)
        return cut, found[len(cut.shown)][0] if cut.more else None

    def commit_impact(self, item: SiteCommit) -> ImpactCut:
        """A commit page's operator changes: as many as its budget holds, the rest in the diff."""
        return cut_changes(self.facts.impact(item).changes, self._line_size, budget=COMMIT_IMPACT_BYTES)

    @cached_property
    def _line_size(self) -> Callable[[OperatorChange], int]:
        impact_list = self.fragments.impact_list
        around = size(impact_list(()))  # the list's own tags, once per list
        return lambda change: size(impact_list((change,))) - around

    def relation_html(self, src_uri: str, relation: Relation, *, dated: bool = True) -> Markup:
        texts = self.context.texts
        other = self.facts.commit(relation.other)
        if other is not None:
            href = paths.href(src_uri, self.context.commit_page(other), self.context.options.directory_urls)
            when = Markup(' <span class="digest-nowrap">%s</span>') % other.day.isoformat() if dated else Markup("")
            return Markup('<a href="%s">%s</a>%s') % (href, title_html(other.title), when)
        if relation.reference is not None:
            repository, number = relation.reference
            label = texts("related_reference", repository=repository, number=number)
            return Markup('<a href="%s" rel="nofollow">%s</a>') % (relation.url, label)
        return texts("none")

    def series_progress(self, series: Series) -> Markup:
        texts = self.context.texts
        if series.total is None:
            return texts("series_progress_open", landed=series.landed)
        progress = texts("series_progress", landed=series.landed, total=series.total)
        if series.missing:
            progress += texts("list_separator") + texts(
                "series_missing", parts=", ".join(str(part) for part in series.missing), count=len(series.missing)
            )
        return progress

    def entry_platforms(self, item: SiteCommit) -> str:
        """The platforms an impact entry is filtered by: its commit's and its changes' own (a
        requirements/rocm.txt bump is ROCm's even when the commit carries no ROCm label)."""
        found = dict.fromkeys(label.id for label in item.platforms)
        found.update(dict.fromkeys(platforms_of(self.facts.impact(item).changes)))
        return " ".join(found)


def _part_of(series: Series, item: SiteCommit) -> int | None:
    key = (item.repository, item.sha)
    return next((part for part, found in series.parts if found == key), None)
