"""Incremental builds: the site built by reusing the previous one equals a cold build of the same
inputs, file for file and byte for byte (apart from status.json, the build time stamp), across
every kind of change; and unchanged pages are really reused, not rendered again."""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from commit_digest.collect.fetch import last_fetch_key
from commit_digest.meaning import taxonomy as taxonomy_module
from commit_digest.models import ChangeType, CommitRecord, Importance
from commit_digest.site.build.incremental import MANIFEST_PATH, read_manifest
from commit_digest.site.model.summaries import PATH as SUMMARIES_PATH
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest_mkdocs.build import run_build
from tests.site.conftest import PROJECT, project_config
from tests.site.factories import REPOSITORY, label, make_commit, ok_analysis, sample_records, sha_for

TIME_STAMPED = {"status.json"}


def snapshot(site: Path) -> dict[str, bytes]:
    files = {
        path.relative_to(site).as_posix(): path.read_bytes()
        for path in sorted(site.rglob("*"))
        if path.is_file() and path.name not in TIME_STAMPED
    }
    # The manifest lists what each build wrote (a cold one everything, the next only what
    # changed): it must account for every file of the site, and is otherwise compared whole.
    manifest = read_manifest(site)
    assert manifest is not None and manifest.written is not None
    partitions = tuple(folder + "/" for folder in manifest.partition_folders())
    assert manifest.files() == {name for name in files if not name.startswith(partitions)} | TIME_STAMPED
    kept = json.loads(files[MANIFEST_PATH])
    del kept["written"]
    files[MANIFEST_PATH] = json.dumps(kept, sort_keys=True).encode()
    return files


def inode(path: Path) -> int:
    return path.stat().st_ino


@dataclass
class Project:
    root: Path
    options: dict[str, Any]

    @property
    def site(self) -> Path:
        return self.root / "site"

    def configure(self) -> None:
        config = project_config(cache_dir="cache", **self.options)
        text = yaml.safe_dump(config, allow_unicode=True, sort_keys=False)
        (self.root / "mkdocs.yml").write_text(text, encoding="utf-8")

    def build(self, *, full: bool = False, site: str = "site") -> Path:
        return run_build(self.root / "mkdocs.yml", site_dir=self.root / site, strict=True, full=full)

    def assert_incremental_equals_cold(self) -> None:
        incremental = self.build()
        cold = self.build(full=True, site="cold")
        left, right = snapshot(incremental), snapshot(cold)
        assert sorted(left) == sorted(right)
        differing = [name for name in left if left[name] != right[name]]
        assert differing == []
        shutil.rmtree(cold)

    def commit_page(self, seed: str) -> Path:
        return self.site / "commits" / sha_for(seed)[:12] / "index.html"

    def store(self) -> AnalysisStore:
        return AnalysisStore(self.root / "cache")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    root = tmp_path_factory.mktemp("incremental")
    shutil.copytree(PROJECT / "docs", root / "docs")
    with AnalysisStore(root / "cache") as store:
        for record in sample_records():
            store.put(record)
    project = Project(root, {"workers": 1})  # in one process: a test can count what the build does
    project.configure()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)  # gen-files scripts are relative to the site's folder
        project.build()
        yield project


def test_a_build_with_nothing_new_renews_only_the_status(project: Project) -> None:
    before = snapshot(project.site)
    page = project.commit_page("high-1")
    old_inode = inode(page)
    status = json.loads((project.site / "status.json").read_text(encoding="utf-8"))
    project.build()
    assert snapshot(project.site) == before
    assert inode(page) == old_inode  # the site was not rebuilt at all
    renewed = json.loads((project.site / "status.json").read_text(encoding="utf-8"))
    assert renewed["built_at"] > status["built_at"]
    timed = ("built_at", "text", "notice")  # the notice says how old the data is at build time
    assert {key: value for key, value in renewed.items() if key not in timed} == {
        key: value for key, value in status.items() if key not in timed
    }


