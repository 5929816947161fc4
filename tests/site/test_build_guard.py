"""A site is never replaced by a worse one by mistake, one builder works on a site folder at a
time, and a build's faults are one line: real `commit-digest build` runs in subprocesses (the
one line on stderr and the exit status are what an operator and the workflow see)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from commit_digest.site.build import swap
from commit_digest.site.build.builder_lock import holding, site_lock
from commit_digest.store.analysis_store import AnalysisStore
from tests.disks import mount_tmpfs, unmount
from tests.site.conftest import PROJECT, project_config
from tests.site.factories import sample_records

SAMPLE = len(sample_records())


def snapshot(site: Path) -> dict[str, bytes]:
    return {str(path.relative_to(site)): path.read_bytes() for path in sorted(site.rglob("*")) if path.is_file()}


def pages(site: Path) -> dict[str, bytes]:
    """The site's files but its build state and the time-stamped status: what a reader gets."""
    return {
        name: data
        for name, data in snapshot(site).items()
        if not name.startswith(".commit-digest/") and name != "status.json"
    }


def command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "commit_digest.cli", "build", "-f", "mkdocs.yml", "--strict", *arguments]


# The CLI under a given umask (a web server's account reads what the build publishes).
_WITH_UMASK = (
    "import os, runpy, sys; os.umask(int(sys.argv.pop(1), 8)); "
    "runpy.run_module('commit_digest.cli', run_name='__main__', alter_sys=True)"
)


def run(root: Path, *arguments: str, umask: int | None = None, **options: Any) -> subprocess.CompletedProcess[str]:
    words = command(*arguments)
    if umask is not None:
        words = [sys.executable, "-c", _WITH_UMASK, oct(umask), *words[3:]]
    return subprocess.run(words, cwd=root, capture_output=True, text=True, timeout=300, check=False, **options)


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr, result.stderr
    assert len(lines) == 1, result.stderr
    return lines[0]


