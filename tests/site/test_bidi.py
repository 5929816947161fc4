"""Right-to-left overrides in commit titles and author names stay inside them: a title
"abc\u202edef" and an author "\u202eevil" are shown in a <bdi> on every page (the rest of the line
reads as it should), leave plain text (window titles, feeds) without the override, and the
search results that scripts fill in isolate their titles by CSS."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from importlib import resources

import feedparser
import pytest

from commit_digest.models import CommitRecord, Importance
from commit_digest.site.rendering.escape import html_text, name_html, title_html, title_plain
from tests.site.conftest import BuiltSite, build_site
from tests.site.factories import label, make_commit, ok_analysis, sha_for

OVERRIDE = "\u202e"
TITLE = f"abc{OVERRIDE}def"
AUTHOR = f"{OVERRIDE}evil"
WHEN = datetime(2026, 2, 10, 9, 0, tzinfo=UTC)
_OPEN_OR_CLOSE = re.compile(r"<(/?)bdi>")


def test_a_title_or_name_that_could_reorder_its_line_is_isolated() -> None:
    assert str(title_html(TITLE)) == f"<bdi>{TITLE}</bdi>"
    assert str(title_html(f"`x` {TITLE}")) == f"<bdi><code>x</code> {TITLE}</bdi>"
    assert str(name_html(AUTHOR)) == f"<bdi>{AUTHOR}</bdi>"
    assert str(name_html("עדי <b>")) == "<bdi>עדי &lt;b&gt;</bdi>"  # right-to-left letters too
    for isolate in ("\u2066x", "\u2067x", "\u2068x", "\u2069x", "\u202ax", "\u202bx", "\u202cx", "\u202dx"):
        assert str(title_html(isolate)).startswith("<bdi>"), repr(isolate)


def test_a_plain_title_or_name_is_left_as_it_was() -> None:
    assert str(title_html("[Core] Fix `x` (#1)")) == "[Core] Fix <code>x</code> (#1)"
    assert str(name_html("Dev <One>")) == "Dev &lt;One&gt;"
    assert str(name_html("张三")) == "张三"


def test_plain_text_drops_the_override() -> None:
    assert title_plain(TITLE) == "abcdef"
    assert title_plain("\u2067x\u2069 `y`") == "x y"


def bidi_records() -> list[CommitRecord]:
    hostile = make_commit("bidi", TITLE, WHEN, author=AUTHOR)
    analysis = ok_analysis(Importance.HIGH, platforms=(label("rocm", "ROCm"),), subsystems=(label("core", "core"),))
    after = make_commit("after", "Next commit", WHEN + timedelta(hours=1), author="Dev Two")
    # Its title is shown again where the commits link each other (reverted by, reverts).
    body = f"This reverts commit {sha_for('bidi')}."
    revert = make_commit("revert", f'Revert "{TITLE}"', WHEN + timedelta(days=1), author="Dev Two", body=body)
    return [CommitRecord(commit=hostile, analysis=analysis), CommitRecord(commit=after), CommitRecord(commit=revert)]


@pytest.fixture(scope="module")
def bidi_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    return build_site(tmp_path_factory.mktemp("bidi"), bidi_records(), language="en")


def unisolated(page: str) -> list[int]:
    """Where ``page`` holds the override outside any <bdi> (its window title aside)."""
    head_end = page.index("</head>")
    found = []
    for position in (match.start() for match in re.finditer(OVERRIDE, page)):
        tags = _OPEN_OR_CLOSE.findall(page, 0, position)
        if position > head_end and (not tags or tags[-1] == "/"):
            found.append(position)
    return found


@pytest.mark.slow
def test_every_page_isolates_the_title_and_the_author(bidi_site: BuiltSite) -> None:
    shown = 0
    for name, page in bidi_site.pages():
        if OVERRIDE in page:
            shown += 1
            assert not unisolated(page), (name, [page[at - 80 : at + 20] for at in unisolated(page)])
            assert OVERRIDE not in page[: page.index("</head>")], name  # the window title
    assert shown >= 6  # day, commit, home, week, label pages...
    commit = bidi_site.page(f"commits/{sha_for('bidi')[:12]}")
    assert f"<bdi>{TITLE}</bdi>" in commit and f"<bdi>{AUTHOR}</bdi>" in commit
    day = bidi_site.page("days/2026-02-10")
    assert f"<bdi>{TITLE}</bdi>" in day and f"<bdi>{AUTHOR}</bdi>" in day
    assert f"<bdi>Revert &#34;{TITLE}&#34;</bdi>" in commit  # the commit that reverted it


@pytest.mark.slow
def test_feeds_carry_no_override(bidi_site: BuiltSite) -> None:
    feed = feedparser.parse((bidi_site.site / "feeds" / "all.xml").read_bytes())
    entry = next(entry for entry in feed.entries if entry.link.endswith(f"{sha_for('bidi')[:12]}/"))
    assert entry.title == "abcdef" and entry.author == "evil"


def test_search_results_isolate_the_titles_scripts_fill_in() -> None:
    search = resources.files("commit_digest.search").joinpath("assets/digest-search.css").read_text(encoding="utf-8")
    site = resources.files("commit_digest.site.rendering").joinpath("assets/digest.css").read_text(encoding="utf-8")
    for css, selector in ((search, ".digest-search__title"), (site, ".digest-hsearch__title")):
        rules = re.findall(r"([^{}]+)\{([^}]*)\}", css)
        isolated = [selectors.strip() for selectors, body in rules if "unicode-bidi: isolate" in body]
        assert any(selectors.endswith(selector) for selectors in isolated), selector


HOSTILE_TEXT = f"see gnp{OVERRIDE}exe.txt"  # reads "see txt.exe.png" wherever the override is not contained


def contained(page: str) -> list[int]:
    """Where ``page`` holds the override outside both a <bdi> and a first-strong isolate (U+2068
    ... U+2069) (its window title aside)."""
    found = []
    for position in unisolated(page):
        before = page[:position]
        if before.rfind("\u2068") <= before.rfind("\u2069"):
            found.append(position)
    return found


@pytest.fixture(scope="module")
def analysed_bidi_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    analysis = ok_analysis(
        Importance.HIGH,
        summary=(HOSTILE_TEXT,),
        platforms=(label("rocm", "ROCm"),),
        subsystems=(label("core", "core"),),
        text=HOSTILE_TEXT,
    )
    record = CommitRecord(commit=make_commit("llm", "A plain title", WHEN, author="Dev One"), analysis=analysis)
    return build_site(tmp_path_factory.mktemp("bidi-analysis"), [record], language="en")


@pytest.mark.slow
def test_every_text_an_llm_wrote_keeps_its_override_inside_it(analysed_bidi_site: BuiltSite) -> None:
    """Before: an override in an analysis's summary, impact, insights, risks, recommendations or
    conclusion reached 12 pages outside any isolation. Now each such text is a first-strong isolate
    on every page, and plain text (the feed's summary, the search index) drops the override."""
    shown = 0
    for name, page in analysed_bidi_site.pages():
        if OVERRIDE in page:
            shown += 1
            assert not contained(page), (name, [page[at - 80 : at + 20] for at in contained(page)])
    assert shown >= 4  # commit, day, home, label pages...
    commit = analysed_bidi_site.page(f"commits/{sha_for('llm')[:12]}")
    assert commit.count(f"{HOSTILE_TEXT}\u2069") >= 8  # each field of the analysis ends its isolate
    feed = feedparser.parse((analysed_bidi_site.site / "feeds" / "all.xml").read_bytes())
    assert "see gnpexe.txt" in feed.entries[0].summary
    for path in analysed_bidi_site.site.rglob("*"):
        if path.is_file() and path.suffix not in {".html", ".gz"}:
            assert OVERRIDE.encode() not in path.read_bytes(), path


def test_an_isolate_holds_whatever_controls_the_text_opens_or_closes() -> None:
    assert str(html_text("plain")) == "plain"
    assert str(html_text(f"a{OVERRIDE}b")) == f"\u2068a{OVERRIDE}b\u2069"
    # A PDI that would close our isolate early goes; an isolate left open is closed before ours.
    assert str(html_text("\u2069\u2067x")) == "\u2068\u2067x\u2069\u2069"
    assert str(html_text("\u2066a\u2069\u2069b")) == "\u2068\u2066a\u2069b\u2069"