def test_a_fetch_that_found_nothing_new_still_renews_the_last_fetch_in_the_footer(project: Project) -> None:
    project.build()
    before = snapshot(project.site)
    fetched = datetime(2026, 1, 18, 6, 30, tzinfo=UTC)
    with project.store() as store:
        store.set_meta(last_fetch_key(REPOSITORY), fetched.isoformat())  # what a fetch records, no record changed
    project.build()
    assert snapshot(project.site) == before  # still nothing rendered
    status = json.loads((project.site / "status.json").read_text(encoding="utf-8"))
    assert status["last_fetch"] == fetched.isoformat()


def test_a_new_day_renders_its_pages_and_reuses_the_rest(project: Project) -> None:
    untouched = inode(project.commit_page("high-1"))
    older_week = project.site / "weeks" / "2026-W01" / "index.html"
    untouched_week = inode(older_week)
    when = datetime(2026, 1, 18, 9, 30, tzinfo=UTC)
    with project.store() as store:
        for number in range(3):
            commit = make_commit(f"new-day-{number}", f"[ROCm] New day commit {number}", when + timedelta(hours=number))
            analysis = ok_analysis(Importance.MEDIUM, platforms=(label("rocm", "tag [ROCm]"),))
            store.put(CommitRecord(commit=commit, analysis=analysis))
    project.assert_incremental_equals_cold()
    assert inode(project.commit_page("high-1")) == untouched
    assert project.commit_page("new-day-0").exists()
    # The new day (a Sunday) re-renders its week; the week before keeps its page.
    assert inode(older_week) == untouched_week
    assert "New day commit 0" in (project.site / "weeks" / "2026-W03" / "index.html").read_text(encoding="utf-8")
    assert "New day commit 0" in (project.site / "feeds" / "all.xml").read_text(encoding="utf-8")
    manifest = read_manifest(project.site)
    assert manifest is not None and "days/2026-01-18.md" in manifest.pages


def test_a_reanalysed_commit_renders_again(project: Project) -> None:
    page = project.commit_page("high-1")
    untouched = project.commit_page("new-day-1")
    untouched_inode = inode(untouched)
    with project.store() as store:
        record = store.get("vllm-project/vllm", sha_for("high-1"))
        assert record is not None
        better = ok_analysis(Importance.HIGH, change_type=ChangeType.BUGFIX, summary=("重新分析后的摘要 reanalysed",))
        store.put(record.model_copy(update={"analysis": better}))
    project.assert_incremental_equals_cold()
    assert "重新分析后的摘要 reanalysed" in page.read_text(encoding="utf-8")
    assert inode(untouched) == untouched_inode


def test_a_changed_theme_override_renders_everything_again(project: Project) -> None:
    page = project.commit_page("new-day-1")
    old_inode = inode(page)
    override = project.root / "docs" / "overrides" / "partials" / "copyright.html"
    override.write_text(override.read_text(encoding="utf-8") + "\n<!-- a site owner's note -->\n", encoding="utf-8")
    project.assert_incremental_equals_cold()
    assert inode(page) != old_inode
    assert "a site owner's note" in page.read_text(encoding="utf-8")


def test_a_changed_taxonomy_display_name_renders_everything_again(project: Project) -> None:
    project.options["taxonomy"] = {"platforms": {"rocm": {"name": {"zh": "AMD 显卡", "en": "AMD GPUs"}}}}
    project.configure()
    project.assert_incremental_equals_cold()
    assert "AMD 显卡" in project.commit_page("new-day-1").read_text(encoding="utf-8")