def make_project(root: Path, records: int = SAMPLE) -> Path:
    shutil.copytree(PROJECT / "docs", root / "docs")
    with AnalysisStore(root / "cache") as store:
        for record in sample_records()[:records]:
            store.put(record)
    config = project_config(cache_dir="cache")
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose site was built once, under umask 022; tests copy it before changing it."""
    root = make_project(tmp_path_factory.mktemp("guard") / "project")
    built = run(root, "--site-dir", "site", umask=0o022)
    assert built.returncode == 0, built.stderr[-3000:]
    return root


@pytest.fixture
def project(published: Path, tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(published, root, symlinks=True)
    return root


def published_commits(site: Path) -> int:
    return int(json.loads((site / "status.json").read_text(encoding="utf-8"))["commits"])


# -- a store that is not there, or far smaller --------------------------------------------------


@pytest.mark.parametrize("store", ["cahce", "a-file"])
def test_a_missing_store_is_refused_and_the_site_kept(project: Path, store: str) -> None:
    (project / "a-file").write_text("not a store", encoding="utf-8")
    before = snapshot(project / "site")
    refused = run(project, "--cache", store, "--site-dir", "site")
    assert refused.returncode == 2
    line = one_line(refused)
    assert str(project / store) in line and "--cache" in line
    if store == "cahce":
        assert f"it shows {SAMPLE} commits" in line and "--allow-shrink" in line
    assert snapshot(project / "site") == before
    assert not (project / "cahce").exists()
    assert (project / "a-file").read_text(encoding="utf-8") == "not a store"
    assert not [path.name for path in project.iterdir() if path.name.startswith(".site.")]


def test_a_missing_store_builds_no_first_site_either(project: Path) -> None:
    """A typo on the very first build would publish a site of no commits: refused too."""
    refused = run(project, "--cache", "cahce", "--site-dir", "first-site")
    assert refused.returncode == 2
    line = one_line(refused)
    assert f"the store {project / 'cahce'} does not exist: nothing built into {project / 'first-site'}" in line
    assert not (project / "first-site").exists() and not (project / "cahce").exists()


def test_a_far_smaller_store_is_refused_unless_meant(project: Path) -> None:
    few = SAMPLE // 2 - 1
    with AnalysisStore(project / "small") as store:
        for record in sample_records()[:few]:
            store.put(record)
    before = snapshot(project / "site")
    refused = run(project, "--cache", "small", "--site-dir", "site")
    assert refused.returncode == 2
    line = one_line(refused)
    assert f"the store {project / 'small'} holds {few} commits" in line
    assert f"shows {SAMPLE} commits" in line and "--allow-shrink" in line
    assert snapshot(project / "site") == before

    meant = run(project, "--cache", "small", "--site-dir", "site", "--allow-shrink")
    assert meant.returncode == 0, meant.stderr[-3000:]
    assert published_commits(project / "site") == few


def test_a_store_of_half_the_site_or_more_builds(project: Path) -> None:
    half = -(-SAMPLE // 2)
    with AnalysisStore(project / "half") as store:
        for record in sample_records()[:half]:
            store.put(record)
    built = run(project, "--cache", "half", "--site-dir", "site")
    assert built.returncode == 0, built.stderr[-3000:]
    assert published_commits(project / "site") == half


# -- the site folder -----------------------------------------------------------------------------


def test_a_site_path_that_is_a_file_is_refused_and_kept(project: Path) -> None:
    (project / "site.txt").write_text("the operator's notes", encoding="utf-8")
    refused = run(project, "--site-dir", "site.txt")
    assert refused.returncode == 2
    assert str(project / "site.txt") in one_line(refused)
    assert (project / "site.txt").read_text(encoding="utf-8") == "the operator's notes"


def test_the_published_site_has_the_umasks_permissions(published: Path) -> None:
    """Built under umask 022: a web server running as another user reads every file."""
    site = published / "site"
    assert stat.S_IMODE(site.stat().st_mode) == 0o755
    for path in site.rglob("*"):
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode == (0o755 if path.is_dir() else 0o644), (path, oct(mode))


@pytest.fixture
def mount(tmp_path: Path) -> Iterator[Callable[[Path, str], None]]:
    """Mounts a tmpfs (root only: the test is skipped where mounting is not permitted)."""
    mounted: list[Path] = []

    def mount_at(folder: Path, size: str) -> None:
        if not mount_tmpfs(folder, size):
            pytest.skip("mounting a tmpfs is not permitted here")
        mounted.append(folder)

    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    yield mount_at
    for folder in reversed(mounted):
        unmount(folder)


def test_a_mount_point_as_site_folder_is_published_into(project: Path, mount: Callable[[Path, str], None]) -> None:
    site = project / "mounted"
    mount(site, "64m")
    (site / "stale.html").write_text("left by another tool", encoding="utf-8")
    first = run(project, "--site-dir", "mounted")  # whole, into the mount point
    assert first.returncode == 0, first.stderr[-3000:]
    assert os.path.ismount(site)
    assert published_commits(site) == SAMPLE
    assert not (site / "stale.html").exists()

    with AnalysisStore(project / "cache") as store:  # one more commit: published in place
        record = sample_records()[0]
        later = record.commit.model_copy(update={"sha": "f" * 40, "committed_at": record.commit.committed_at})
        store.put(record.model_copy(update={"commit": later}))
    second = run(project, "--site-dir", "mounted")
    assert second.returncode == 0, second.stderr[-3000:]
    assert os.path.ismount(site)
    assert published_commits(site) == SAMPLE + 1
    assert (site / "commits" / ("f" * 12) / "index.html").is_file()

    third = run(project, "--site-dir", "mounted", "--full")  # whole again, over a full site
    assert third.returncode == 0, third.stderr[-3000:]
    assert os.path.ismount(site)
    cold = run(project, "--site-dir", "cold", "--full")
    assert cold.returncode == 0, cold.stderr[-3000:]
    assert pages(site) == pages(project / "cold")
    # Only the build's own state besides the pages (the previous site may still be being removed).
    state = {path.name for path in (site / ".commit-digest").iterdir()}
    assert not [name for name in state if name.startswith((".mounted.building-", ".mounted.lock"))]


# -- one builder per site folder -----------------------------------------------------------------


def test_a_second_build_waits_for_the_first_or_ends_with_one_line(project: Path) -> None:
    site = project / "site"
    # A build that holds the site (this test) and the staging folder it is writing.
    theirs = project / ".site.building-theirs"
    theirs.mkdir()
    (theirs / "index.html").write_text("being built", encoding="utf-8")
    with holding([site_lock(site)]):
        refused = run(project, "--site-dir", "site")
        assert refused.returncode == 2
        line = one_line(refused)
        assert f"holds the site folder {site}" in line and "--wait SECONDS" in line
        assert f"process {os.getpid()}" in line
        assert (theirs / "index.html").is_file()

        waiting = subprocess.Popen(
            command("--site-dir", "site", "--wait", "120"), cwd=project, stderr=subprocess.PIPE, text=True
        )
        assert waiting.stderr is not None
        said = ""
        while "waiting up to" not in said:  # the marker: it waits, and says so
            said = waiting.stderr.readline()
            assert said, "the second build ended instead of waiting"
        assert "waiting up to 120 s" in said and str(site) in said
        assert (theirs / "index.html").is_file()  # never another build's staging while it holds the site
    # Released: the holder of that staging folder is gone, so the waiting build clears it and builds.
    rest = waiting.communicate(timeout=300)[1]
    assert waiting.returncode == 0, rest[-3000:]
    assert "waiting" not in rest
    assert not theirs.exists()
    assert published_commits(site) == SAMPLE


# A gen-files script that holds a build at a marker: it says so, then waits for a line on stdin.
_HOLDER_SCRIPT = """\
import os, sys
if os.environ.get("HOLD_THE_BUILD"):
    print("holding the build", file=sys.stderr, flush=True)
    sys.stdin.readline()
