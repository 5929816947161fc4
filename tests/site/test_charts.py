"""Activity charts (site/charts.py): the counts, the window, the HTML and its text alternative.

No timed test: the cost at archive scale is measured by hand (the module's docstring says how).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from zoneinfo import ZoneInfo

import pytest
from markupsafe import Markup

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import CommitRecord, Importance
from commit_digest.site import paths
from commit_digest.site.model.calendar import IsoWeek
from commit_digest.site.model.index import SiteIndex, build_index
from commit_digest.site.rendering.assets import STYLESHEETS, asset_source, site_asset
from commit_digest.site.rendering.charts import MAX_ROWS, WINDOW_WEEKS, ActivityCounts, Chart, render_chart
from commit_digest.site.rendering.i18n import Texts
from commit_digest.site.rendering.sanitize import sanitize_html
from tests.site.conftest import BuiltSite
from tests.site.factories import REPOSITORY, label, make_commit, ok_analysis
from tests.site.html import tables

TAXONOMY = load_taxonomy()
SHANGHAI = ZoneInfo("Asia/Shanghai")
# Mondays (UTC noon) of three consecutive ISO weeks: 2026-W02, W03, W04.
W02, W03, W04 = (datetime(2026, 1, day, 12, 0, tzinfo=UTC) for day in (5, 12, 19))
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def record(
    seed: str, when: datetime, platforms: tuple[str, ...] = (), subsystems: tuple[str, ...] = ()
) -> CommitRecord:
    """A commit no rule labels (neutral title and path): its labels are exactly the given ones."""
    return CommitRecord(
        commit=make_commit(seed, f"Tidy wording {seed} (#1)", when, paths=("misc/notes.txt",)),
        analysis=ok_analysis(
            Importance.LOW,
            platforms=tuple(label(item, "test") for item in platforms),
            subsystems=tuple(label(item, "test") for item in subsystems),
        ),
    )


def index_of(records: list[CommitRecord], zone: ZoneInfo = SHANGHAI) -> SiteIndex:
    return build_index(records, repository=REPOSITORY, zone=zone, taxonomy=TAXONOMY)


def three_weeks() -> list[CommitRecord]:
    return [
        record("a", W02, ("cuda",), ("moe",)),
        record("b", W02 + timedelta(days=1), ("cuda", "rocm"), ("moe", "attention")),  # two platforms
        record("c", W03, ("rocm",), ("attention",)),
        record("d", W03 + timedelta(hours=1), ("rocm",), ()),
        record("e", W04, ("cuda",), ("quantization",)),
        record("f", W04 + timedelta(days=2), (), ("docs",)),  # no platform
    ]


def name_of(kind: str, label_id: str) -> str:
    rule = TAXONOMY.platform(label_id) if kind == "platforms" else TAXONOMY.subsystem(label_id)
    return rule.name.en if rule else label_id


def rendered(chart: Chart, page: str = paths.HOME, language: str = "en") -> str:
    return str(render_chart(chart, texts=Texts(language), name=name_of, link=lambda target: paths.href(page, target)))


def counts_by_id(chart: Chart) -> dict[str, tuple[int, ...]]:
    return {row.id: row.counts for row in chart.rows}


def test_counts_per_label_and_per_pair_of_labels() -> None:
    counts = ActivityCounts.of(index_of(three_weeks()))
    assert [week.id for week in counts.weeks] == ["2026-W02", "2026-W03", "2026-W04"]
    # A commit on two platforms counts on both; a commit without a platform on none.
    assert counts_by_id(counts.home_chart()) == {"cuda": (2, 0, 1), "rocm": (1, 2, 0)}
    assert counts_by_id(counts.platform_chart("cuda")) == {
        "moe": (2, 0, 0),
        "attention": (1, 0, 0),
        "quantization": (0, 0, 1),
    }
    assert counts_by_id(counts.platform_chart("rocm")) == {"attention": (1, 1, 0), "moe": (1, 0, 0)}
    assert counts_by_id(counts.subsystem_chart("attention")) == {"rocm": (1, 1, 0), "cuda": (1, 0, 0)}
    assert counts_by_id(counts.subsystem_chart("docs")) == {}  # its one commit has no platform
    assert counts.series["subsystems"]["docs"] == (0, 0, 1)


def test_rows_by_total_then_the_taxonomy_order() -> None:
    counts = ActivityCounts.of(index_of(three_weeks()))
    assert [row.id for row in counts.home_chart().rows] == ["cuda", "rocm"]  # 3 each: cuda first
    assert [row.id for row in counts.platform_chart("cuda").rows] == ["moe", "attention", "quantization"]
    assert [row.total for row in counts.platform_chart("cuda").rows] == [2, 1, 1]


def test_the_week_of_a_commit_is_the_site_time_zone_s() -> None:
    sunday_evening = datetime(2026, 1, 18, 20, 0, tzinfo=UTC)  # Monday 04:00 in Shanghai
    records = [record("early", W03, ("cuda",)), record("late", sunday_evening, ("cuda",))]
    utc = ActivityCounts.of(index_of(records, ZoneInfo("UTC")))
    shanghai = ActivityCounts.of(index_of(records, SHANGHAI))
    assert [week.id for week in utc.weeks] == ["2026-W03"]
    assert utc.series["platforms"]["cuda"] == (2,)
    assert [week.id for week in shanghai.weeks] == ["2026-W03", "2026-W04"]
    assert shanghai.series["platforms"]["cuda"] == (1, 1)


def test_the_window_ends_with_the_newest_week_and_holds_at_most_twelve() -> None:
    first = datetime(2025, 9, 1, 12, 0, tzinfo=UTC)  # a Monday, 2025-W36
    records = [record(f"w{week}", first + timedelta(weeks=week), ("cpu",)) for week in range(20) if week != 17]
    counts = ActivityCounts.of(index_of(records))
    newest = IsoWeek.of((first + timedelta(weeks=19)).date())
    assert len(counts.weeks) == WINDOW_WEEKS
    assert counts.weeks[-1] == newest
    assert counts.weeks[0] == IsoWeek.of((first + timedelta(weeks=8)).date())
    # A week without commits inside the window is a zero, not a gap.
    assert counts.series["platforms"]["cpu"] == (1,) * 9 + (0,) + (1,) * 2


def test_a_young_archive_shows_its_weeks_only_and_an_empty_one_nothing() -> None:
    young = ActivityCounts.of(index_of([record("a", W03, ("cuda",)), record("b", W04, ("cuda",))]))
    assert [week.id for week in young.weeks] == ["2026-W03", "2026-W04"]
    empty = ActivityCounts.of(index_of([]))
    assert empty.weeks == ()
    assert empty.home_chart().empty and empty.platform_chart("cuda").empty
    assert render_chart(empty.home_chart(), texts=Texts("zh"), name=name_of, link=str) == Markup("")


def test_rows_without_commits_in_the_window_are_dropped() -> None:
    old = record("old", W02 - timedelta(weeks=20), ("tpu",), ("lora",))
    counts = ActivityCounts.of(index_of([old, *three_weeks()]))
    assert "tpu" not in counts_by_id(counts.home_chart())
    assert counts.platform_chart("tpu").empty
    assert rendered(counts.platform_chart("tpu")) == ""
    assert "tpu" not in rendered(counts.home_chart())


def test_unknown_kind_is_an_error() -> None:
    with pytest.raises(ValueError, match="repositories"):
        ActivityCounts.of(index_of(three_weeks())).label_chart("repositories", REPOSITORY)


class _Table(HTMLParser):
    """The chart's rows (name link, bar tooltips, numbers) and its table's cells."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[list[str]] = []
        self.tips: list[str] = []
        self.in_table = self.in_title = False
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.in_table = True
        elif tag == "tr" and self.in_table:
            self.cells.append([])
        elif tag in ("td", "th", "title"):
            self.text = ""
            self.in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.in_table:
            self.cells[-1].append(self.text.strip())
        elif tag == "title":
            self.tips.append(self.text)
            self.in_title = False

    def handle_data(self, data: str) -> None:
        self.text += data


