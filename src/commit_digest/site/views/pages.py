"""Page specs: which page the site gets at which path, from the site index.

``generate_pages`` is the whole site as data; the MkDocs plugin only turns specs into files.
A spec renders its HTML when asked (``PageSpec.render``), so a build holds one page's HTML at a
time and a page nobody asks for is never rendered.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from functools import cached_property
from typing import Any
from zoneinfo import ZoneInfo

from markupsafe import Markup

from commit_digest.meaning.taxonomy import LabelRule, Taxonomy
from commit_digest.models import AnalysisStatus, Label
from commit_digest.site import paths
from commit_digest.site.fingerprint import digest
from commit_digest.site.model.calendar import IsoWeek
from commit_digest.site.model.index import GROUP_ORDER, Day, RepositoryChip, SiteCommit, SiteIndex, SiteRepository
from commit_digest.site.model.weeks import (
    HIGHLIGHT_LINES,
    SECTION_LINES,
    LabelWeek,
    previous_days,
    week_summary,
    weeks_of,
)
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.budget import LIST_PAGE_BUDGET, first_within
from commit_digest.site.rendering.charts import ActivityCounts, Chart, render_chart
from commit_digest.site.rendering.commit_view import FILES_SHOWN, commit_view
from commit_digest.site.rendering.escape import TITLE_SHOWN, html_text, title_plain
from commit_digest.site.rendering.fragments import Fragments, PageFragments, clock, heading
from commit_digest.site.rendering.i18n import Texts
from commit_digest.site.rendering.markdown_body import BODY_LIMIT
from commit_digest.site.rendering.reasons import reason_html
from commit_digest.site.rendering.render import render
from commit_digest.site.views.feeds import FEED_SIZE, Feed, feeds_of_page, site_feeds
from commit_digest.site.views.meaning_pages import Meaning, impact_pages, release_pages, series_pages

LABEL_KINDS = ("platforms", "subsystems")
# A day page's commit sections (after its table): full analyses while they keep under the first
# budget, then first summary bullets under the second, then only each commit's line of links.
# All of it keeps under the third, room kept for the line of links of every commit to come:
# with the theme around it and the table of contents, the page stays under 150 KB however long
# the analyses are (a day of ~150 commits would fill it with their lines of links alone).
DAY_SECTIONS_BUDGET = 60_000
DAY_SUMMARIES_BUDGET = 80_000
DAY_ENTRIES_LIMIT = 115_000
# The home page's content keeps under this many bytes (the theme adds about 20 KB around it).
HOME_BUDGET = 120_000
# A commit page's forms, fullest first, as (characters of the message and of the PR description,
# files listed, characters per analysis text or None for whole): the first within LIST_PAGE_BUDGET
# is written. Only a commit far past any real one (a 200,000-character message, thousands of
# files, an analysis at the store's caps) gets past the first.
COMMIT_PAGE_FORMS: tuple[tuple[int, int, int | None], ...] = (
    (BODY_LIMIT, FILES_SHOWN, None),
    (4_000, 20, None),
    (4_000, 20, 600),
    (2_000, 10, 300),
    (1_000, 0, 150),
)
_HEADING = re.compile(r'<h([1-3]) id="([^"]+)">(.*?)<a class="headerlink"', re.S)
_LINK_IN_HEADING = re.compile(r"</?a\b[^>]*>")


@dataclass(frozen=True)
class Heading:
    level: int
    id: str
    title: str  # HTML (escaped text) as the page shows it


@dataclass(frozen=True)
class RenderedPage:
    html: str
    headings: tuple[Heading, ...]


@dataclass(frozen=True)
class PageSpec:
    src_uri: str
    title: str  # plain text (untrusted for commit pages): whoever puts it in HTML escapes it
    _render: Callable[[], str]
    # A digest of everything this page shows that is not shared by every page (shared inputs —
    # code, theme, configuration, taxonomy — are the build's). Equal inputs, equal page: an
    # incremental build reuses the previous output. "" for pages always rendered (nav pages).
    inputs: str = ""
    # Pages of one group are best rendered together (a day page and its commits' pages share
    # their commits' rendered analyses); "" for pages of no group.
    group: str = ""

    def render(self) -> RenderedPage:
        """The page's content HTML and its headings (for the table of contents)."""
        html = self._render()
        headings = tuple(
            Heading(int(level), anchor, _LINK_IN_HEADING.sub("", title).strip())
            for level, anchor, title in _HEADING.findall(html)
        )
        return RenderedPage(html, headings)


