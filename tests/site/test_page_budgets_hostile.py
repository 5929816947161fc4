"""Every page keeps under 150 KB whatever one commit or one release holds: a commit whose diff adds
1,500 environment variables and 1,500 CLI flags (one of them, or three in one week), and a first
release that carries 3,000 commits, some hundred of them changing what operators configure.

Long operator lists are cut with "and N more" and a link to where the rest is listed: on week,
impact and release pages to the commit's own page, on the commit page to its diff on GitHub.
The commits that add thousands of names are made by git in the test, their patches read back
through ``GitSource`` as a fetch stores them."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from benchmarks.synthetic import synthetic_records

from commit_digest.collect.git import GitSource
from commit_digest.meaning.releases import Release
from commit_digest.models import (
    ChangeType,
    Commit,
    CommitRecord,
    FileChange,
    Importance,
    PatchState,
)
from commit_digest.store.analysis_store import AnalysisStore
from tests.git import run_git
from tests.site.conftest import BuiltSite, build_site
from tests.site.factories import REPOSITORY, label, ok_analysis
from tests.site.html import article, hrefs, visible_text

pytestmark = pytest.mark.slow

PAGE_LIMIT = 150 * 1024  # as benchmarks/scale.py counts the README's "150 KB"
ADDED = 1_500  # environment variables, and as many CLI flags, one commit adds
ENVS = "vllm/envs.py"
CLI = "vllm/entrypoints/openai/cli_args.py"
# The synthetic archive runs from 2025-01-01 for 67 days; the commits with operator changes land after it.
MODERATE_DAY = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)
HOSTILE_DAY = datetime(2025, 3, 24, 9, 0, tzinfo=UTC)  # a Monday: the three land in one ISO week
TAG = "v0.11.1"


def _env_table(prefixes: list[str]) -> str:
    entries = "".join(
        f'    "{prefix}_{index}": lambda: os.getenv("{prefix}_{index}", "{index}"),\n'
        for prefix in prefixes
        for index in range(ADDED if prefix != "VLLM_BASE" else 3)
    )
    return (
        "import os\nfrom typing import Any, Callable\n\n"
        f"environment_variables: dict[str, Callable[[], Any]] = {{\n{entries}}}\n"
    )


def _cli_module(prefixes: list[str]) -> str:
    flags = "".join(
        f'    parser.add_argument("--{prefix}-{index}", type=int, default={index}, help="Flag {index}.")\n'
        for prefix in prefixes
        for index in range(ADDED if prefix != "base" else 3)
    )
    return f"import argparse\n\n\ndef make_arg_parser(parser: argparse.ArgumentParser):\n{flags}    return parser\n"


def hostile_commits(folder: Path, count: int) -> list[Commit]:
    """A base commit, then ``count`` commits (a day apart) each adding ADDED variables and flags."""
    run_git(folder, "init", "-q", "-b", "main")
    source = GitSource(REPOSITORY, folder, patch_cap_bytes=400_000)
    env_prefixes, flag_prefixes = ["VLLM_BASE"], ["base"]
    made = []
    for number in range(count + 1):
        if number:
            env_prefixes.append(f"VLLM_BULK{number}")
            flag_prefixes.append(f"bulk{number}-flag")
        (folder / ENVS).parent.mkdir(parents=True, exist_ok=True)
        (folder / CLI).parent.mkdir(parents=True, exist_ok=True)
        (folder / ENVS).write_text(_env_table(env_prefixes), encoding="utf-8")
        (folder / CLI).write_text(_cli_module(flag_prefixes), encoding="utf-8")
        when = (HOSTILE_DAY + timedelta(days=number)).isoformat()
        identity = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com", "GIT_AUTHOR_DATE": when}
        identity |= {"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com", "GIT_COMMITTER_DATE": when}
        title = f"[Config] Add {ADDED} settings, batch {number} (#{900 + number})" if number else "Base (#900)"
        run_git(folder, "add", "-A")
        run_git(folder, "commit", "-q", "-m", title, env=identity)
        made.append(source.detail_commit(run_git(folder, "rev-parse", "HEAD"), with_pull_request=False))
    return made


def _operator_record(commit: Commit) -> CommitRecord:
    analysis = ok_analysis(
        Importance.HIGH,
        change_type=ChangeType.CONFIG,
        summary=("新增大量配置项 adds many settings",),
        platforms=(label("cuda", "reason"),),
        subsystems=(label("core", "reason"),),
    )
    return CommitRecord(commit=commit, analysis=analysis)


def moderate_records(count: int) -> list[CommitRecord]:
    """Commits each adding eight variables and four flags, as a young project's history holds many."""
    records = []
    for number in range(count):
        name = f"VLLM_M{number}"
        envs = "".join(f'+    "{name}_{i}": lambda: os.getenv("{name}_{i}", "{i}"),\n' for i in range(8))
        flags = "".join(f'+    parser.add_argument("--m{number}-{i}", type=int, default={i})\n' for i in range(4))
        files = (
            FileChange(
                path=ENVS,
                additions=8,
                patch="@@ -20,2 +20,10 @@ environment_variables = {\n" + '     "VLLM_A": lambda: 1,\n' + envs + " }\n",
                patch_state=PatchState.INCLUDED,
            ),
            FileChange(
                path=CLI,
                additions=4,
                patch="@@ -5,2 +5,6 @@ def make_arg_parser(parser):\n"
                + '     parser.add_argument("--host")\n'
                + flags
                + "     return parser\n",
                patch_state=PatchState.INCLUDED,
            ),
        )
        when = MODERATE_DAY + timedelta(hours=number * 2)
        commit = Commit(
            repository=REPOSITORY,
            sha=f"{number + 1:040x}",
            author_name="Dev",
            authored_at=when,
            committed_at=when,
            title=f"[Core] Add settings for feature {number} (#{5_000 + number})",
            files=files,
        )
        records.append(_operator_record(commit))
    return records