def test_the_table_holds_the_numbers_the_bars_show() -> None:
    counts = ActivityCounts.of(index_of(three_weeks()))
    html = rendered(counts.home_chart())
    parsed = _Table()
    parsed.feed(html)
    assert parsed.cells == [
        ["Platforms", "2026-W02", "2026-W03", "2026-W04", "Total"],
        ["CUDA (NVIDIA)", "2", "0", "1", "3"],
        ["ROCm (AMD)", "1", "2", "0", "3"],
    ]
    # One bar per week with commits, its tooltip the week and the count; the newest is in progress.
    assert parsed.tips == ["W02: 2", "W04 (in progress): 1", "W02: 1", "W03: 2"]
    assert 'aria-label="CUDA (NVIDIA), commits per week: 2, 0, 1"' in html
    assert html.count('role="img"') == 2 and html.count("<svg") == 2


def test_a_row_names_its_label_links_its_page_and_compares_the_latest_complete_week() -> None:
    counts = ActivityCounts.of(index_of(three_weeks()))
    html = rendered(counts.platform_chart("rocm"), page=paths.label_page("platforms", "rocm"))
    assert '<a href="../../subsystems/attention/">Attention</a>' in html
    # rocm/attention: W02 1, W03 1 (the latest complete week), W04 in progress.
    assert "<span>2</span><span>1 <span>±0</span></span>" in html
    home = rendered(counts.home_chart())
    assert '<a href="platforms/cuda/">CUDA (NVIDIA)</a>' in home
    assert "<span>3</span><span>0 <span>▼ 2</span></span>" in home  # cuda: W03 0 against W02 2
    assert "<span>3</span><span>2 <span>▲ 1</span></span>" in home  # rocm: W03 2 against W02 1
    assert "<figcaption>Commits on ROCm (AMD) per subsystem, week by week</figcaption>" in html
    assert "2026-W03" in home and "(▲ more, ▼ fewer)" in home