def test_a_taxonomy_change_relabels_stored_commits_at_the_next_build(project: Project) -> None:
    """A new platform's rules reach commits analysed long before it existed: the store is not
    touched (no analysis is redone, no LLM asked), the site shows the label and the rule's reason."""
    with project.store() as store:
        revision = store.revision()
    page = project.commit_page("medium-1")  # "[Quant] Support MXFP4 W4A16 for MoE (#32285)"
    assert "/platforms/ascend/" not in page.read_text(encoding="utf-8")
    ascend = {"name": {"zh": "昇腾 NPU", "en": "Ascend NPU"}, "words": ["W4A16"]}
    project.options["taxonomy"] = {"platforms": {"ascend": ascend}}
    project.configure()
    project.assert_incremental_equals_cold()
    text = page.read_text(encoding="utf-8")
    assert "../../platforms/ascend/" in text and "W4A16" in text[text.index("昇腾 NPU") :]
    assert (project.site / "platforms" / "ascend" / "index.html").exists()
    with project.store() as store:
        assert store.revision() == revision
    # And back: removing the rule removes the label from every page.
    del project.options["taxonomy"]["platforms"]["ascend"]
    project.configure()
    project.assert_incremental_equals_cold()
    assert "platforms/ascend/" not in page.read_text(encoding="utf-8")


def test_a_changed_plugin_option_renders_everything_again(project: Project) -> None:
    project.options["days_on_home"] = 1
    project.configure()
    project.assert_incremental_equals_cold()
    home = (project.site / "index.html").read_text(encoding="utf-8")
    assert "2026-01-18" in home and "2026-01-15" not in home


def test_full_renders_every_page_even_when_nothing_changed(project: Project) -> None:
    page = project.commit_page("new-day-1")
    old_inode = inode(page)
    project.build(full=True)
    assert inode(page) != old_inode


def test_a_new_month_reuses_the_old_months_search_partition_and_its_filter(project: Project) -> None:
    from commit_digest.search.reader import search

    january = project.site / "search" / "2026q1m01" / "s"
    kept = {path.name: inode(path) for path in january.glob("*.bin")}
    when = datetime(2026, 2, 3, 9, 30, tzinfo=UTC)
    with project.store() as store:
        commit = make_commit("february-1", "[XPU] February zanzibarite commit", when)
        store.put(CommitRecord(commit=commit, analysis=ok_analysis(Importance.LOW)))
    project.assert_incremental_equals_cold()
    assert {path.name: inode(path) for path in january.glob("*.bin")} == kept  # linked, not written again

    def read(path: str) -> bytes:
        return (project.site / "search" / path).read_bytes()

    # The bucket files were rebuilt from both partitions' filters: each partition's words are found.
    assert search(read, "zanzibarite") == [sha_for("february-1")[:12]]
    assert sha_for("high-1")[:12] in search(read, "ROCm")
    for query in ("zanzibarite", "ROCm", "调度器", "nothing-like-this"):
        assert search(read, query) == search(read, query, use_filter=False), query


def test_search_partitions_are_closed_quarters_and_the_newest_quarters_months() -> None:
    from zoneinfo import ZoneInfo

    from commit_digest.meaning.taxonomy import load_taxonomy
    from commit_digest.site.build.output import search_partitions
    from commit_digest.site.model.index import build_index

    days = [datetime(2025, 11, 3, tzinfo=UTC), datetime(2026, 2, 10, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)]
    records = [
        CommitRecord(commit=make_commit(f"partition-{number}", f"Commit {number}", when))
        for number, when in enumerate(days)
    ]
    index = build_index(records, repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=load_taxonomy())
    parts = [(part, [item.sha for item in items]) for part, items in search_partitions(index)]
    assert [part for part, _ in parts] == ["2026q1m03", "2026q1m02", "2025q4"]
    assert [len(shas) for _, shas in parts] == [1, 1, 1]


def calls_of(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, noted: Callable[..., str]) -> list[str]:
    """What ``noted`` makes of each call to ``owner.name`` from now on (the call itself goes through)."""
    calls: list[str] = []
    original = getattr(owner, name)

    def counting(*args: Any) -> Any:
        calls.append(noted(*args))
        return original(*args)

    monkeypatch.setattr(owner, name, counting)
    return calls