@dataclass(frozen=True)
class WeekRow:
    week: IsoWeek
    total: int
    high: int
    change: int  # against the week before


def _plain(text: Markup) -> str:
    return text.unescape()


def _size(html: str) -> int:
    return len(html.encode("utf-8"))


class _Context:
    """Helpers the templates call; every one returns Markup built from trusted parts or escaped text."""

    def __init__(self, index: SiteIndex, taxonomy: Taxonomy, options: SiteOptions) -> None:
        self.index = index
        self.taxonomy = taxonomy
        self.options = options
        self.texts = Texts(options.language)
        self.zone = ZoneInfo(options.timezone)
        self._zone_name = html_text(options.timezone)  # shown after every time on the site
        self.meaning = Meaning(self)
        self.fragments = Fragments(self)

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
            "clock": clock,
            "web_url": lambda item: Markup(item.summary.web_url),
            "pr_url": lambda item: Markup(item.summary.pr_url or ""),
            "model_name": _model_name,
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

    def commit_page(self, item: SiteCommit) -> str:
        return paths.commit_page(item.sha, item.repository if self.index.several_repositories else None)

    @property
    def label_kinds(self) -> tuple[str, ...]:
        """Platforms and subsystems; and repositories, on a site of several."""
        return (*LABEL_KINDS, "repositories") if self.index.several_repositories else LABEL_KINDS

    def _rule(self, kind: str, label_id: str) -> LabelRule | None:
        return self.taxonomy.platform(label_id) if kind == "platforms" else self.taxonomy.subsystem(label_id)

    def _repository(self, name: str) -> SiteRepository | None:
        return next((item for item in self.index.repositories if item.name == name), None)

    def label_name(self, kind: str, label_id: str) -> Markup:
        if kind == "repositories":
            repository = self._repository(label_id)
            return html_text(repository.title if repository else label_id)
        rule = self._rule(kind, label_id)
        return html_text(rule.name.in_language(self.options.language) if rule else label_id)

    def label_description(self, kind: str, label_id: str) -> Markup:
        if kind == "repositories":
            return html_text(label_id)
        rule = self._rule(kind, label_id)
        if rule is None:
            return self.texts("unknown_label")
        return html_text(rule.description.in_language(self.options.language)) if rule.description else Markup("")

    def label_counts(self, day: Day, kind: str) -> list[tuple[str, int]]:
        if kind == "repositories":
            order = [item.name for item in self.index.repositories]
        else:
            order = [rule.id for rule in (self.taxonomy.platforms if kind == "platforms" else self.taxonomy.subsystems)]
        return day.label_counts(kind, order)

    def change_text(self, change: int) -> Markup:
        """ "▲ 6", "▼ 2" or "no change": never a colour alone."""
        if change > 0:
            return self.texts("change_up", count=change)
        if change < 0:
            return self.texts("change_down", count=-change)
        return self.texts("change_none")

    def related_text(self, label: LabelWeek) -> Markup:
        kind = label.related_kind or "subsystems"
        parts = [
            self.texts("week_related", name=self.label_name(kind, other), count=count) for other, count in label.related
        ]
        return self.texts("list_separator").join(parts)

    def label_reason(self, label: Label) -> Markup:
        return reason_html(label, self.texts)

    def type_name(self, item: SiteCommit) -> Markup:
        return self.texts.change_type(item.change_type) if item.change_type else Markup("-")

    def status_name(self, status: AnalysisStatus | str) -> Markup:
        return self.texts(f"status_{AnalysisStatus(status).value}")

    def format_time(self, moment: datetime) -> Markup:
        local = moment.astimezone(self.zone)
        return Markup(f"{local.strftime('%Y-%m-%d %H:%M:%S')} ({self._zone_name})")

    def insight_items(self, analysis: Any) -> list[tuple[Markup, str]]:
        insights = analysis.insights
        return [
            (self.texts(f"insight_{name}"), getattr(insights, name))
            for name in ("architecture", "performance", "security", "maintainability", "compatibility")
            if getattr(insights, name)
        ]


