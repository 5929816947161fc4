"""What a page's template sees: the build's names and fragments, the helpers that link from the
page, and what several views share (the weeks, the activity charts, the feeds).

One ``SiteContext`` per build (per language), made by ``views.registry`` and handed to every
view; every helper returns Markup built from trusted parts or escaped text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from markupsafe import Markup

from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import Label
from commit_digest.site import paths
from commit_digest.site.model.calendar import IsoWeek
from commit_digest.site.model.commit import RepositoryChip
from commit_digest.site.model.index import Day, SiteIndex
from commit_digest.site.model.weeks import HIGHLIGHT_LINES, SECTION_LINES, previous_days, weeks_of
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.charts import ActivityCounts, Chart, render_chart
from commit_digest.site.rendering.escape import TITLE_SHOWN
from commit_digest.site.rendering.feed_list import Feed, feeds_of_page, site_feeds
from commit_digest.site.rendering.fragments import Fragments, PageFragments, clock, heading
from commit_digest.site.rendering.meaning import Meaning
from commit_digest.site.rendering.naming import SiteNaming


@dataclass(frozen=True)
class WeekRow:
    week: IsoWeek
    total: int
    high: int
    change: int  # against the week before


class SiteContext(SiteNaming):
    """Helpers the templates call; every one returns Markup built from trusted parts or escaped text."""

    def __init__(self, index: SiteIndex, taxonomy: Taxonomy, options: SiteOptions) -> None:
        super().__init__(index, taxonomy, options)
        self.fragments = Fragments(self)
        self.meaning = Meaning(self, self.fragments)

    def for_page(self, src_uri: str, **values: Any) -> dict[str, Any]:
        """What a page's template sees: the build's helpers, those that link from this page, ``values``."""
        directory_urls = self.options.directory_urls
        page = PageFragments(self.fragments, src_uri, directory_urls)
        return {
            **self._shared_values,
            "link": page.link,
            "chips": page.chips,
            "label_links": page.label_links,
            "commit_rows": page.commit_rows,
            "feed_href": lambda feed: paths.href(src_uri, feed.path, directory_urls, file=True),
            **self.meaning.page_values(src_uri),
            **values,
        }

    @cached_property
    def _shared_values(self) -> dict[str, Any]:
        """The helpers and constants every page's template sees alike: made once per build."""
        fragments = self.fragments
        return {
            "t": self.texts,
            "day_page": paths.day_page,
            "commit_page": self.commit_page,
            "month_page": paths.month_page,
            "label_page": paths.label_page,
            "label_month_page": paths.label_month_page,
            "label_name": self.label_name,
            "label_description": self.label_description,
            "label_counts": self.label_counts,
            "type_name": self.type_name,
            "status_name": self.status_name,
            "format_time": self.format_time,
            "analysed_by": self.analysed_by,
            "clock": clock,
            # Empty for what sample data made up: a made-up sha or PR number is never linked.
            "web_url": lambda item: Markup(item.summary.web_url if self._links_commit(item.sha) else ""),
            "pr_url": lambda item: Markup((item.summary.pr_url or "") if self._links_pull_request(item.sha) else ""),
            "sample_mark": self._sample_mark,
            # A date is one word to a reader: never broken at its hyphens.
            "nowrap": lambda text: Markup('<span class="digest-nowrap">%s</span>') % text,
            "several_repositories": self.index.several_repositories,
            "week_page": paths.week_page,
            "weeks_index": paths.WEEKS_INDEX,
            "home": paths.HOME,
            "subscribe": paths.SUBSCRIBE,
            "change_text": self.change_text,
            "feeds_of": lambda page: feeds_of_page(self.feeds, page),
            "feed_url": lambda feed: feed.url(self.options.site_url),
            "label_anchor": _label_anchor,
            "brief_of": self.index.brief,
            "cite_mark": _cite_mark,
            "label_ids": _label_ids,
            "related_text": self.related_text,
            "highlight_limit": HIGHLIGHT_LINES,
            "section_limit": SECTION_LINES,
            "heading": heading,
            "badge": fragments.badge,
            "stats_line": fragments.stats_line,
            "status_note": fragments.status_note,
            "impact_list": fragments.impact_list,
            "analysis_sections": fragments.analysis_sections,
            "clipped_analysis_sections": fragments.clipped_analysis_sections,
            "title_shown": TITLE_SHOWN,
            "repository_chip": RepositoryChip,
            **self.meaning.values(),
        }

    def _links_commit(self, sha: str) -> bool:
        return self.index.sample is None or self.index.sample.links_commit(sha)

    def _links_pull_request(self, sha: str) -> bool:
        return self.index.sample is None or self.index.sample.links_pull_request(sha)

    def _sample_mark(self, sha: str) -> Markup:
        """What a commit page says of a commit the sample made up, or of its placeholder sha."""
        sample = self.index.sample
        if sample is None or sample.links_commit(sha):
            return Markup("")
        key = "sample_invented" if sha in sample.invented else "sample_placeholder"
        return Markup('<p class="digest-sample admonition info" role="note">%s</p>') % self.texts(key)

    @cached_property
    def weeks(self) -> list[tuple[IsoWeek, tuple[Day, ...]]]:
        """The weeks with commits, newest first, each with its days oldest first."""
        return weeks_of(self.index)

    @cached_property
    def activity(self) -> ActivityCounts:
        """Commits per label per week over the last weeks: one pass over the newest commits."""
        return ActivityCounts.of(self.index)

    def chart(self, uri: str, chart: Chart) -> Markup:
        link = lambda target: paths.href(uri, target, self.options.directory_urls)  # noqa: E731
        return render_chart(chart, texts=self.texts, name=self.label_name, link=link)

    @cached_property
    def feeds(self) -> list[Feed]:
        return site_feeds(self.index, self.taxonomy, self.options)

    @cached_property
    def week_rows(self) -> list[WeekRow]:
        """A line per week for the listings: its commits, high-importance ones, change."""
        rows = []
        for position, (week, days) in enumerate(self.weeks):
            total = sum(len(day.commits) for day in days)
            high = sum(day.stats.high for day in days)
            before = sum(len(day.commits) for day in previous_days(self.weeks, position))
            rows.append(WeekRow(week, total, high, total - before))
        return rows


def _label_anchor(kind: str, label_id: str) -> str:
    """A heading id for a label on a week page (a repository's owner/name holds a slash)."""
    return f"{kind}-{label_id.replace('/', '-')}"


def _cite_mark(item: Any) -> str:
    """How a brief shows a commit it cites: its PR number, which readers of the project know it
    by, else its short sha as GitHub shortens it."""
    return f"#{item.pr_number}" if item.pr_number else item.short_sha[:7]


def _label_ids(labels: tuple[Label, ...]) -> str:
    """The labels' ids, space-separated (an entry's filter attribute): plain text, escaped on output.
    What `map(attribute="id") | join(" ")` printed, without two filters' generators per entry."""
    return " ".join(label.id for label in labels)
