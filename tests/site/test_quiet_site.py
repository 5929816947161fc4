"""A build never fails because of what commits lack. A one-repository site with a day of three
commits with no platform, no subsystem and no analysis (a small repository, a quiet day), a day
of one commit with no title, no author and no file, and a release that first carried none of
them builds with ``mkdocs build --strict``: the day has no filter, the release no notes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from commit_digest.meaning.releases import Release
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from tests.site.conftest import BuiltSite, build_site
from tests.site.factories import REPOSITORY, make_commit, sha_for
from tests.site.html import article, visible_text

pytestmark = pytest.mark.slow

DAY = datetime(2026, 2, 3, 9, 0, tzinfo=UTC)
FILES = ("a.py", "b.py", "c.py")


def quiet_records() -> list[CommitRecord]:
    quiet_day = [
        CommitRecord(commit=make_commit(f"quiet-{path}", f"Touch {path}", DAY + timedelta(hours=number), paths=(path,)))
        for number, path in enumerate(FILES)
    ]
    # The next day, a commit that says nothing at all: no title, no author, no file.
    silent = make_commit("silent", "", DAY + timedelta(days=1), author="", paths=())
    return [*quiet_day, CommitRecord(commit=silent)]


@pytest.fixture(scope="module")
def quiet(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    root = tmp_path_factory.mktemp("quiet")
    with AnalysisStore(root / "cache") as store:
        store.put_release(Release(repository=REPOSITORY, tag="v0.1.0", sha=sha_for("older"), tagged_at=DAY))
    return build_site(root, quiet_records(), language="en")


def test_a_day_of_unlabelled_commits_builds_without_a_filter(quiet: BuiltSite) -> None:
    day = article(quiet.page("days/2026-02-03"))
    text = visible_text(day)
    assert all(f"Touch {path}" in text for path in FILES)
    assert "data-digest-filter" not in day  # nothing to filter by


def test_every_page_of_the_quiet_site_is_built(quiet: BuiltSite) -> None:
    for path in FILES:
        assert f"Touch {path}" in visible_text(article(quiet.page(f"commits/{sha_for(f'quiet-{path}')[:12]}")))
    assert "3 commits" in visible_text(article(quiet.page("")))
    assert "4 commits" in visible_text(article(quiet.page("weeks/2026-W06")))
    for url in ("archive", "archive/2026-02", "weeks", "platforms", "subsystems", "impact", "series"):
        assert "<article" in quiet.page(url), url


def test_a_commit_with_no_title_no_author_and_no_file_has_its_pages(quiet: BuiltSite) -> None:
    assert "<article" in quiet.page(f"commits/{sha_for('silent')[:12]}")
    assert "1 commit" in visible_text(article(quiet.page("days/2026-02-04")))


def test_a_release_that_brought_none_of_the_commits_has_its_page(quiet: BuiltSite) -> None:
    assert "v0.1.0" in visible_text(article(quiet.page("releases")))
    assert "v0.1.0" in visible_text(article(quiet.page("releases/v0.1.0")))
    assert "4 commits" in visible_text(article(quiet.page("releases/unreleased")))