def _label_anchor(kind: str, label_id: str) -> str:
    """A heading id for a label on a week page (a repository's owner/name holds a slash)."""
    return f"{kind}-{label_id.replace('/', '-')}"


def _label_ids(labels: tuple[Label, ...]) -> str:
    """The labels' ids, space-separated (an entry's filter attribute): plain text, escaped on output.
    What `map(attribute="id") | join(" ")` printed, without two filters' generators per entry."""
    return " ".join(label.id for label in labels)


def _model_name(analyzer: str) -> str:
    return analyzer.split(":", 1)[1] if analyzer.startswith("llm:") else "-"


def home_page(context: _Context) -> PageSpec:
    def content() -> str:
        """The newest ``days_on_home`` days, fewer when they would pass the home page's budget:
        a busy week (each commit listed under every platform it touches) drops its oldest days,
        never the newest, which stays whole however large."""
        days = list(context.index.days[: context.options.days_on_home])
        chart = context.chart(paths.HOME, context.activity.home_chart())
        while True:
            html = render(
                "home.html.j2",
                **context.for_page(paths.HOME, days=days, platform_choices=context.taxonomy.platform_ids, chart=chart),
            )
            if len(days) <= 1 or _size(html) <= HOME_BUDGET:
                return html
            days.pop()

    return PageSpec(paths.HOME, _plain(context.texts("home_title")), content)


def _day_sections(context: _Context, uri: str, day: Any) -> list[tuple[str, list[Markup]]]:
    """Each group's commit sections in importance order: full analyses until the first one that
    would pass the budget, then first summary bullets until theirs is spent, then title lines.
    Room is kept for the title lines of the commits after each one, so that a busy day shortens
    its last analyses, not its page."""
    page = context.for_page(uri)  # one page: its links made once for all its entries
    entries = [(name, item) for name in GROUP_ORDER for item in day.group(name)]
    titles = [render("day_commit.html.j2", **page, item=item, name=name, form="title") for name, item in entries]
    titles_after = sum(_size(html) for html in titles)
    used = 0
    forms = ["full", "summary"]
    groups: dict[str, list[Markup]] = {}
    for (name, item), title in zip(entries, titles, strict=True):
        titles_after -= _size(title)
        html = title
        while forms:
            form = forms[0]
            candidate = render("day_commit.html.j2", **page, item=item, name=name, form=form)
            budget = DAY_SECTIONS_BUDGET if form == "full" else DAY_SUMMARIES_BUDGET
            size = used + _size(candidate)
            if size <= budget and size + titles_after <= DAY_ENTRIES_LIMIT:
                html = candidate
                break
            forms.pop(0)
        used += _size(html)
        groups.setdefault(name, []).append(Markup(html))
    return list(groups.items())


def day_pages(context: _Context) -> Iterator[PageSpec]:
    days = context.index.days  # newest first
    for position, day in enumerate(days):
        uri = paths.day_page(day.date)
        newer = days[position - 1] if position > 0 else None
        older = days[position + 1] if position + 1 < len(days) else None

        def content(uri: str = uri, day: Any = day, newer: Any = newer, older: Any = older) -> str:
            groups = _day_sections(context, uri, day)
            # Only the kinds some commit of the day carries: a quiet day of unlabelled commits has no filter.
            found = {kind: context.label_counts(day, kind) for kind in context.label_kinds}
            filters = {kind: counts for kind, counts in found.items() if counts}
            values = {"day": day, "groups": groups, "newer": newer, "older": older, "filters": filters}
            return render("day.html.j2", **context.for_page(uri, **values))

        inputs = digest(
            "day",
            day.iso,
            [item.fingerprint for item in day.commits],
            [context.index.facts.reverted_by(item) is not None for item in day.commits],
            newer.iso if newer else None,
            older.iso if older else None,
        )
        yield PageSpec(uri, _plain(context.texts("day_title", date=day.iso)), content, inputs, group=day.iso)


