"""Several repositories in one site, end to end: the embedded vLLM sample and a hardware plugin
made with real git in the test, fetched and analysed through the real CLI (one repository, then
all), built with a real mkdocs build. Commit pages cannot collide, day pages mix both with a
repository chip and filter, the plugin's commits are on its platform, the search filters by
repository, and the plugin's PR template never reaches a label or a summary."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import feedparser
import pytest
import yaml

from commit_digest.cli import main
from commit_digest.search.reader import search
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.exchange import read_all_records
from commit_digest_mkdocs.build import run_build
from tests.git import run_git
from tests.site.conftest import PROJECT, project_config
from tests.site.html import visible_text

pytestmark = pytest.mark.slow

PLUGIN = "vllm-project/vllm-ascend"
TEMPLATE = """### What this PR does / why we need it?
{what}

### Does this PR introduce _any_ user-facing change?
No.

### How was this patch tested?
CI passed with new added/existing test.
"""
HISTORY = (
    ("2026-01-15T08:00:00+00:00", "[Ops] Fuse rotary embedding for Atlas A2", "vllm_ascend/ops/rotary_embedding.py"),
    ("2026-01-15T09:30:00+00:00", "[Bugfix] Fix the MoE all-to-all hang", "vllm_ascend/ops/fused_moe.py"),
    ("2026-01-15T11:00:00+00:00", "[Doc] Update the installation guide", "docs/source/installation.md"),
)


def make_plugin_clone(folder: Path) -> list[str]:
    run_git(folder, "init", "-q", "-b", "main")
    run_git(folder, "remote", "add", "origin", f"https://github.com/{PLUGIN}.git")
    shas = []
    for number, (when, title, path) in enumerate(HISTORY):
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(f"# change {number}\n", encoding="utf-8")
        run_git(folder, "add", "-A")
        message = f"{title} (#{4000 + number})\n\n" + TEMPLATE.format(what=f"Change {number} of the plugin.")
        dates = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        people = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "d@e.x", "GIT_COMMITTER_NAME": "GitHub"}
        run_git(folder, "commit", "-q", "-m", message, env={**dates, **people, "GIT_COMMITTER_EMAIL": "n@g.x"})
        shas.append(run_git(folder, "rev-parse", "HEAD"))
    return shas


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("two-repositories")
    shutil.copytree(PROJECT / "docs", root / "docs")
    config = project_config(
        cache_dir="cache",
        repositories=["vllm-project/vllm", {"name": PLUGIN, "platforms": ["ascend"], "title": "vLLM Ascend"}],
    )
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    text = resources.files("commit_digest").joinpath("data/sample-vllm.jsonl").read_text(encoding="utf-8")
    with AnalysisStore(root / "cache") as store:
        for record in read_all_records(text.splitlines(), source="sample"):
            store.put(record)
    clone = root / "clone"
    clone.mkdir()
    shas = make_plugin_clone(clone)
    config_file = str(root / "mkdocs.yml")
    fetch = ["fetch", "-f", config_file, "--repo", PLUGIN, "--source", "git", "--git-dir", str(clone)]
    assert main([*fetch, "--since", "2026-01-14", "--until", "2026-01-16"]) == 0
    assert main(["analyze", "-f", config_file, "--offline"]) == 0  # every repository in turn
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        run_build(root / "mkdocs.yml", site_dir=root / "site", strict=True)
    return root / "site", shas


def page(site: Path, url: str) -> str:
    return (site / url / "index.html").read_text(encoding="utf-8")


def test_commit_pages_live_under_their_repository(built: tuple[Path, list[str]]) -> None:
    site, shas = built
    plugin_page = page(site, f"commits/{PLUGIN}/{shas[0][:12]}")
    assert "Fuse rotary embedding" in plugin_page
    assert f"https://github.com/{PLUGIN}/commit/{shas[0]}" in plugin_page
    vllm = list((site / "commits" / "vllm-project" / "vllm").iterdir())
    assert len(vllm) == 172 and not (site / "commits" / shas[0][:12]).exists()


def test_the_plugins_commits_are_on_its_platform_and_its_template_is_nowhere(built: tuple[Path, list[str]]) -> None:
    site, shas = built
    ascend = visible_text(page(site, "platforms/ascend"))
    assert all(title in ascend for _when, title, _path in HISTORY)
    # A docs-only commit earns no platform from its paths: the repository puts it on Ascend.
    commit = visible_text(page(site, f"commits/{PLUGIN}/{shas[2][:12]}"))
    assert "仓库 vllm-project/vllm-ascend 的每个提交都属于此平台" in commit
    for sha in shas:
        text = page(site, f"commits/{PLUGIN}/{sha[:12]}")
        summary = text[text.index("变更摘要") :] if "变更摘要" in text else ""
        assert "What this PR does" not in summary and "user-facing" not in summary
    # Template words never label a commit: not frontend or core by its headings, not CI by its
    # stock answer "CI passed with new added/existing test.".
    for subsystem in ("frontend", "core", "ci"):
        listed = visible_text(page(site, f"subsystems/{subsystem}"))
        assert not any(title in listed for _when, title, _path in HISTORY), subsystem


def test_a_day_mixes_repositories_with_a_chip_and_a_filter(built: tuple[Path, list[str]]) -> None:
    site, shas = built
    day = page(site, "days/2026-01-15")
    assert 'data-filter-kind="repositories"' in day
    assert f'data-repositories="{PLUGIN}"' in day and 'data-repositories="vllm-project/vllm"' in day
    assert f'href="../../repositories/{PLUGIN}/"' in day and ">vLLM Ascend</a>" in day
    assert f"../../commits/{PLUGIN}/{shas[0][:12]}/" in day
    index = visible_text(page(site, "repositories"))
    assert "vLLM Ascend" in index and "vllm" in index
    assert len(list((site / "repositories" / "vllm-project").iterdir())) == 2
    home = page(site, "")
    assert 'href="repositories/"' in home  # in the navigation


def test_the_search_filters_by_repository(built: tuple[Path, list[str]]) -> None:
    site, shas = built

    def read(path: str) -> bytes:
        return (site / "search" / path).read_bytes()

    manifest = json.loads(read("manifest.json"))
    assert manifest["commit_url"] == "commits/{repo}/{sha}/"
    assert [name for name, _title in manifest["repositories"]] == ["vllm-project/vllm", PLUGIN]
    everything = set(search(read, "", repository=PLUGIN))
    assert everything == {sha[:12] for sha in shas}
    assert search(read, "rotary", repository=PLUGIN) == [shas[0][:12]]
    assert set(search(read, "", platforms=["ascend"])) >= everything


def test_repositories_settings_and_their_errors() -> None:
    from commit_digest.settings import DigestSettings

    one = DigestSettings.model_validate({"repositories": ["vllm-project/vllm"]})
    assert one.repository_names == ("vllm-project/vllm",) and one.repository == "vllm-project/vllm"
    assert DigestSettings().repository_names == ("vllm-project/vllm",)
    with pytest.raises(ValueError, match="twice"):
        DigestSettings.model_validate({"repositories": ["a/b", "a/b"]})
    with pytest.raises(ValueError, match="not one of repositories"):
        DigestSettings.model_validate({"repository": "c/d", "repositories": ["a/b"]})
    several = DigestSettings.model_validate(
        {
            "taxonomy": {"platforms": {"cuda": {"words": ["CUDA"]}}},
            "repositories": ["a/b", {"name": "a/c", "branch": "dev", "taxonomy": {"platforms": {"cuda": None}}}],
        }
    )
    plugin = several.for_repository("a/c")
    assert plugin.repository == "a/c" and plugin.github.branch == "dev"
    assert plugin.taxonomy == {"platforms": {"cuda": None}}
    assert several.for_repository("a/b").taxonomy == {"platforms": {"cuda": {"words": ["CUDA"]}}}


def test_nightly_analyses_every_repository_and_builds_once(
    built: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    site, shas = built
    root = site.parent
    arguments = ["nightly", "-f", str(root / "mkdocs.yml"), "--offline", "--no-fetch"]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        code = main([*arguments, "--durable-dir", str(root / "data"), "--site-dir", str(root / "nightly-site")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "analyse vllm-project/vllm:" in err and f"analyse {PLUGIN}:" in err
    assert err.count("build:") == 1
    assert (root / "nightly-site" / "commits" / PLUGIN / shas[0][:12] / "index.html").exists()
    # --git-dir is one clone: on a site of several repositories it needs --repo.
    assert main([*arguments[:4], "--git-dir", str(root / "clone")]) == 2
    assert "--git-dir is a clone of one repository" in capsys.readouterr().err


def test_feeds_carry_the_repository(built: tuple[Path, list[str]]) -> None:
    site, _shas = built
    plugin_feed = feedparser.parse((site / f"feeds/repositories/{PLUGIN}.xml").read_bytes())
    assert not plugin_feed.bozo and len(plugin_feed.entries) == len(HISTORY)
    assert all(entry.title.startswith("[vLLM Ascend] ") for entry in plugin_feed.entries)
    whole = feedparser.parse((site / "feeds/all.xml").read_bytes())
    terms = {tag.term for entry in whole.entries for tag in entry.tags}
    assert {f"repository:{PLUGIN}", "repository:vllm-project/vllm"} <= terms
    assert f'href="https://digest.example.org/feeds/repositories/{PLUGIN}.xml"' in page(site, f"repositories/{PLUGIN}")