def _pages(site: BuiltSite) -> Iterator[tuple[str, int]]:
    for path in sorted(site.site.rglob("*.html")):
        yield str(path.relative_to(site.site)), path.stat().st_size


def _resolve(site: BuiltSite, page: str, target: str) -> Path:
    target = target.split("#")[0]
    path = posixpath.normpath(posixpath.join(posixpath.dirname(page), target))
    return site.site / path / "index.html" if target.endswith("/") else site.site / path


def _more_links(site: BuiltSite, page: str, words: str) -> list[str]:
    """The targets of the page's "and N more …" links whose text holds ``words``."""
    found = re.findall(r'<a href="([^"]+)">([^<]*)</a>', article(site.page(page)))
    return [target for target, text in found if words in visible_text(text)]


@pytest.fixture(scope="module")
def one(tmp_path_factory: pytest.TempPathFactory) -> tuple[BuiltSite, list[Commit]]:
    """The English site of one such commit (and the base it adds to)."""
    root = tmp_path_factory.mktemp("one")
    repository = root / "repository"
    repository.mkdir()
    commits = hostile_commits(repository, 1)
    return build_site(root / "build", [_operator_record(commit) for commit in commits], language="en"), commits


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> tuple[BuiltSite, list[Commit]]:
    """The Chinese site of a 3,000-commit archive, 120 commits of moderate operator changes, three
    commits of 3,000 changes each in one week, and one first release that carries them all."""
    root = tmp_path_factory.mktemp("three")
    repository = root / "repository"
    repository.mkdir()
    commits = hostile_commits(repository, 3)
    records = [
        *synthetic_records(3_000),
        *moderate_records(120),
        *(_operator_record(commit) for commit in commits),
    ]
    build = root / "build"
    build.mkdir()
    with AnalysisStore(build / "cache") as store:
        store.put_release(
            Release(
                repository=REPOSITORY,
                tag=TAG,
                sha=commits[-1].sha,
                tagged_at=commits[-1].committed_at + timedelta(days=1),
                commits=tuple(record.commit.sha for record in records),
            )
        )
    return build_site(build, records), commits


