"""One real ``mkdocs build --strict`` per configuration, shared by the tests that read its pages."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest
import yaml

from commit_digest.models import CommitRecord
from commit_digest.settings import read_mkdocs_yml
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest_mkdocs.build import run_build
from tests.site.factories import sample_records

PROJECT = Path(__file__).resolve().parents[2]
OVERRIDE_TEXT = "Hand-written docs subsystem page"


class BuiltSite:
    def __init__(self, root: Path, site: Path) -> None:
        self.root = root
        self.site = site

    def page(self, url: str) -> str:
        """The HTML of the page at ``url`` (a directory URL such as "days/2026-01-15/")."""
        return (self.site / url / "index.html").read_text(encoding="utf-8")

    def pages(self) -> Iterable[tuple[str, str]]:
        for path in sorted(self.site.rglob("*.html")):
            yield str(path.relative_to(self.site)), path.read_text(encoding="utf-8")


def project_config(**plugin_options: object) -> dict[str, object]:
    """The demo site's mkdocs.yml with the given commit-digest options, plus the Markdown extensions
    a site owner may add (so the escaping is tested against them)."""
    config = read_mkdocs_yml(PROJECT / "mkdocs.yml")
    config["site_url"] = "https://digest.example.org/"  # the demo reads it from $SITE_URL
    for entry in config["plugins"]:
        if isinstance(entry, dict) and "commit-digest" in entry:
            entry["commit-digest"].update(plugin_options)
        if isinstance(entry, dict) and "gen-files" in entry:
            entry["gen-files"]["scripts"] = ["docs/scripts/deprecations.py"]
    config["markdown_extensions"] = [
        *config["markdown_extensions"],
        "attr_list",
        "admonition",
        "pymdownx.snippets",
        "pymdownx.magiclink",
        "pymdownx.mark",
        "pymdownx.tilde",
    ]
    return config


def build_site(
    root: Path,
    records: Iterable[CommitRecord],
    *,
    hand_written: dict[str, str] | None = None,
    **plugin_options: object,
) -> BuiltSite:
    """Stores ``records`` under ``root`` and builds the site there with ``mkdocs build --strict``."""
    root.mkdir(parents=True, exist_ok=True)
    with AnalysisStore(root / "cache") as store:
        for record in records:
            store.put(record)
    docs = root / "docs"
    shutil.copytree(PROJECT / "docs", docs)
    for path, text in (hand_written or {}).items():
        (docs / path).parent.mkdir(parents=True, exist_ok=True)
        (docs / path).write_text(text, encoding="utf-8")
    config = project_config(cache_dir="cache", **plugin_options)
    config_file = root / "mkdocs.yml"
    config_file.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    # gen-files runs its scripts relative to the working directory, as `mkdocs build` does.
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        site = run_build(config_file, site_dir=root / "site", strict=True)
    return BuiltSite(root, site)


@pytest.fixture(scope="session")
def zh_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The sample records in the default language, page_size 3 so listings paginate."""
    return build_site(
        tmp_path_factory.mktemp("zh-site"),
        sample_records(),
        hand_written={"subsystems/docs/index.md": f"# {OVERRIDE_TEXT}\n\nWritten by the site owner.\n"},
        page_size=3,
    )


@pytest.fixture(scope="session")
def en_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    return build_site(tmp_path_factory.mktemp("en-site"), sample_records()[:7], language="en")
