"""The size guard: the site's published size measured as GitHub Pages' artifact holds it, reported
at every build, a warning near ``site_size_limit`` with the day it is reached, and a build past
it not published at all (the previous site stays, whole)."""

from __future__ import annotations

import logging
import shutil
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from commit_digest.errors import InputError
from commit_digest.models import CommitRecord
from commit_digest.settings import DEFAULT_SITE_SIZE_LIMIT, load_settings, parse_size, settings_from_mapping
from commit_digest.site.build import publication
from commit_digest.site.build.size_guard import (
    SiteTooLargeError,
    SizeCheck,
    commits_per_day,
    file_sizes,
    limit_reached_on,
    readable_size,
    site_size,
    size_after_publication,
)
from commit_digest.site.paths import STATE_DIR
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest_mkdocs.build import run_build
from tests.site.conftest import PROJECT, project_config
from tests.site.factories import make_commit

TODAY = date(2026, 3, 2)
SIZE_LOGGER = "mkdocs.plugins.commit_digest.size"

# -- the option ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "size"),
    [
        ("1GB", 1_000_000_000),
        ("800 MB", 800_000_000),
        ("1.5 GiB", 1_610_612_736),
        ("300kB", 300_000),
        ("512 KiB", 524_288),
        ("2 tb", 2_000_000_000_000),
        ("12345", 12_345),
        (12_345, 12_345),
        (2.5e9, 2_500_000_000),
    ],
)
def test_a_size_is_bytes_or_a_number_with_a_unit(given: object, size: int) -> None:
    assert parse_size(given) == size
    assert settings_from_mapping({"site_size_limit": given}, where="mkdocs.yml").site_size_limit == size


def test_the_default_limit_is_github_pages_one_gigabyte() -> None:
    assert settings_from_mapping({}, where="mkdocs.yml").site_size_limit == DEFAULT_SITE_SIZE_LIMIT == 10**9


