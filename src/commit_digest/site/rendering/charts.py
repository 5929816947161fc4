"""Activity charts drawn at build time: commits per week per platform (the home page), per
subsystem (a platform's page) and per platform (a subsystem's page).

One pass over the newest weeks of the index counts everything (``ActivityCounts.of``: only the
window's days are visited, so its cost does not grow with the archive). A chart is data
(``Chart``) with a small ``digest_input`` for the incremental build; ``render_chart`` turns it
into HTML: a <figure> with one row per label (its name as a link, a bar sparkline in inline SVG,
its total and its latest complete week against the week before) and the same numbers as a real
<table> in a <details>, the text alternative. No script, no style attribute, no external
resource: the colours come from digest-charts.css and material's variables, so both palettes
read; the text stays HTML, so it does not shrink with the bars on a phone.

The window is the ``WINDOW_WEEKS`` weeks ending with the newest week that has a commit (never
"today": a build is a function of the store), from the first week with data on a younger archive.
The newest week is shown as the week in progress and never compared: a label page's chart then
changes only when that label's commits in the window change, or once a week when the window
moves, never because another label got a commit.

Cost (measured by hand, not tested): ``ActivityCounts.of`` takes 25-30 ms on an index of 15,000
synthetic commits (benchmarks/synthetic.py: 3,500 commits in the window, 2.3 platforms and 8.5
subsystems each, so 20 label pairs per commit); every chart and its digest input then take under
1 ms together, and rendering the home chart about 1 ms::

    PYTHONPATH=. .venv/bin/python -m timeit -s "from zoneinfo import ZoneInfo; \\
    from benchmarks.synthetic import synthetic_records; \\
    from commit_digest.site.model.index import build_index; \\
    from commit_digest.site.rendering.charts import ActivityCounts; \\
    from commit_digest.meaning.taxonomy import load_taxonomy; \\
    index = build_index(synthetic_records(15000), repository='vllm-project/vllm', \\
    zone=ZoneInfo('Asia/Shanghai'), taxonomy=load_taxonomy())" "ActivityCounts.of(index)"
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import product
from types import MappingProxyType

from markupsafe import Markup

from commit_digest.site import paths
from commit_digest.site.model.calendar import IsoWeek, weeks_until
from commit_digest.site.model.index import SiteIndex
from commit_digest.site.rendering.escape import html_text
from commit_digest.site.rendering.i18n import Texts

WINDOW_WEEKS = 12
MAX_ROWS = 12  # rows drawn; the others are listed under the chart (and all are in its table)
KINDS = ("platforms", "subsystems")
_OTHER = {"platforms": "subsystems", "subsystems": "platforms"}
# Each week is a slot of 10 units of the viewBox; its bar is a stroke 8 units wide (the stylesheet's
# stroke-width) up from the bottom, scaled to the row's busiest week: a row shows its own trend.
_SLOT, _HEIGHT = 10, 20

Counts = tuple[int, ...]


@dataclass(frozen=True)
class ChartRow:
    """One label of a chart: its commits per week of the chart, oldest first."""

    kind: str  # "platforms" or "subsystems"
    id: str
    counts: Counts

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclass(frozen=True)
class Chart:
    """What a chart shows: rows of ``kind`` over ``weeks``; rendered by ``render_chart``."""

    subject: tuple[str, str] | None  # the label page's (kind, id); None for the home chart
    kind: str  # the rows' kind
    weeks: tuple[IsoWeek, ...]  # oldest first; the last is the newest week with data (in progress)
    rows: tuple[ChartRow, ...]  # most commits first; no row is all zeros

    @property
    def empty(self) -> bool:
        return not self.rows

    def digest_input(self) -> tuple[object, ...]:
        """Everything the rendered chart depends on beyond shared inputs (taxonomy, language,
        code): JSON-able and small, for a page's input digest."""
        return (
            list(self.subject) if self.subject else None,
            self.kind,
            [week.id for week in self.weeks],
            [[row.kind, row.id, list(row.counts)] for row in self.rows],
        )


