"""A page per platform, subsystem and (on a site of several) repository, with a page per month
of its commits, and each kind's index."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

from markupsafe import Markup

from commit_digest.site import paths
from commit_digest.site.fingerprint import digest
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.describe import commits_description, label_description, listing_description
from commit_digest.site.rendering.naming import LABEL_KINDS
from commit_digest.site.rendering.render import render
from commit_digest.site.views.base import PageSpec, View, plain


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


def label_pages(context: SiteContext, kind: str) -> Iterator[PageSpec]:
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
    texts = context.texts
    counts = [(label_id, len(commits)) for label_id, commits in listing.items()]
    index_title = plain(context.texts(f"{kind}_title"))
    yield PageSpec(
        index_uri,
        index_title,
        lambda: render("label_index.html.j2", **context.for_page(index_uri, kind=kind, labels=counts)),
        describe=lambda: listing_description(
            index_title, [(plain(context.label_name(kind, label_id)), count) for label_id, count in counts], texts
        ),
    )
    size = context.options.page_size
    for label_id, commits in listing.items():
        parts = list(_month_parts(commits, size))
        months: dict[str, int] = {part.month: part.total for part in parts}
        name = plain(context.label_name(kind, label_id))
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
            uri,
            name,
            lambda uri=uri, values=values: render("label.html.j2", **context.for_page(uri, **values)),
            inputs,
            describe=lambda name=name, commits=commits, about=values["description"]: label_description(
                name, commits, texts, plain(about)
            ),
        )
        for part in parts:
            part_uri = paths.label_month_page(kind, label_id, part.month, part.part)
            title = f"{name} · {part.month}"
            if part.parts > 1:
                title += f" ({plain(context.texts('page_of', page=part.part, pages=part.parts))})"
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
                describe=lambda title=title, part=part: commits_description(
                    title, [item for _, items in part.by_day for item in items], texts
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


class LabelsView(View):
    def pages(self, context: SiteContext) -> Iterator[PageSpec]:
        for kind in context.label_kinds:
            yield from label_pages(context, kind)