"""


def test_two_real_builds_at_once_both_succeed_one_after_the_other(project: Path) -> None:
    (project / "docs" / "scripts" / "holder.py").write_text(_HOLDER_SCRIPT, encoding="utf-8")
    config = yaml.safe_load((project / "mkdocs.yml").read_text(encoding="utf-8"))
    for entry in config["plugins"]:
        if isinstance(entry, dict) and "gen-files" in entry:
            entry["gen-files"]["scripts"] = ["docs/scripts/deprecations.py", "docs/scripts/holder.py"]
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")

    def start(*arguments: str, **environment: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            command("--site-dir", "site", *arguments),
            cwd=project,
            env={**os.environ, **environment},
            stdin=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def wait_for(process: subprocess.Popen[str], marker: str) -> None:
        assert process.stderr is not None
        while marker not in (line := process.stderr.readline()):
            assert line, f"ended before {marker!r}"

    first = start("--full", HOLD_THE_BUILD="1")
    wait_for(first, "holding the build")  # inside MkDocs, its staging folder half written
    staging = [path.name for path in project.iterdir() if path.name.startswith(".site.building-")]
    assert len(staging) == 1
    second = start("--full", "--wait", "300")
    wait_for(second, "waiting up to 300 s")
    assert (project / staging[0]).is_dir()  # the second never touches the first's staging folder
    first_rest = first.communicate(input="\n", timeout=300)[1]
    assert first.returncode == 0, first_rest[-3000:]
    second_rest = second.communicate(timeout=300)[1]
    assert second.returncode == 0, second_rest[-3000:]
    assert published_commits(project / "site") == SAMPLE


def test_a_wait_that_ends_before_the_lock_is_freed_says_so(project: Path) -> None:
    with holding([site_lock(project / "site")]):
        refused = run(project, "--site-dir", "site", "--wait", "0.3")
    assert refused.returncode == 2
    line = refused.stderr.strip().splitlines()[-1]
    assert "waited 0.3 s" in line and "Traceback" not in refused.stderr


def test_the_lock_is_taken_again_by_its_holder_and_refused_to_others(tmp_path: Path) -> None:
    site = tmp_path / "site"
    with holding([site_lock(site)]), holding([site_lock(site)]):  # nightly, then its build step
        assert (tmp_path / ".site.lock").is_file()
        other = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from pathlib import Path; "
                "from commit_digest.site.build.builder_lock import holding, site_lock; "
                "holding([site_lock(Path(sys.argv[1]))]).__enter__()",
                str(site),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert "BuilderBusyError" in other.stderr and "holds the site folder" in other.stderr
        assert (tmp_path / ".site.lock").is_file()  # still held after the inner release
    assert not (tmp_path / ".site.lock").exists()
    with holding([site_lock(site)]):  # free again
        pass


# -- the swap never leaves site/ absent ----------------------------------------------------------

_seen: list[bool] = []
_watched: list[Path] = []


def _audit(event: str, _arguments: tuple[object, ...]) -> None:
    # Every rename and every foreign call (renameat2) is one step; the site is checked before each.
    if _watched and event in ("os.rename", "os.replace", "ctypes.call_function"):
        _seen.append(_watched[0].is_dir())


sys.addaudithook(_audit)


def swap_steps(site: Path, staging: Path) -> list[bool]:
    """Whether ``site`` existed before each step of publishing ``staging`` whole, and after."""
    _seen.clear()
    _watched.append(site)
    try:
        previous = swap.publish_whole(staging, site)
    finally:
        _watched.clear()
    steps = [*_seen, site.is_dir()]
    assert previous is not None and (previous / "old.html").is_file()
    assert (site / "new.html").is_file() and not staging.exists()
    return steps


def two_sites(root: Path) -> tuple[Path, Path]:
    (root / "site").mkdir()
    (root / "site" / "old.html").write_text("old", encoding="utf-8")
    staging = root / ".site.building-x"
    staging.mkdir()
    (staging / "new.html").write_text("new", encoding="utf-8")
    return root / "site", staging


def test_a_whole_swap_never_leaves_the_site_absent(tmp_path: Path) -> None:
    steps = swap_steps(*two_sites(tmp_path))
    assert steps and all(steps)


def test_the_two_rename_fallback_would_leave_it_absent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the exchange is for (and proof that the check above sees an absence)."""
    monkeypatch.setattr(swap, "exchange", lambda first, second: False)
    steps = swap_steps(*two_sites(tmp_path))
    assert not all(steps)