@dataclass(frozen=True)
class ActivityCounts:
    """Commits per week of the window, per label and per pair of labels (a commit with two
    platforms counts on both)."""

    weeks: tuple[IsoWeek, ...]  # oldest first; () for an empty index
    # kind -> label id -> counts per week
    series: Mapping[str, Mapping[str, Counts]]
    # kind -> label id -> the other kind's label id -> counts per week of commits with both labels
    crossed: Mapping[str, Mapping[str, Mapping[str, Counts]]]
    # kind -> label id -> its place in the site's order (the taxonomy's), for rows with equal totals
    order: Mapping[str, Mapping[str, int]]

    @classmethod
    def of(cls, index: SiteIndex, weeks: int = WINDOW_WEEKS) -> ActivityCounts:
        """The counts of the ``weeks`` weeks ending with the index's newest week (fewer when the
        archive is younger); visits only the commits of those weeks."""
        order = {
            "platforms": MappingProxyType({label: place for place, label in enumerate(index.by_platform)}),
            "subsystems": MappingProxyType({label: place for place, label in enumerate(index.by_subsystem)}),
        }
        window: tuple[IsoWeek, ...] = ()
        if index.days:
            oldest = index.days[-1].week
            window = tuple(week for week in weeks_until(index.days[0].week, weeks) if week >= oldest)
        position = {week: place for place, week in enumerate(window)}
        # One Counter per week: the per-commit work is C loops over its labels and label pairs.
        platform_weeks: list[Counter[str]] = [Counter() for _ in window]
        subsystem_weeks: list[Counter[str]] = [Counter() for _ in window]
        pair_weeks: list[Counter[tuple[str, str]]] = [Counter() for _ in window]
        for day in index.days:  # newest first: stop at the first day before the window
            place = position.get(day.week)
            if place is None:
                break
            on_platforms, in_subsystems, pairs = platform_weeks[place], subsystem_weeks[place], pair_weeks[place]
            for item in day.commits:
                platforms = [label.id for label in item.platforms]
                subsystems = [label.id for label in item.subsystems]
                on_platforms.update(platforms)
                in_subsystems.update(subsystems)
                pairs.update(product(platforms, subsystems))
        size = len(window)
        series: dict[str, dict[str, list[int]]] = {kind: {} for kind in KINDS}
        crossed: dict[str, dict[str, dict[str, list[int]]]] = {kind: {} for kind in KINDS}

        def add(table: dict[str, list[int]], label: str, place: int, count: int) -> None:
            table.setdefault(label, [0] * size)[place] += count

        for place in range(size):
            for platform, count in platform_weeks[place].items():
                add(series["platforms"], platform, place, count)
            for subsystem, count in subsystem_weeks[place].items():
                add(series["subsystems"], subsystem, place, count)
            for (platform, subsystem), count in pair_weeks[place].items():
                add(crossed["platforms"].setdefault(platform, {}), subsystem, place, count)
                add(crossed["subsystems"].setdefault(subsystem, {}), platform, place, count)
        return cls(
            weeks=window,
            series=MappingProxyType({kind: _frozen(table) for kind, table in series.items()}),
            crossed=MappingProxyType(
                {
                    kind: MappingProxyType({label: _frozen(table) for label, table in tables.items()})
                    for kind, tables in crossed.items()
                }
            ),
            order=MappingProxyType(order),
        )

    def home_chart(self) -> Chart:
        """Commits per platform per week."""
        return self._chart(None, "platforms", self.series["platforms"])

    def label_chart(self, kind: str, label_id: str) -> Chart:
        """A platform's subsystems per week, or a subsystem's platforms (``kind`` is the page's)."""
        if kind not in _OTHER:
            raise ValueError(f"no activity chart for {kind!r}: expected one of {', '.join(KINDS)}")
        return self._chart((kind, label_id), _OTHER[kind], self.crossed[kind].get(label_id, {}))

    def platform_chart(self, platform_id: str) -> Chart:
        return self.label_chart("platforms", platform_id)

    def subsystem_chart(self, subsystem_id: str) -> Chart:
        return self.label_chart("subsystems", subsystem_id)

    def _chart(self, subject: tuple[str, str] | None, kind: str, table: Mapping[str, Counts]) -> Chart:
        order = self.order[kind]
        rows = sorted(
            (ChartRow(kind, label, counts) for label, counts in table.items() if any(counts)),
            key=lambda row: (-row.total, order.get(row.id, len(order)), row.id),
        )
        return Chart(subject, kind, self.weeks, tuple(rows))


def _frozen(table: dict[str, list[int]]) -> Mapping[str, Counts]:
    return MappingProxyType({label: tuple(counts) for label, counts in table.items()})


# -- rendering ------------------------------------------------------------------------------
# Per row, only the bar of the week in progress has a class: the stylesheet finds the rest by
# position (.digest-chart__row > a, > svg, > span): a home chart of 7 platforms with weeks of
# hundreds of commits is 9 KB (its table included), about 2 KB compressed.

Name = Callable[[str, str], str]  # (kind, label id) -> its name: plain text (escaped here) or Markup
Link = Callable[[str], str]  # a page's source path -> the href to it from the page being rendered


def _html(value: object) -> Markup:
    """Markup passes (a caller's escaped name, a relative href); anything else is untrusted text."""
    return value if isinstance(value, Markup) else html_text(value)


def _change(latest: int, before: int) -> Markup:
    """The change as text (an arrow and a number), never as a colour alone."""
    if latest == before:
        return Markup("<span>±0</span>")
    return Markup("<span>%s %d</span>") % ("▲" if latest > before else "▼", abs(latest - before))


