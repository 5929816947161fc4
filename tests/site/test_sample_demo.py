"""The demo as a newcomer sees it: sample data that says it is one on every page, never links what
it made up to GitHub as if it were real, raises no false alarm, and shows every kind of page with
content (operator impact, deprecations, a release, a failed analysis, analyses a model wrote).

Both demo sites are built as a new user builds them: `commit-digest demo` in a copy of the
checkout, in Chinese and with `--language en`."""

from __future__ import annotations

import json
import re
import shutil
from importlib import resources
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.exchange import read_all_records
from commit_digest.store.sample_note import SAMPLE_META, SampleNote
from tests.site.conftest import PROJECT
from tests.site.html import article, visible_text

pytestmark = pytest.mark.slow

NOTE = SampleNote.model_validate_json(
    resources.files("commit_digest").joinpath("data/sample-vllm.note.json").read_text(encoding="utf-8")
)
GITHUB_LINK = re.compile(r'href="https://github\.com/vllm-project/vllm/(commit|pull|releases/tag|compare)/([^"]+)"')
FAILED = "19277eb9e000"  # the sample's failed analysis: "[Misc] Fix typo in scheduler log message (#32072)"
MODEL_WRITTEN = "130d6c951485"  # a real commit whose analysis the legacy report's model wrote


def _demo(root: Path, *language: str) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["demo", "--cache", str(root / "cache"), "--site-dir", str(root / "site"), *language]) == 0
    return root


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo-checkout")
    shutil.copy(PROJECT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(PROJECT / "docs", root / "docs")
    return root


@pytest.fixture(scope="module")
def demos(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    sites = {}
    for language in ("zh", "en"):
        root = tmp_path_factory.mktemp(f"demo-{language}")
        shutil.copy(checkout / "mkdocs.yml", root / "mkdocs.yml")
        shutil.copytree(checkout / "docs", root / "docs")
        sites[language] = _demo(root, "--language", language)
    return sites


def _page(root: Path, path: str) -> str:
    return (root / "site" / path).read_text(encoding="utf-8")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_page_says_once_that_it_shows_sample_data_and_from_when(demos: dict[str, Path], language: str) -> None:
    site = demos[language] / "site"
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 200
    without = [
        str(path.relative_to(site))
        for path in pages
        if _page(demos[language], str(path.relative_to(site))).count(
            'class="digest-sample admonition info" role="note">'
        )
        < 1
    ]
    assert without == []
    line = re.search(
        r'class="digest-sample admonition info" role="note">(.*?)</p>', _page(demos[language], "index.html")
    )
    assert line is not None
    text = visible_text(line.group(1))
    assert "2026-01-07" in text and "2026-01-15" in text and "172" in text and "45" in text
    if language == "zh":
        assert "示例数据" in text and "不会更新。其中 112 个分析由模型撰写（取自旧版日报）" in text
    else:
        assert text.startswith("Sample data:") and "Every analysis is the offline rules': no model was asked." in text


@pytest.mark.parametrize("language", ["zh", "en"])
def test_nothing_made_up_is_linked_to_github_and_the_real_commits_are(demos: dict[str, Path], language: str) -> None:
    site = demos[language] / "site"
    unlinked = NOTE.invented | NOTE.placeholder_shas
    invented_prs = {int(m) for m in re.findall(r"\(#(\d+)\)", _titles(NOTE.invented))}
    linked_commits: set[str] = set()
    linked_prs: set[int] = set()
    tags: set[str] = set()
    for path in [*site.rglob("*.html"), *site.rglob("*.xml")]:
        for kind, target in GITHUB_LINK.findall(path.read_text(encoding="utf-8")):
            if kind == "commit":
                linked_commits.add(target)
            elif kind == "pull":
                linked_prs.add(int(target))
            else:
                tags.add(target)
    assert len(unlinked) == 60 and len(invented_prs) == 45
    assert linked_commits & unlinked == set()
    assert linked_prs & invented_prs == set()
    assert tags == set()  # the sample's one release is invented
    assert len(linked_commits) == 172 - 60  # every real sha is linked somewhere
    page = _page(demos[language], f"commits/{FAILED}/index.html")
    assert "github.com" not in article(page)


def _titles(shas: frozenset[str]) -> str:
    sample = resources.files("commit_digest").joinpath("data/sample-vllm.jsonl").read_text(encoding="utf-8")
    records = read_all_records(sample.splitlines(), source="sample")
    return "\n".join(record.commit.title for record in records if record.commit.sha in shas)


def test_a_sample_is_no_false_alarm_of_a_failed_fetch(demos: dict[str, Path]) -> None:
    status = json.loads(_page(demos["zh"], "status.json"))
    assert status["sample"] is True and status["stale"] is False and "notice" not in status
    assert status["text"].endswith("示例数据，不会更新")
    english = json.loads(_page(demos["en"], "status.json"))
    assert english["stale"] is False and english["text"].endswith("sample data, never updated")


def test_the_demo_shows_every_kind_of_page_with_content(demos: dict[str, Path]) -> None:
    root = demos["zh"]
    impact = visible_text(article(_page(root, "impact/index.html")))
    for found in (
        "VLLM_ROCM_USE_AITER_FUSED_RMSNORM_QUANT",
        "--compile-cache-per-rank",
        "tpu_inference",
        "seq_lens_cpu",
    ):
        assert found in impact
    deprecations = visible_text(article(_page(root, "deprecations/index.html")))
    assert "seq_lens_cpu" in deprecations and "该月没有" not in deprecations
    release = _page(root, "releases/v0.0.0/index.html")
    assert "虚构的示例版本" in release and "releases/tag" not in release
    failed = visible_text(article(_page(root, f"commits/{FAILED}/index.html")))
    assert "下次运行" in failed and "虚构的示例提交" in failed  # marked, retried next run
    written = visible_text(article(_page(root, f"commits/{MODEL_WRITTEN}/index.html")))
    assert "VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT" in written  # the legacy report's own words
    english = visible_text(article(_page(demos["en"], f"commits/{MODEL_WRITTEN}/index.html")))
    assert "offline rules" in english  # the Chinese report's analysis is not shown to English readers


def test_the_store_keeps_the_note_and_without_it_the_next_build_drops_the_line_from_every_page(
    demos: dict[str, Path],
) -> None:
    root = demos["en"]
    with AnalysisStore(root / "cache") as store:
        kept = SampleNote.model_validate_json(str(store.get_meta(SAMPLE_META)))
        assert kept.model_copy(update={"model_analyses": 112}) == NOTE.model_copy(update={"model_analyses": 112})
        assert kept.model_analyses == 0  # English: every analysis is the offline rules'
        store.set_meta(SAMPLE_META, None)  # the store of a real site
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        # An incremental build: the line is in every page's frame, so no page is reused with it.
        assert main(["build", "--cache", str(root / "cache"), "--site-dir", str(root / "site")]) == 0
    pages = sorted((root / "site").rglob("*.html"))
    assert len(pages) > 200
    assert [path for path in pages if "digest-sample" in path.read_text(encoding="utf-8")] == []
    status = json.loads(_page(root, "status.json"))
    assert "sample" not in status and status["stale"] is True  # real data 300+ days old: the notice is back
