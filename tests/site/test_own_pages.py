"""A site owner's own page on a site of several repositories: the example gen-files script
(docs/scripts/deprecations.py) links each deprecation to its commit's page under its repository,
in a real ``mkdocs build --strict``, and ``api`` gives the same link outside a build."""

from __future__ import annotations

import posixpath
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from commit_digest import api
from commit_digest.models import ChangeType, CommitRecord, Importance
from commit_digest.store.analysis_store import AnalysisStore
from tests.site.conftest import BuiltSite, build_site
from tests.site.factories import make_commit, ok_analysis
from tests.site.html import article, hrefs

PLUGIN = "vllm-project/vllm-ascend"
REPOSITORIES = ["vllm-project/vllm", {"name": PLUGIN, "platforms": ["ascend"], "title": "vLLM Ascend"}]
WHEN = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)


def deprecations() -> list[CommitRecord]:
    """A deprecation in each repository, in the same month."""
    records = []
    for number, repository in enumerate(("vllm-project/vllm", PLUGIN)):
        commit = make_commit(f"deprecate-{repository}", f"[Deprecation] Remove the old path {number}", WHEN)
        commit = commit.model_copy(update={"repository": repository, "committed_at": WHEN + timedelta(hours=number)})
        analysis = ok_analysis(Importance.HIGH, change_type=ChangeType.DEPRECATION)
        records.append(CommitRecord(commit=commit, analysis=analysis))
    return records


@pytest.fixture(scope="module")
def two_repositories(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    return build_site(tmp_path_factory.mktemp("own-pages"), deprecations(), language="en", repositories=REPOSITORIES)


@pytest.mark.slow
def test_the_deprecations_page_links_each_commit_under_its_repository(two_repositories: BuiltSite) -> None:
    page = article(two_repositories.page("deprecations"))
    links = [href for href in hrefs(page) if "commits/" in href]
    assert len(links) == 2, links
    for href in links:
        target = posixpath.normpath(posixpath.join("deprecations", href))
        assert (two_repositories.site / target / "index.html").is_file(), href
    assert any(f"commits/{PLUGIN}/" in href for href in links)


def test_the_api_links_a_commit_under_its_repository(tmp_path: Path) -> None:
    with AnalysisStore(tmp_path / "store") as store:
        for record in deprecations():
            store.put(record)
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: x\nplugins:\n  - commit-digest:\n      cache_dir: store\n      repositories:\n"
        f"        - vllm-project/vllm\n        - {PLUGIN}\n",
        encoding="utf-8",
    )
    with api.open_digest(api.load_site_settings(config)) as digest:
        items = digest.month("2026-03")
        folders = {digest.commit_page(item).rsplit("/", 1)[0] for item in items}
    assert folders == {"commits/vllm-project/vllm", f"commits/{PLUGIN}"}