@pytest.mark.parametrize("given", ["big", "1 GBs", "1e9", "-1 MB", "0", 0, -5, True, "", "GB", float("inf")])
def test_nonsense_is_one_line_naming_the_option(given: object, tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        settings_from_mapping({"site_size_limit": given}, where="mkdocs.yml")
    message = str(raised.value)
    assert "site_size_limit" in message and "1.5 GiB" in message and "\n" not in message
    config = tmp_path / "mkdocs.yml"
    config.write_text(yaml.safe_dump({"plugins": [{"commit-digest": {"site_size_limit": given}}]}), encoding="utf-8")
    with pytest.raises(InputError, match=r"plugins\.commit-digest\.site_size_limit: .* is not a size"):
        load_settings(config)


def test_the_cli_reads_the_limit_from_the_plugin_block(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(yaml.safe_dump({"plugins": [{"commit-digest": {"site_size_limit": "2 GB"}}]}), encoding="utf-8")
    assert load_settings(config).site_size_limit == 2_000_000_000


# -- the measurement ----------------------------------------------------------------------------


def test_the_size_counts_each_path_of_a_hard_link_and_what_a_symlink_points_to(tmp_path: Path) -> None:
    """As ``tar --dereference --hard-dereference --exclude=.git --exclude=.github`` packs it."""
    site = tmp_path / "site"
    (site / "commits" / "abc").mkdir(parents=True)
    (site / "index.html").write_bytes(b"x" * 1000)
    (site / "commits" / "abc" / "index.html").hardlink_to(site / "index.html")
    (site / "latest.html").symlink_to(site / "index.html")
    (site / ".git").mkdir()
    (site / ".git" / "HEAD").write_bytes(b"y" * 500)
    (site / "nested" / ".github").mkdir(parents=True)
    (site / "nested" / ".github" / "x.yml").write_bytes(b"z" * 500)
    for state in (site / STATE_DIR, site / "en" / STATE_DIR):  # the build's own, never published
        state.mkdir(parents=True)
        (state / "build.json").write_bytes(b"s" * 500)
    assert file_sizes(site) == {"index.html": 1000, "commits/abc/index.html": 1000, "latest.html": 1000}
    assert site_size(site) == 3000
    assert site_size(tmp_path / "none") == 0


def test_a_publication_in_place_is_measured_as_it_will_be(tmp_path: Path) -> None:
    published, staging = tmp_path / "site", tmp_path / "staging"
    for path, size in {"a.html": 100, "b.html": 200, "gone.html": 300, "search/p1/x.json": 400, "old/y": 50}.items():
        (published / path).parent.mkdir(parents=True, exist_ok=True)
        (published / path).write_bytes(b"." * size)
    for path, size in {"b.html": 250, "new.html": 10, "search/p1/z.json": 40}.items():
        (staging / path).parent.mkdir(parents=True, exist_ok=True)
        (staging / path).write_bytes(b"." * size)
    after = size_after_publication(
        published, staging, deleted_files=["gone.html"], deleted_folders=["search/p1", "old"]
    )
    assert after == 100 + 250 + 10 + 40
    assert site_size(published) == 1050  # measured, not moved


# -- the projection -----------------------------------------------------------------------------


def test_the_rate_is_the_last_weeks_commits_per_day() -> None:
    days = {TODAY: 7, TODAY - timedelta(days=55): 7, TODAY - timedelta(days=56): 1000, TODAY + timedelta(days=1): 9}
    assert commits_per_day(days, today=TODAY) == 14 / 56
    assert commits_per_day(days, today=TODAY, weeks=1) == 1.0


def test_the_limit_is_reached_when_the_archive_grows_at_its_current_rate() -> None:
    # 1,000 commits made 800 MB: 800 kB a commit; 10 commits a day add 8 MB a day; 200 MB last 25 days.
    days = {TODAY - timedelta(days=offset): 10 for offset in range(56)} | {date(2024, 1, 1): 440}
    assert limit_reached_on(800_000_000, 1_000_000_000, days, today=TODAY) == TODAY + timedelta(days=25)
    assert limit_reached_on(800_000_001, 1_000_000_000, days, today=TODAY) == TODAY + timedelta(days=25)


def test_a_site_that_does_not_grow_never_reaches_its_limit() -> None:
    assert limit_reached_on(900, 1000, {date(2024, 1, 1): 10}, today=TODAY) is None
    assert limit_reached_on(900, 1000, {}, today=TODAY) is None
    assert limit_reached_on(1, 10**18, {TODAY: 1}, today=TODAY) is None  # past the calendar's end
    assert limit_reached_on(1000, 1000, {}, today=TODAY) == TODAY


def test_sizes_read_in_decimal_units() -> None:
    assert [readable_size(size) for size in (0, 999, 83_900_000, 10**9, 1_610_612_736, 999_600)] == [
        "0 B",
        "999 B",
        "83.9 MB",
        "1 GB",
        "1.61 GB",
        "1 MB",
    ]
    assert SizeCheck(83_900_000, 10**9).summary() == "83.9 MB (8% of the 1 GB limit)"
    assert SizeCheck(999_999_999, 10**9).percent == 99
    assert not SizeCheck(800_000_000, 10**9).warns and SizeCheck(800_000_001, 10**9).warns
    assert not SizeCheck(10**9, 10**9).too_large and SizeCheck(10**9 + 1, 10**9).too_large


def test_the_warning_and_the_refusal_say_what_to_do() -> None:
    check = SizeCheck(850_000_000, 10**9)
    warning = check.warning({TODAY: 100}, today=TODAY)
    assert warning.startswith("the site is 850 MB, 85% of its site_size_limit of 1 GB: reached around 2026-")
    assert "DEPLOY_TARGET=rclone" in warning and "fewer languages" in warning
    assert "not reached" in check.warning({date(2020, 1, 1): 100}, today=TODAY)
    refusal = SizeCheck(1_200_000_000, 10**9).refusal(Path("/srv/site"))
    assert "1.2 GB, past its site_size_limit of 1 GB" in refusal and "/srv/site is unchanged" in refusal
    assert "DEPLOY_TARGET=rclone" in refusal and "a bigger host" in refusal and "fewer languages" in refusal


# -- a real build -------------------------------------------------------------------------------

NOW = datetime.now(UTC).replace(microsecond=0)


def recent_records(count: int, *, first: int = 0) -> list[CommitRecord]:
    """One commit a day, the newest an hour ago: the archive's current rate is theirs."""
    return [
        CommitRecord(commit=make_commit(f"recent-{n}", f"[Core] Change {n} (#{50000 + n})", NOW - timedelta(days=n)))
        for n in range(first, first + count)
    ]


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        shutil.copytree(PROJECT / "docs", root / "docs")
        self.store(recent_records(6))
        self.configure()

    @property
    def site(self) -> Path:
        return self.root / "site"

    def store(self, records: list[CommitRecord]) -> None:
        with AnalysisStore(self.root / "cache") as store:
            for record in records:
                store.put(record)

    def configure(self, **options: object) -> None:
        config = project_config(cache_dir="cache", **options)
        text = yaml.safe_dump(config, allow_unicode=True, sort_keys=False)
        (self.root / "mkdocs.yml").write_text(text, encoding="utf-8")

    def build(self, monkeypatch: pytest.MonkeyPatch) -> Path:
        monkeypatch.chdir(self.root)
        return run_build(self.root / "mkdocs.yml", site_dir=self.site, strict=True)

    def snapshot(self) -> dict[str, bytes]:
        return {str(path.relative_to(self.site)): path.read_bytes() for path in self.site.rglob("*") if path.is_file()}

    def leftovers(self) -> list[str]:
        return sorted(
            path.name for path in self.root.iterdir() if path.name.startswith((".site.building-", ".site.old-"))
        )


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "project")


def size_messages(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == SIZE_LOGGER and record.levelno == level]


def test_every_build_reports_the_published_size(
    project: Project, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        site = project.build(monkeypatch)
        project.build(monkeypatch)  # nothing changed: the status is renewed, the size still reported
    expected = f"commit-digest: site is {readable_size(site_size(site))} (0% of the 1 GB limit)"
    assert size_messages(caplog, logging.INFO) == [expected, expected]
    assert size_messages(caplog, logging.WARNING) == []


def test_past_80_percent_the_build_warns_with_the_day_the_limit_is_reached(
    project: Project, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    size = site_size(project.build(monkeypatch))
    limit = size * 10 // 9  # the site is at about 90%
    project.configure(site_size_limit=limit)
    with caplog.at_level(logging.INFO):
        site = project.build(monkeypatch)  # --strict: the warning does not fail the build
    published = site_size(site)
    # Six commits made the site; one a day over the last 8 weeks: 6/56 commits a day.
    reached = limit_reached_on(
        published, limit, {NOW.date() - timedelta(days=n): 1 for n in range(6)}, today=NOW.date()
    )
    assert reached is not None and reached > NOW.date()
    [warning] = size_messages(caplog, logging.WARNING)
    check = SizeCheck(published, limit)
    assert warning.startswith(
        f"commit-digest: the site is {readable_size(published)}, {check.percent}% of its site_size_limit of "
        f"{readable_size(limit)}: reached around {reached.isoformat()}"
    )
    assert "DEPLOY_TARGET=rclone" in warning


def test_past_the_limit_nothing_is_published(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    size = site_size(project.build(monkeypatch))
    before = project.snapshot()
    project.configure(site_size_limit=size // 2)
    with pytest.raises(SiteTooLargeError, match=r"past its site_size_limit .* is unchanged\. .*DEPLOY_TARGET=rclone"):
        project.build(monkeypatch)
    assert project.snapshot() == before
    assert project.leftovers() == []


def test_an_update_in_place_past_the_limit_is_not_half_published(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    size = site_size(project.build(monkeypatch))
    project.configure(site_size_limit=size + 20_000)
    project.build(monkeypatch)  # published whole: its options changed
    before = project.snapshot()
    project.store(recent_records(10, first=6))  # ten more commit pages: past the limit
    measured: list[int] = []

    def measure(*args: Path, **kwargs: list[str]) -> int:
        measured.append(size_after_publication(*args, **kwargs))
        return measured[-1]

    monkeypatch.setattr(publication, "size_after_publication", measure)
    with pytest.raises(SiteTooLargeError):
        project.build(monkeypatch)
    assert measured and measured[0] > size + 20_000  # an update in place, measured as it would be
    assert project.snapshot() == before
    assert project.leftovers() == []
    assert not list(project.root.glob(".site.publishing*"))


def test_a_link_loop_or_a_link_to_nothing_does_not_stop_the_measure(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "days").mkdir(parents=True)
    (site / "index.html").write_bytes(b"x" * 10)
    (site / "days" / "up").symlink_to(site, target_is_directory=True)  # days/up/days/up/…
    (site / "gone.html").symlink_to(tmp_path / "nothing.html")
    assert file_sizes(site) == {"index.html": 10}