def commit_pages(context: _Context) -> Iterator[PageSpec]:
    for day in context.index.days:
        for position, item in enumerate(day.commits):
            uri = context.commit_page(item)
            previous = day.commits[position - 1] if position > 0 else None
            following = day.commits[position + 1] if position + 1 < len(day.commits) else None

            def content(
                uri: str = uri, item: SiteCommit = item, previous: Any = previous, following: Any = following
            ) -> str:
                def form(body_limit: int, files_shown: int, analysis_chars: int | None) -> Callable[[], str]:
                    def rendered() -> str:
                        commit = item.record.commit
                        view = commit_view(commit, context.texts, body_limit=body_limit, files_shown=files_shown)
                        page = context.for_page(
                            uri,
                            item=item,
                            previous=previous,
                            following=following,
                            view=view,
                            analysis_chars=analysis_chars,
                        )
                        return render("commit.html.j2", **page)

                    return rendered

                return first_within(LIST_PAGE_BUDGET, (form(*shape) for shape in COMMIT_PAGE_FORMS))

            inputs = digest(
                "commit",
                item.fingerprint,
                context.index.facts.page_input(item),
                previous.fingerprint if previous else None,
                following.fingerprint if following else None,
            )
            yield PageSpec(uri, title_plain(item.title), content, inputs, group=day.iso)


def subscribe_page(context: _Context) -> PageSpec:
    """Every feed of the site, grouped as the navigation is, each with its address to copy."""
    groups: dict[str, list[Feed]] = {}
    for feed in context.feeds:
        groups.setdefault("site" if feed.kind in ("all", "high", "impact") else feed.kind, []).append(feed)
    counts = {
        (kind, label_id): len(commits)
        for kind, listing in (
            ("platforms", context.index.by_platform),
            ("subsystems", context.index.by_subsystem),
            ("repositories", context.index.by_repository),
        )
        for label_id, commits in listing.items()
    }
    return PageSpec(
        paths.SUBSCRIBE,
        _plain(context.texts("subscribe_title")),
        lambda: render(
            "subscribe.html.j2",
            **context.for_page(paths.SUBSCRIBE, groups=list(groups.items()), counts=counts, feed_size=FEED_SIZE),
        ),
    )


def week_pages(context: _Context) -> Iterator[PageSpec]:
    weeks = context.weeks
    yield PageSpec(
        paths.WEEKS_INDEX,
        _plain(context.texts("weeks_title")),
        lambda: render(
            "weeks_index.html.j2",
            **context.for_page(paths.WEEKS_INDEX, rows=context.week_rows, zone=context.options.timezone),
        ),
    )
    for position, (week, days) in enumerate(weeks):
        uri = paths.week_page(week)

        def content(uri: str = uri, position: int = position) -> str:
            summary = week_summary(
                context.index,
                weeks,
                position,
                platform_order=context.taxonomy.platform_ids,
                subsystem_order=context.taxonomy.subsystem_ids,
            )
            return render("week.html.j2", **context.for_page(uri, week=summary))

        narratives = sorted(
            (platform, note.fingerprint)
            for (week_id, platform), note in context.index.narratives.items()
            if week_id == week.id
        )
        inputs = digest(
            "week",
            week.id,
            [item.fingerprint for day in days for item in day.commits],
            [item.fingerprint for day in previous_days(weeks, position) for item in day.commits],
            narratives,
            weeks[position - 1][0].id if position > 0 else None,
            weeks[position + 1][0].id if position + 1 < len(weeks) else None,
        )
        yield PageSpec(uri, _plain(context.texts("week_title", week=week.id)), content, inputs)


def archive_pages(context: _Context) -> Iterator[PageSpec]:
    months = context.index.months
    yield PageSpec(
        paths.ARCHIVE_INDEX,
        _plain(context.texts("archive_title")),
        lambda: render(
            "archive_index.html.j2",
            **context.for_page(paths.ARCHIVE_INDEX, months=list(months.items()), week_rows=context.week_rows),
        ),
    )
    for month, days in months.items():
        uri = paths.month_page(month)
        yield PageSpec(
            uri,
            _plain(context.texts("month_title", month=month)),
            lambda uri=uri, month=month, days=days: render(
                "month.html.j2", **context.for_page(uri, month=month, days=days)
            ),
            digest("month", month, [(day.iso, [item.fingerprint for item in day.commits]) for day in days]),
        )


@dataclass(frozen=True)
class MonthPart:
    """One page of a label's month: ``part`` of ``parts``, its commits grouped by day."""

    month: str
    part: int
    parts: int
    total: int  # commits of the label in the month
    by_day: list[tuple[date, list[SiteCommit]]]


