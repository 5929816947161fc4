"""A site built from the imported legacy archive: `commit-digest build --strict` passes and the
day pages read like the legacy reports (stats line, groups by importance, one entry per commit)."""

from __future__ import annotations

import html
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.legacy.parse import LegacyReport
from commit_digest.site.rendering.escape import title_plain
from commit_digest.site.rendering.i18n import Texts
from tests.legacy.conftest import NEWER, NEWER_HIGH, OLDER, SEEDS

PROJECT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow
_TAG = re.compile(r"<[^>]+>")


def article(page: str) -> str:
    start = page.index("<article")
    return page[start : page.index("</article>", start)]


def visible_text(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", fragment)).split())


def headings(fragment: str) -> list[str]:
    return [visible_text(text) for text in re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", fragment, re.S)]


ZH = Texts("zh")


def site_text(key: str, **values: object) -> str:
    """A label as the reader sees it (the i18n table is the site's own wording)."""
    return visible_text(str(ZH(key, **values)))


@dataclass(frozen=True)
class LegacySite:
    site: Path

    def page(self, url: str) -> str:
        return (self.site / url / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def legacy_site(tmp_path_factory: pytest.TempPathFactory) -> LegacySite:
    root = tmp_path_factory.mktemp("legacy-site")
    shutil.copytree(PROJECT / "docs", root / "docs")
    shutil.copy(PROJECT / "mkdocs.yml", root / "mkdocs.yml")
    # Both commands run as a user would, from the site's folder (gen-files scripts are relative).
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["import-legacy", "--cache", "cache", *map(str, SEEDS)]) == 0
        status = main(["build", "-f", "mkdocs.yml", "--cache", "cache", "--site-dir", "site", "--strict"])
    assert status == 0, "commit-digest build --strict failed on the imported legacy archive"
    return LegacySite(root / "site")


def entry_titles(fragment: str) -> list[str]:
    """The titles of a day page's entries, as the reader sees them."""
    return [
        visible_text(title) for title in re.findall(r'<p class="digest-entry__title">(.*?)</p>', fragment, re.S)
    ]


@pytest.mark.parametrize(("seed", "day"), [(NEWER_HIGH, "2026-01-08"), (NEWER, "2026-01-15")])
def test_day_pages_read_like_the_legacy_reports(
    legacy_site: LegacySite, reports: dict[str, LegacyReport], seed: Path, day: str
) -> None:
    report = reports[seed.name]
    page = article(legacy_site.page(f"days/{day}"))
    stats = report.stats
    assert stats is not None
    # The stats line, with the importance words as badges.
    expected_stats = " · ".join(
        [
            site_text("stats_total", total=stats.total),
            f"{site_text('importance_high')} {stats.high}",
            f"{site_text('importance_medium')} {stats.medium}",
            f"{site_text('importance_low')} {stats.low}",
        ]
    )
    assert expected_stats in visible_text(page)
    titles = [" ".join(heading.rstrip(" ¶").split()) for heading in headings(page)]
    for group, count in (("high", stats.high), ("medium", stats.medium), ("low", stats.low)):
        assert f"{site_text('group_' + group)} {count}" in titles, (group, count, titles[:5])
    # One entry per commit of the report, each under its badge.
    shown = entry_titles(page)
    assert len(shown) == len(report.rows)
    for row in report.rows:
        assert any(title_plain(row.title) in title for title in shown), row.title


def test_the_older_report_shows_its_unanalysed_rows_marked(
    legacy_site: LegacySite, reports: dict[str, LegacyReport]
) -> None:
    page = visible_text(article(legacy_site.page("days/2026-01-07")))
    assert f"{site_text('importance_none')} 15" in page
    for row in reports[OLDER.name].rows:
        assert title_plain(row.title) in page  # `code` in a title shows as code, without its backticks


def test_a_cut_off_analysis_is_marked_on_its_commit_page(legacy_site: LegacySite) -> None:
    # [Model] Add LFM2-VL model support: its report section ends with an empty 结论.
    page = legacy_site.page("commits/03fd76c57002")
    assert site_text("incomplete_note") in visible_text(article(page))