def test_a_new_day_classifies_only_its_own_commits(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """The taxonomy's labels of the archive's commits are kept from the previous build (with
    the rest of what it made of each commit)."""
    classified = calls_of(monkeypatch, taxonomy_module, "classify", lambda title, *_: title)
    when = datetime(2026, 1, 19, 9, 30, tzinfo=UTC)
    with project.store() as store:
        store.put(CommitRecord(commit=make_commit("classified-once", "[CI] Only this one is new", when)))
    project.build()
    assert classified == ["[CI] Only this one is new"]
    project.assert_incremental_equals_cold()  # a cold build classifies all and keeps the same summaries


def test_a_new_day_parses_only_its_own_records(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the previous build made of every unchanged record is kept (summaries.jsonl.gz): a
    build after a new day parses that day's records, and any record whose text changed."""
    parsed = calls_of(monkeypatch, AnalysisStore, "parse_record", lambda _store, _repository, sha, _text: sha)
    project.build()  # whatever earlier tests left: now every summary is kept
    parsed.clear()
    when = datetime(2026, 1, 20, 8, 0, tzinfo=UTC)
    with project.store() as store:
        store.put(CommitRecord(commit=make_commit("parsed-once", "[Core] The new day's commit", when)))
        changed = next(store.records())
        store.put(changed.model_copy(update={"commit": changed.commit.model_copy(update={"title": "Renamed"})}))
    project.build()
    assert sorted(parsed) == sorted([sha_for("parsed-once"), changed.commit.sha])
    assert "Renamed" in (project.site / "commits" / changed.commit.sha[:12] / "index.html").read_text(encoding="utf-8")
    project.assert_incremental_equals_cold()


@pytest.mark.parametrize(
    "content",
    [
        b"not gzip at all",
        gzip.compress(b'{"format": 2, "shared": "x"}\n'),
        gzip.compress(b"[" * 100),
        gzip.compress(b"truncated")[:-6],
    ],
    ids=["not-gzip", "other-inputs", "not-json", "truncated"],
)
def test_a_damaged_summaries_file_costs_time_not_pages(project: Project, content: bytes) -> None:
    """The kept summaries are read back from the published site: if they are unreadable or from
    other inputs, every record is read again and the site is what a cold build makes."""
    project.build()
    (project.site / SUMMARIES_PATH).write_bytes(content)
    with project.store() as store:  # something to build
        commit = make_commit(f"after-{content[:12]!r}", "[Doc] New", datetime(2026, 1, 21, tzinfo=UTC))
        store.put(CommitRecord(commit=commit))
    project.assert_incremental_equals_cold()


PLATFORMS = 11  # a summary row's platforms: places in the file's table of labels


@pytest.mark.parametrize("forgery", ["label", "place", "repository", "sha", "group"])
def test_a_forged_summary_is_refused(project: Project, forgery: str) -> None:
    """A kept summary that does not pass the checks a record's labels pass is not used: its
    record (or every record, when the table of labels fails) is read again."""
    project.build()
    path = project.site / SUMMARIES_PATH
    header, labels, *lines = gzip.decompress(path.read_bytes()).splitlines()
    table = json.loads(labels)
    at = next(at for at, line in enumerate(lines) if json.loads(line.partition(b" ")[2])[PLATFORMS])
    text_digest, _, row = lines[at].partition(b" ")
    forged = json.loads(row)
    if forgery == "label":
        table[forged[PLATFORMS][0]] = ["<script>", "rule", "forged"]  # an id no label may have
    elif forgery == "place":
        forged[PLATFORMS] = [len(table)]  # a label the table does not have
    elif forgery == "repository":  # its links are made from it
        forged[0] = 'vllm-project/vllm"><script>alert(1)</script>'
    elif forgery == "sha":
        forged[1] = "javascript:alert(1)"
    else:  # pages put the group in class names
        forged[7] = 'high" onmouseover="alert(1)'
    lines[at] = text_digest + b" " + json.dumps(forged).encode()
    path.write_bytes(gzip.compress(b"\n".join([header, json.dumps(table).encode(), *lines]) + b"\n"))
    with project.store() as store:
        commit = make_commit(f"after-forged-{forgery}", "[Doc] New", datetime(2026, 1, 22, tzinfo=UTC))
        store.put(CommitRecord(commit=commit))
    project.assert_incremental_equals_cold()


def move_to_a_day_of_its_own(project: Project, seed: str, when: datetime) -> str:
    """Stores ``seed``'s commit again on a new day: the day it leaves keeps no page of its own."""
    with project.store() as store:
        record = next(record for record in store.records() if record.commit.sha == sha_for(seed))
        store.put(record.model_copy(update={"commit": record.commit.model_copy(update={"committed_at": when})}))
    return when.date().isoformat()


def test_a_build_updates_the_published_site_in_place(project: Project) -> None:
    """The site is updated, not rebuilt: unchanged files are never touched, pages no longer made
    are deleted (with their folders), and the result is file for file what a cold build makes."""
    unchanged = inode(project.commit_page("high-1"))
    manifest = read_manifest(project.site)
    assert manifest is not None and manifest.written is not None
    day = move_to_a_day_of_its_own(project, "low-1", datetime(2026, 1, 23, 10, tzinfo=UTC))
    project.build()
    assert (project.site / "days" / day / "index.html").is_file()
    assert not list(project.site.parent.glob(".site.*"))  # no staging folder, no journal left
    assert inode(project.commit_page("high-1")) == unchanged
    project.assert_incremental_equals_cold()
    # Moved again: the day of its own is gone, folder and all.
    move_to_a_day_of_its_own(project, "low-1", datetime(2026, 1, 24, 10, tzinfo=UTC))
    project.build()
    assert not (project.site / "days" / day).exists()
    project.assert_incremental_equals_cold()


def test_a_publication_cut_short_is_finished_by_the_next_build(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed while it moved the new files in and deleted the old: the journal beside the site
    lets the next build finish the publication before it does anything else."""
    from commit_digest.site.build import publication

    day = move_to_a_day_of_its_own(project, "low-1", datetime(2026, 1, 25, 10, tzinfo=UTC))

    def killed(folder: Path, root: Path) -> None:
        raise KeyboardInterrupt  # after the moves and the first deletion

    with monkeypatch.context() as patch:
        patch.setattr(publication, "_remove_empty_parents", killed)
        with pytest.raises(KeyboardInterrupt):
            project.build()
    assert (project.site / "days" / day / "index.html").is_file()  # moved in before the kill
    assert list(project.site.parent.glob(".site.publishing.json"))
    project.build()  # nothing new in the store: finishes the publication, then renews the status
    assert not list(project.site.parent.glob(".site.*"))
    project.assert_incremental_equals_cold()


@pytest.mark.parametrize("where", ["written", "pages"])
def test_a_manifest_naming_files_outside_the_site_is_refused(project: Project, where: str) -> None:
    """The next build deletes, moves over and copies what the published manifest names: a path
    that leaves the site makes the manifest unusable (a whole new site is built), and the file
    it names is neither deleted nor published."""
    project.build()
    outside = project.root / "outside.txt"
    outside.write_text("not the site's", encoding="utf-8")
    path = project.site / MANIFEST_PATH
    manifest = json.loads(path.read_text(encoding="utf-8"))
    if where == "written":
        manifest["written"].append("../outside.txt")
    else:
        page = next(iter(manifest["pages"].values()))
        page["output"] = "../outside.txt"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    assert read_manifest(project.site) is None
    with project.store() as store:
        store.put(CommitRecord(commit=make_commit(f"after-{where}", "[Doc] New", datetime(2026, 1, 26, tzinfo=UTC))))
    project.assert_incremental_equals_cold()
    assert outside.read_text(encoding="utf-8") == "not the site's"
    assert b"not the site's" not in b"".join(snapshot(project.site).values())