def _spark(row: ChartRow, weeks: tuple[IsoWeek, ...], texts: Texts, name: Markup) -> Markup:
    """The row's bars: an <svg> that stretches with its column, each bar a vertical stroke (its
    width is the stylesheet's) with its week's tooltip; a week without commits has no bar."""
    top = max(row.counts)
    last = len(weeks) - 1
    bars = []
    for place, (week, count) in enumerate(zip(weeks, row.counts, strict=True)):
        if count == 0:
            continue
        now = place == last
        # "W03": unique within a window of 12 weeks; the axis and the table give the years.
        tip = texts("chart_bar_now" if now else "chart_bar", week=f"W{week.week:02d}", count=count)
        bars.append(
            Markup('<path%s d="M%d %dV%d"><title>%s</title></path>')
            % (
                Markup(' class="digest-chart__now"') if now else Markup(""),
                place * _SLOT + _SLOT // 2,
                _HEIGHT,
                _HEIGHT - max(1, round(count * _HEIGHT / top)),
                tip,
            )
        )
    label = texts("chart_row_label", name=name, counts=texts("chart_list_separator").join(map(str, row.counts)))
    return Markup('<svg viewBox="0 0 %d %d" preserveAspectRatio="none" role="img" aria-label="%s">%s</svg>') % (
        len(weeks) * _SLOT,
        _HEIGHT,
        label,
        Markup("").join(bars),
    )


def _caption(chart: Chart, texts: Texts, name: Name) -> Markup:
    if chart.subject is None:
        return texts("chart_caption_home")
    kind, label_id = chart.subject
    return texts(f"chart_caption_{kind}", name=_html(name(kind, label_id)))


def _note(weeks: tuple[IsoWeek, ...], texts: Texts) -> Markup:
    if len(weeks) >= 3:
        return texts("chart_note", week=weeks[-2].id, now=weeks[-1].id)
    if len(weeks) == 2:
        return texts("chart_note_two", week=weeks[-2].id, now=weeks[-1].id)
    return texts("chart_note_one", now=weeks[-1].id)


def render_chart(chart: Chart, *, texts: Texts, name: Name, link: Link) -> Markup:
    """The chart as HTML for a page's content; empty when it has no row (the page shows nothing).

    ``name`` gives a label's name: plain text is escaped here, Markup is taken as escaped (so
    ``SiteNaming.label_name`` fits). ``link`` gives the href of a page, by its source path, from the
    page being rendered (the templates' ``link``)."""
    if chart.empty:
        return Markup("")
    weeks = chart.weeks
    names = {row.id: _html(name(row.kind, row.id)) for row in chart.rows}
    hrefs = {row.id: _html(link(paths.label_page(row.kind, row.id))) for row in chart.rows}
    # The newest week is in progress: the numbers are those of the latest complete week.
    complete = len(weeks) >= 2
    rows = [
        Markup(
            '<div class="digest-chart__head"><span></span><span class="digest-chart__axis"><span>%s</span>'
            "<span>%s</span></span><span>%s</span><span>%s</span></div>"
        )
        % (weeks[0].id, weeks[-1].id, texts("chart_total"), weeks[-2].id if complete else "")
    ]
    for row in chart.rows[:MAX_ROWS]:
        latest = Markup("")
        if complete:
            latest = Markup("%d") % row.counts[-2]
            if len(weeks) >= 3:
                latest += Markup(" ") + _change(row.counts[-2], row.counts[-3])
        rows.append(
            Markup('<div class="digest-chart__row"><a href="%s">%s</a>%s<span>%d</span><span>%s</span></div>')
            % (hrefs[row.id], names[row.id], _spark(row, weeks, texts, names[row.id]), row.total, latest)
        )
    parts = [
        Markup('<figure class="digest-chart"><figcaption>%s</figcaption>') % _caption(chart, texts, name),
        Markup('<div class="digest-chart__rows">%s</div>') % Markup("").join(rows),
    ]
    others = chart.rows[MAX_ROWS:]
    if others:
        listed = Markup(" · ").join(
            Markup('<a href="%s">%s</a> %d') % (hrefs[row.id], names[row.id], row.total) for row in others
        )
        parts.append(
            Markup('<p class="digest-chart__more">%s%s</p>') % (texts("chart_more", count=len(others)), listed)
        )
    parts.append(Markup('<p class="digest-chart__note">%s</p>') % _note(weeks, texts))
    parts.append(_table(chart, texts, names))
    parts.append(Markup("</figure>"))
    return Markup("").join(parts)


def _table(chart: Chart, texts: Texts, names: Mapping[str, Markup]) -> Markup:
    """The text alternative: every row's commits per week and its total (the rows beyond
    ``MAX_ROWS`` too)."""
    head = Markup("").join(Markup("<th>%s</th>") % week.id for week in chart.weeks)
    body = Markup("").join(
        Markup("<tr><th>%s</th>%s<td>%d</td></tr>")
        % (names[row.id], Markup("").join(Markup("<td>%d</td>") % count for count in row.counts), row.total)
        for row in chart.rows
    )
    return Markup(
        '<details class="digest-chart__data"><summary>%s</summary><table><thead><tr><th>%s</th>%s<th>%s</th></tr>'
        "</thead><tbody>%s</tbody></table></details>"
    ) % (texts("chart_table"), texts(chart.kind), head, texts("chart_total"), body)
