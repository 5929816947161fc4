"""Page specs: which Markdown page the site gets at which path, from the site index.

``generate_pages`` is the whole site as data; the MkDocs plugin only turns specs into files.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from markupsafe import Markup

from commit_digest.models import AnalysisStatus
from commit_digest.site import paths
from commit_digest.site.escape import inline_text
from commit_digest.site.i18n import Texts
from commit_digest.site.model import GROUP_ORDER, SiteCommit, SiteIndex
from commit_digest.site.options import SiteOptions
from commit_digest.site.render import render
from commit_digest.taxonomy import LabelRule, Taxonomy

LABEL_KINDS = ("platforms", "subsystems")


@dataclass(frozen=True)
class PageSpec:
    src_uri: str
    markdown: str
    title: str  # plain text (untrusted for commit pages): whoever puts it in HTML escapes it


def _plain(text: Markup) -> str:
    return text.unescape()


class _Context:
    """Helpers the templates call; every one returns Markup built from trusted parts or escaped text."""

    def __init__(self, index: SiteIndex, taxonomy: Taxonomy, options: SiteOptions) -> None:
        self.index = index
        self.taxonomy = taxonomy
        self.options = options
        self.texts = Texts(options.language)
        self.zone = ZoneInfo(options.timezone)

    def for_page(self, src_uri: str, **values: Any) -> dict[str, Any]:
        texts = self.texts
        return {
            "t": texts,
            "link": lambda target: paths.link(src_uri, target),
            "day_page": paths.day_page,
            "commit_page": paths.commit_page,
            "month_page": paths.month_page,
            "label_page": paths.label_page,
            "label_name": self.label_name,
            "label_description": self.label_description,
            "type_name": self.type_name,
            "importance_name": self.importance_name,
            "status_name": lambda status: texts(f"status_{AnalysisStatus(status).value}"),
            "format_time": self.format_time,
            "clock": lambda item: Markup(item.local_time.strftime("%H:%M")),
            "web_url": lambda item: Markup(item.record.commit.web_url),
            "pr_url": lambda item: Markup(item.record.commit.pr_url or ""),
            "model_name": _model_name,
            "insight_items": self.insight_items,
            "hashes": lambda level: Markup("#" * int(level)),
            **values,
        }

    def _rule(self, kind: str, label_id: str) -> LabelRule | None:
        return self.taxonomy.platform(label_id) if kind == "platforms" else self.taxonomy.subsystem(label_id)

    def label_name(self, kind: str, label_id: str) -> Markup:
        rule = self._rule(kind, label_id)
        return inline_text(rule.name.in_language(self.options.language) if rule else label_id)

    def label_description(self, kind: str, label_id: str) -> Markup:
        rule = self._rule(kind, label_id)
        if rule is None:
            return self.texts("unknown_label")
        return (
            inline_text(rule.description.in_language(self.options.language))
            if rule.description
            else Markup("")
        )

    def type_name(self, item: SiteCommit) -> Markup:
        return self.texts.change_type(item.change_type) if item.change_type else Markup("-")

    def importance_name(self, item: SiteCommit) -> Markup:
        return self.texts(f"importance_{item.group}" if item.group != "unanalysed" else "importance_none")

    def format_time(self, moment: datetime) -> Markup:
        local = moment.astimezone(self.zone)
        return Markup(f"{local.strftime('%Y-%m-%d %H&#58;%M&#58;%S')} ({inline_text(self.options.timezone)})")

    def insight_items(self, analysis: Any) -> list[tuple[Markup, str]]:
        insights = analysis.insights
        return [
            (self.texts(f"insight_{name}"), getattr(insights, name))
            for name in ("architecture", "performance", "security", "maintainability", "compatibility")
            if getattr(insights, name)
        ]


def _model_name(analyzer: str) -> str:
    return analyzer.split(":", 1)[1] if analyzer.startswith("llm:") else "-"


def home_page(context: _Context) -> PageSpec:
    days = context.index.days[: context.options.days_on_home]
    markdown = render("home.md.j2", **context.for_page(paths.HOME, days=days))
    return PageSpec(paths.HOME, markdown, _plain(context.texts("home_title")))


def day_pages(context: _Context) -> Iterator[PageSpec]:
    for day in context.index.days:
        uri = paths.day_page(day.date)
        groups = [(name, day.group(name)) for name in GROUP_ORDER if day.group(name)]
        markdown = render("day.md.j2", **context.for_page(uri, day=day, groups=groups))
        yield PageSpec(uri, markdown, _plain(context.texts("day_title", date=day.iso)))


def commit_pages(context: _Context) -> Iterator[PageSpec]:
    for day in context.index.days:
        for position, item in enumerate(day.commits):
            uri = paths.commit_page(item.sha)
            previous = day.commits[position - 1] if position > 0 else None
            following = day.commits[position + 1] if position + 1 < len(day.commits) else None
            page = context.for_page(uri, item=item, previous=previous, following=following)
            yield PageSpec(uri, render("commit.md.j2", **page), _plain(inline_text(item.record.commit.title)))


def archive_pages(context: _Context) -> Iterator[PageSpec]:
    months = context.index.months
    yield PageSpec(
        paths.ARCHIVE_INDEX,
        render("archive_index.md.j2", **context.for_page(paths.ARCHIVE_INDEX, months=list(months.items()))),
        _plain(context.texts("archive_title")),
    )
    for month, days in months.items():
        uri = paths.month_page(month)
        markdown = render("month.md.j2", **context.for_page(uri, month=month, days=days))
        yield PageSpec(uri, markdown, _plain(context.texts("month_title", month=month)))


def label_pages(context: _Context, kind: str) -> Iterator[PageSpec]:
    listing = context.index.by_platform if kind == "platforms" else context.index.by_subsystem
    index_uri = paths.PLATFORMS_INDEX if kind == "platforms" else paths.SUBSYSTEMS_INDEX
    counts = [(label_id, len(commits)) for label_id, commits in listing.items()]
    markdown = render("label_index.md.j2", **context.for_page(index_uri, kind=kind, labels=counts))
    yield PageSpec(index_uri, markdown, _plain(context.texts(f"{kind}_title")))
    size = context.options.page_size
    for label_id, commits in listing.items():
        pages = max(1, math.ceil(len(commits) / size))
        for page in range(1, pages + 1):
            chunk = commits[(page - 1) * size : page * size]
            uri = paths.label_page(kind, label_id, page)
            values = context.for_page(
                uri,
                kind=kind,
                label_id=label_id,
                description=context.label_description(kind, label_id),
                total=len(commits),
                page=page,
                pages=pages,
                by_day=_group_by_day(chunk),
            )
            title = _plain(context.label_name(kind, label_id))
            if pages > 1:
                title += f" ({_plain(context.texts('page_of', page=page, pages=pages))})"
            yield PageSpec(uri, render("label.md.j2", **values), title)


def _group_by_day(commits: tuple[SiteCommit, ...]) -> list[tuple[date, list[SiteCommit]]]:
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
    for kind in LABEL_KINDS:
        yield from label_pages(context, kind)