def test_the_commits_carry_thousands_of_operator_changes(one: tuple[BuiltSite, list[Commit]]) -> None:
    site, _ = one
    text = visible_text(article(site.page("weeks/2025-W13")))
    assert "New CLI flag --bulk1-flag-0 (default 0)" in text
    assert f"and {2 * ADDED - 5} more operator changes" in text


def test_every_page_of_one_such_commit_keeps_under_150_kb(one: tuple[BuiltSite, list[Commit]]) -> None:
    site, _ = one
    sizes = dict(_pages(site))
    assert {"impact/index.html", "weeks/2025-W13/index.html"} <= set(sizes)
    assert {page: size for page, size in sizes.items() if size >= PAGE_LIMIT} == {}


def test_every_page_of_three_such_commits_and_a_huge_release_keeps_under_150_kb(
    three: tuple[BuiltSite, list[Commit]],
) -> None:
    site, _ = three
    sizes = dict(_pages(site))
    assert f"releases/{TAG}/index.html" in sizes
    assert {page: size for page, size in sizes.items() if size >= PAGE_LIMIT} == {}


def test_the_commit_page_lists_what_fits_then_links_the_rest_to_its_diff(one: tuple[BuiltSite, list[Commit]]) -> None:
    site, commits = one
    hostile = commits[-1]
    page = f"commits/{hostile.sha[:12]}"
    shown = article(site.page(page)).count('<li data-kind="')
    assert 50 <= shown < 2 * ADDED
    [target] = _more_links(site, page, f"and {2 * ADDED - shown} more")
    assert target == f"https://github.com/{REPOSITORY}/commit/{hostile.sha}"


@pytest.mark.parametrize("page", ["impact", "weeks/2025-W13", "impact/2025-03"])
def test_list_pages_cut_each_commit_and_link_to_its_page(one: tuple[BuiltSite, list[Commit]], page: str) -> None:
    site, commits = one
    hostile = commits[-1]
    html = article(site.page(page))
    assert html.count('<li data-kind="') <= 10  # five of each commit's changes
    [target] = [target for target in _more_links(site, page, f"and {2 * ADDED - 5} more") if hostile.sha[:12] in target]
    assert target.endswith(f"commits/{hostile.sha[:12]}/#operator-impact")
    assert _resolve(site, f"{page}/index.html", target).is_file()


def test_the_huge_release_keeps_its_highlights_and_cuts_its_lists_with_links(
    three: tuple[BuiltSite, list[Commit]],
) -> None:
    site, commits = three
    page = f"releases/{TAG}"
    html = article(site.page(page))
    text = visible_text(html)
    assert "[Config] Add 1500 settings, batch 3 (#903)" in text  # an upgrade note, cut
    assert text.count("以及另外") >= 10  # labels' and commits' "and N more"
    for target in hrefs(html):
        if target.startswith(("http:", "https:", "#")):
            continue
        assert _resolve(site, f"{page}/index.html", target).is_file(), target
    assert any(f"commits/{commits[-1].sha[:12]}" in target for target in _more_links(site, page, "项运维改动"))


@pytest.mark.parametrize("page", ["impact", "weeks/2025-W13"])
def test_three_such_commits_in_one_week_each_link_to_their_page(
    three: tuple[BuiltSite, list[Commit]], page: str
) -> None:
    site, commits = three
    targets = _more_links(site, page, "项运维改动")
    for hostile in commits[1:]:
        assert any(target.split("#")[0].rstrip("/").endswith(f"commits/{hostile.sha[:12]}") for target in targets)


def test_the_impact_feed_names_a_few_changes_of_each_commit(one: tuple[BuiltSite, list[Commit]]) -> None:
    site, _ = one
    feed = (site.site / "feeds" / "impact.xml").read_text(encoding="utf-8")
    assert feed.count("• New CLI flag --bulk1-flag-") == 5
    assert f"and {2 * ADDED - 5} more operator changes" in feed
    assert len(feed.encode()) < 50_000