def _month_parts(commits: tuple[SiteCommit, ...], size: int) -> Iterator[MonthPart]:
    """A label's commits (newest first) cut by month, and a month over ``size`` commits into parts.

    A page's content depends only on its month's commits: adding a day changes the pages of
    that day's month and the label's index, nothing else.
    """
    by_month: dict[str, list[SiteCommit]] = {}
    for item in commits:
        by_month.setdefault(item.month, []).append(item)
    for month, items in by_month.items():
        parts = max(1, math.ceil(len(items) / size))
        for part in range(1, parts + 1):
            chunk = items[(part - 1) * size : part * size]
            yield MonthPart(month, part, parts, len(items), _group_by_day(chunk))


def label_pages(context: _Context, kind: str) -> Iterator[PageSpec]:
    listing = {
        "platforms": context.index.by_platform,
        "subsystems": context.index.by_subsystem,
        "repositories": context.index.by_repository,
    }[kind]
    index_uri = {
        "platforms": paths.PLATFORMS_INDEX,
        "subsystems": paths.SUBSYSTEMS_INDEX,
        "repositories": paths.REPOSITORIES_INDEX,
    }[kind]
    counts = [(label_id, len(commits)) for label_id, commits in listing.items()]
    yield PageSpec(
        index_uri,
        _plain(context.texts(f"{kind}_title")),
        lambda: render("label_index.html.j2", **context.for_page(index_uri, kind=kind, labels=counts)),
    )
    size = context.options.page_size
    for label_id, commits in listing.items():
        parts = list(_month_parts(commits, size))
        months: dict[str, int] = {part.month: part.total for part in parts}
        name = _plain(context.label_name(kind, label_id))
        uri = paths.label_page(kind, label_id)
        chart = context.activity.label_chart(kind, label_id) if kind in LABEL_KINDS else None
        values = {
            "kind": kind,
            "label_id": label_id,
            "description": context.label_description(kind, label_id),
            "total": len(commits),
            "months": list(months.items()),
            "latest": parts[0] if parts else None,
            "chart": (lambda uri=uri, chart=chart: context.chart(uri, chart) if chart else Markup("")),
        }
        latest = parts[0] if parts else None
        inputs = digest(
            "label",
            kind,
            label_id,
            len(commits),
            list(months.items()),
            [(part.month, part.part, part.parts) for part in parts],
            _part_fingerprints(latest),
            chart.digest_input() if chart else None,
        )
        yield PageSpec(
            uri, name, lambda uri=uri, values=values: render("label.html.j2", **context.for_page(uri, **values)), inputs
        )
        for part in parts:
            part_uri = paths.label_month_page(kind, label_id, part.month, part.part)
            title = f"{name} · {part.month}"
            if part.parts > 1:
                title += f" ({_plain(context.texts('page_of', page=part.part, pages=part.parts))})"
            yield PageSpec(
                part_uri,
                title,
                lambda part_uri=part_uri, part=part, label_id=label_id: render(
                    "label_month.html.j2",
                    **context.for_page(part_uri, kind=kind, label_id=label_id, latest=part),
                ),
                digest(
                    "label-month",
                    kind,
                    label_id,
                    part.month,
                    part.part,
                    part.parts,
                    part.total,
                    _part_fingerprints(part),
                ),
            )


def _part_fingerprints(part: MonthPart | None) -> list[tuple[str, list[str]]]:
    if part is None:
        return []
    return [(day.isoformat(), [item.fingerprint for item in items]) for day, items in part.by_day]


def _group_by_day(commits: list[SiteCommit]) -> list[tuple[date, list[SiteCommit]]]:
    grouped: dict[date, list[SiteCommit]] = {}
    for item in commits:
        grouped.setdefault(item.day, []).append(item)
    return list(grouped.items())


def generate_pages(index: SiteIndex, taxonomy: Taxonomy, options: SiteOptions) -> Iterator[PageSpec]:
    """Every generated page; callers skip the paths a site owner wrote by hand."""
    context = _Context(index, taxonomy, options)
    yield home_page(context)
    yield from day_pages(context)
    yield from commit_pages(context)
    yield from archive_pages(context)
    yield from week_pages(context)
    yield from impact_pages(context, context.meaning, PageSpec)
    yield from release_pages(context, context.meaning, PageSpec)
    yield from series_pages(context, context.meaning, PageSpec)
    yield subscribe_page(context)
    for kind in context.label_kinds:
        yield from label_pages(context, kind)