def test_more_rows_than_drawn_are_listed_under_the_chart_and_all_are_in_the_table() -> None:
    subsystems = TAXONOMY.subsystem_ids
    assert len(subsystems) > MAX_ROWS
    records = [
        record(f"{subsystem}-{copy}", W03 + timedelta(minutes=place), ("cuda",), (subsystem,))
        for place, subsystem in enumerate(subsystems)
        for copy in range(len(subsystems) - place)
    ]
    chart = ActivityCounts.of(index_of(records)).platform_chart("cuda")
    html = rendered(chart, page=paths.label_page("platforms", "cuda"), language="zh")
    assert html.count('<div class="digest-chart__row">') == MAX_ROWS
    others = len(subsystems) - MAX_ROWS
    assert f"另有 {others} 项：" in html
    last = subsystems[-1]
    # The fewest commits (1), listed with their totals, linked to their pages.
    assert f'<a href="../../subsystems/{last}/">{name_of("subsystems", last)}</a> 1</p>' in html
    assert html.count("<tr><th>") == 1 + len(subsystems)  # the head, then every row


def test_label_names_are_escaped_and_markup_names_kept_as_given() -> None:
    counts = ActivityCounts.of(index_of(three_weeks()))
    html = str(
        render_chart(
            counts.platform_chart("cuda"),
            texts=Texts("zh"),
            name=lambda kind, label_id: HOSTILE if label_id == "moe" else Markup("A &amp; B"),
            link=lambda target: paths.href(paths.HOME, target),
        )
    )
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;" in html
    assert "A &amp; B" in html and "&amp;amp;" not in html
    assert sanitize_html(html) == html


def test_the_sanitizer_keeps_a_chart_as_it_is() -> None:
    counts = ActivityCounts.of(index_of(three_weeks()))
    for chart in (counts.home_chart(), counts.platform_chart("cuda"), counts.subsystem_chart("attention")):
        for language in ("zh", "en"):
            html = rendered(chart, language=language)
            assert sanitize_html(html) == html
            assert 'viewBox="0 0 30 20" preserveAspectRatio="none"' in html


@pytest.mark.parametrize(
    ("hostile", "kept"),
    [
        ('<svg onload="alert(1)"><path d="M1 1"></path></svg>', '<svg><path d="M1 1"></path></svg>'),
        ("<svg><script>alert(1)</script></svg>", "<svg></svg>"),
        (
            '<svg><path style="fill:red" onclick="alert(1)" fill="red" d="M1 1"></path></svg>',
            '<svg><path d="M1 1"></path></svg>',
        ),
        ('<svg><a href="https://evil.example/"><path d="M1 1"></path></a></svg>', '<svg><path d="M1 1"></path></svg>'),
        ('<svg><use href="#x"></use><image href="https://evil.example/x.png"></image></svg>', "<svg></svg>"),
        ('<svg><animate attributeName="href" to="javascript:alert(1)"></animate></svg>', "<svg></svg>"),
        ('<svg><foreignObject><a href="https://evil.example/">x</a></foreignObject></svg>', "<svg></svg>"),
        ("<svg><style>*{display:none}</style></svg>", "<svg></svg>"),
        # An HTML link after an SVG keeps its href: only links inside an SVG lose theirs.
        (
            '<svg><svg></svg><a href="https://a.example/">x</a></svg><a href="https://b.example/">y</a>',
            '<svg><svg></svg>x</svg><a href="https://b.example/">y</a>',
        ),
    ],
)
def test_the_sanitizer_strips_what_an_svg_could_run_or_load(hostile: str, kept: str) -> None:
    assert sanitize_html(hostile) == kept


