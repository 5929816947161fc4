"""A page per day: its stats line, its brief, its commit table and each commit's section, grouped by importance."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from markupsafe import Markup

from commit_digest.site import paths
from commit_digest.site.fingerprint import digest
from commit_digest.site.model.commit import GROUP_ORDER
from commit_digest.site.rendering.budget import size
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.describe import commits_description
from commit_digest.site.rendering.render import render
from commit_digest.site.views.base import PageSpec, View, plain

# A day page's commit sections (after its table): full analyses while they keep under the first
# budget, then first summary bullets under the second, then only each commit's line of links.
# All of it keeps under the third, room kept for the line of links of every commit to come:
# with the theme around it and the table of contents, the page stays under 150 KB however long
# the analyses are (a day of ~150 commits would fill it with their lines of links alone).
# The full analyses are those of the day's most important commits (the order is by importance):
# the others' are a link away, on their commit pages, not repeated on the day's.
DAY_SECTIONS_BUDGET = 24_000
DAY_SUMMARIES_BUDGET = 80_000
DAY_ENTRIES_LIMIT = 115_000


def _day_brief(context: SiteContext, uri: str, day: Any) -> Markup:
    """The day's brief block: the whole day's, then each platform's that the day's filter can
    choose (a platform no commit of the day carries has no chip to open its brief)."""
    index = context.index
    platforms = [
        (label_id, brief)
        for label_id, _ in context.label_counts(day, "platforms")
        if (brief := index.brief(day.date, label_id)) is not None
    ]
    values = {"whole": index.brief(day.date), "platforms": platforms}
    return Markup(render("day_brief.html.j2", **context.for_page(uri, **values)))


def _day_sections(context: SiteContext, uri: str, day: Any, reserved: int = 0) -> list[tuple[str, list[Markup]]]:
    """Each group's commit sections in importance order: full analyses until the first one that
    would pass the budget, then first summary bullets until theirs is spent, then title lines.
    Room is kept for the title lines of the commits after each one, so that a busy day shortens
    its last analyses, not its page; and for what the page shows above them (``reserved`` bytes:
    the brief), so that a long brief shortens the analyses too."""
    limit = DAY_ENTRIES_LIMIT - reserved
    page = context.for_page(uri)  # one page: its links made once for all its entries
    entries = [(name, item) for name in GROUP_ORDER for item in day.group(name)]
    titles = [render("day_commit.html.j2", **page, item=item, name=name, form="title") for name, item in entries]
    titles_after = sum(size(html) for html in titles)
    used = 0
    forms = ["full", "summary"]
    groups: dict[str, list[Markup]] = {}
    for (name, item), title in zip(entries, titles, strict=True):
        titles_after -= size(title)
        html = title
        while forms:
            form = forms[0]
            candidate = render("day_commit.html.j2", **page, item=item, name=name, form=form)
            budget = DAY_SECTIONS_BUDGET if form == "full" else DAY_SUMMARIES_BUDGET
            total = used + size(candidate)
            if total <= budget and total + titles_after <= limit:
                html = candidate
                break
            forms.pop(0)
        used += size(html)
        groups.setdefault(name, []).append(Markup(html))
    return list(groups.items())


def _filters(context: SiteContext, day: Any) -> dict[str, list[tuple[str, int]]]:
    """Each kind's choices with the day's count: only the kinds some commit of the day carries (a
    quiet day of unlabelled commits has no filter), and every platform, those the day lacks with
    0 (hidden until chosen), so that the reader's platform picked on another page applies here."""
    found = {kind: context.label_counts(day, kind) for kind in context.label_kinds}
    filters = {kind: counts for kind, counts in found.items() if counts}
    if filters and "platforms" in context.label_kinds:
        present = dict(filters.get("platforms", []))
        absent = [(label_id, 0) for label_id in context.taxonomy.platform_ids if label_id not in present]
        others = {kind: counts for kind, counts in filters.items() if kind != "platforms"}
        filters = {"platforms": [*present.items(), *absent], **others}
    return filters


def _description(context: SiteContext, day: Any) -> str:
    """What the day page says of itself (link previews): its counts, then its brief's sentences
    when it has one, else its most important commits' titles."""
    whole = context.index.brief(day.date)
    brief = whole.plain_sentences if whole is not None else ()
    return commits_description(day.iso, day.commits, context.texts, brief=brief)


def day_pages(context: SiteContext) -> Iterator[PageSpec]:
    days = context.index.days  # newest first
    for position, day in enumerate(days):
        uri = paths.day_page(day.date)
        newer = days[position - 1] if position > 0 else None
        older = days[position + 1] if position + 1 < len(days) else None

        def content(uri: str = uri, day: Any = day, newer: Any = newer, older: Any = older) -> str:
            brief = _day_brief(context, uri, day)
            groups = _day_sections(context, uri, day, reserved=size(brief))
            filters = _filters(context, day)
            values = {"day": day, "brief": brief, "groups": groups, "newer": newer, "older": older, "filters": filters}
            return render("day.html.j2", **context.for_page(uri, **values))

        inputs = digest(
            "day",
            day.iso,
            [item.fingerprint for item in day.commits],
            [context.index.facts.reverted_by(item) is not None for item in day.commits],
            newer.iso if newer else None,
            older.iso if older else None,
            sorted((brief.platform or "", brief.fingerprint) for brief in context.index.day_briefs(day.date)),
        )
        yield PageSpec(
            uri,
            plain(context.texts("day_title", date=day.iso)),
            content,
            inputs,
            group=day.iso,
            describe=lambda day=day: _description(context, day),
        )


class DaysView(View):
    def pages(self, context: SiteContext) -> Iterator[PageSpec]:
        return day_pages(context)