def test_a_reader_polling_the_site_never_misses_it(tmp_path: Path) -> None:
    site, staging = two_sites(tmp_path)
    missed: list[int] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            if not site.is_dir():
                missed.append(1)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for number in range(200):
            staging = tmp_path / f".site.building-{number}"
            staging.mkdir()
            (staging / "index.html").write_text(str(number), encoding="utf-8")
            previous = swap.publish_whole(staging, site)
            assert previous is not None
            shutil.rmtree(previous)
    finally:
        done.set()
        reader.join()
    assert missed == []
    assert (site / "index.html").read_text(encoding="utf-8") == "199"


# -- faults: one line, the cause last, the published site intact ---------------------------------


def test_a_full_disk_during_a_build_is_one_line(project: Path, mount: Callable[[Path, str], None]) -> None:
    disk = project / "small-disk"
    used = sum(path.lstat().st_blocks * 512 for path in (project / "site").rglob("*"))
    mount(disk, f"{used * 3 // 2 // 1024}k")  # the published site fits, a second copy does not
    shutil.copytree(project / "site", disk / "site")
    before = snapshot(disk / "site")
    failed = run(project, "--site-dir", str(disk / "site"), "--full")
    assert failed.returncode == 2
    assert "Traceback" not in failed.stderr, failed.stderr[-3000:]
    last = failed.stderr.strip().splitlines()[-1]
    assert "No space left on device" in last and "free space" in last and "is unchanged" in last
    assert snapshot(disk / "site") == before
    assert not list(disk.glob(".site.building-*"))


def test_a_failed_builds_last_line_is_its_cause(project: Path) -> None:
    (project / "docs" / "broken.md").write_text("# Broken\n\n[a link to nowhere](nowhere.md)\n", encoding="utf-8")
    failed = run(project, "--site-dir", "site")
    assert failed.returncode == 2
    last = failed.stderr.strip().splitlines()[-1]
    assert "nowhere.md" in last and "is unchanged" in last, failed.stderr[-3000:]

    (project / "docs" / "broken.md").unlink()
    config = yaml.safe_load((project / "mkdocs.yml").read_text(encoding="utf-8"))
    for entry in config["plugins"]:
        if isinstance(entry, dict) and "commit-digest" in entry:
            entry["commit-digest"]["page_size"] = 0
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    failed = run(project, "--site-dir", "site")
    assert failed.returncode == 2
    last = failed.stderr.strip().splitlines()[-1]
    assert "page_size must be at least 1" in last and "Aborted with a BuildError" not in last, failed.stderr[-3000:]


_ORPHANED_WORKERS = """
import os, sys
from commit_digest.site.parallel import Started

parent = os.getpid()
read_end, write_end = os.pipe()

def run(number):
    os.close(write_end)
    os.write(1, f"working {number}\\n".encode())  # one write: the two lines never interleave
    os.read(read_end, 1)  # returns once every writer is gone: the parent was killed
    return b"x" * 65536  # sent to a parent that is no more

started = Started(run, 2, workers=2)
list(started.results())
"""


def test_workers_of_a_killed_build_end_without_a_traceback(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", _ORPHANED_WORKERS], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert sorted(process.stdout.readline().strip() for _ in range(2)) == ["working 0", "working 1"]
    process.kill()
    _, stderr = process.communicate(timeout=60)  # to the end: the workers write to this pipe too
    assert "BrokenPipeError" not in stderr and "Traceback" not in stderr, stderr