def test_a_label_chart_changes_only_with_that_label_s_commits() -> None:
    """The incremental build: a page's chart digest moves when its label's counts move (or the
    window does), not when another label gets a commit in the same week."""
    base = three_weeks()
    counts = ActivityCounts.of(index_of(base))
    other = ActivityCounts.of(index_of([*base, record("g", W04 + timedelta(hours=3), ("rocm",), ("moe",))]))
    assert other.platform_chart("cuda").digest_input() == counts.platform_chart("cuda").digest_input()
    assert other.subsystem_chart("quantization").digest_input() == counts.subsystem_chart("quantization").digest_input()
    assert other.platform_chart("rocm").digest_input() != counts.platform_chart("rocm").digest_input()
    assert other.home_chart().digest_input() != counts.home_chart().digest_input()
    moved = ActivityCounts.of(index_of([*base, record("h", W04 + timedelta(weeks=1), ("rocm",))]))
    assert moved.platform_chart("cuda").digest_input() != counts.platform_chart("cuda").digest_input()
    assert counts.platform_chart("cuda").digest_input() == (
        ["platforms", "cuda"],
        "subsystems",
        ["2026-W02", "2026-W03", "2026-W04"],
        [
            ["subsystems", "moe", [2, 0, 0]],
            ["subsystems", "attention", [1, 0, 0]],
            ["subsystems", "quantization", [0, 0, 1]],
        ],
    )


def test_every_chart_word_exists_in_both_languages() -> None:
    counts = ActivityCounts.of(index_of(three_weeks()))
    for language in ("zh", "en"):
        for chart in (counts.home_chart(), counts.platform_chart("cuda"), counts.subsystem_chart("moe")):
            assert rendered(chart, language=language).startswith('<figure class="digest-chart">')
    young = ActivityCounts.of(index_of([record("a", W03, ("cuda",))]))
    assert "进行中的 2026-W03" in rendered(young.home_chart(), language="zh")


def test_the_stylesheet_ships_with_the_site_and_colours_come_from_the_theme() -> None:
    css = asset_source("digest-charts.css")
    assert "assets/digest.css" in STYLESHEETS and css in site_asset("assets/digest.css")
    assert "var(--md-typeset-a-color)" in css and "forced-colors" in css
    assert not re.search(r"#[0-9a-fA-F]{3,8}\b", css)  # no fixed colour: both palettes read


# -- on the built site (tests/site/conftest.py's sample: 2026-W01 and 2026-W03) ----------------


def _chart_table(page: str) -> list[list[str]]:
    chart = page[page.index('<figure class="digest-chart"') : page.index("</figure>")]
    [table] = tables(chart)
    return table


def test_built_home_page_charts_platforms_and_label_pages_their_other_kind(zh_site: BuiltSite) -> None:
    home = _chart_table(zh_site.page(""))
    assert home[0] == ["平台", "2026-W01", "2026-W02", "2026-W03", "合计"]
    assert ["CUDA（NVIDIA）", "0", "0", "10", "10"] in home and ["ROCm（AMD）", "0", "0", "2", "2"] in home
    cuda = _chart_table(zh_site.page("platforms/cuda"))
    assert cuda[0][0] == "子系统" and ["量化", "0", "0", "1", "1"] in cuda
    docs = zh_site.page("subsystems/core")
    assert ["ROCm（AMD）", "0", "0", "0", "0"] not in _chart_table(docs)  # rows without commits are left out
    home_page = zh_site.page("")
    figure = home_page[home_page.index("<figure") : home_page.index("</figure>")]
    assert 'role="img"' in figure and "<script" not in figure and "style=" not in figure
