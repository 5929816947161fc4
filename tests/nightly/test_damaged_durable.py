"""A lost cache beside a damaged durable form, full disks, a read-only or misplaced folder: the real
`nightly` and `restore` commands end with one line and the right exit status, never save over the
durable form, and once the fault is fixed the next night's export and durable files equal a clean
night's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import yaml

from commit_digest.cli import main
from commit_digest.models import CommitRecord
from commit_digest.settings import read_mkdocs_yml
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import restore_durable
from commit_digest.store.notification_ledger import Delivery, NotificationLedger
from tests.core.test_store import analysis
from tests.disks import fill_disk, mounted
from tests.factories import make_commit
from tests.fakes.openai_server import FakeOpenAIServer, analysis_responder

PROJECT = Path(__file__).resolve().parents[2]
REPOSITORY = "vllm-project/vllm"
MONTHS = ("2026-09", "2026-10", "2026-11")
NOVEMBER = f"{REPOSITORY}/2026-11.jsonl"
LEDGER = "notifications/2026.jsonl"

pytestmark = pytest.mark.slow  # whole nights with their builds


def _records(numbers: range, *, analysed: bool = True) -> list[CommitRecord]:
    """Commits over three months, paid LLM analyses (or none yet)."""
    return [
        CommitRecord(
            commit=make_commit(
                number, when=datetime(2026, 9 + number % 3, 1 + number % 27, 8, number % 60, tzinfo=UTC)
            ),
            analysis=analysis("llm:m", minutes=number) if analysed else None,
        )
        for number in numbers
    ]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def _lines(files: dict[str, bytes]) -> set[bytes]:
    return {line for name, data in files.items() if name.endswith(".jsonl") for line in data.splitlines()}


@dataclass
class Clean:
    """A clean night's folder: mkdocs.yml, docs, the durable form, and its cache's export."""

    root: Path
    durable: dict[str, bytes]
    export: bytes
    cache: Path  # kept aside: a test copies it where it needs a cache

    def arguments(self, cache: Path, durable: Path, site: Path, *extra: str) -> list[str]:
        arguments = ["nightly", "-f", str(self.root / "mkdocs.yml"), "--cache", str(cache)]
        return [*arguments, "--durable-dir", str(durable), "--site-dir", str(site), "--offline", "--no-fetch", *extra]

    def night(self, cache: Path, durable: Path, site: Path, *extra: str) -> int:
        return main(self.arguments(cache, durable, site, *extra))

    def export_of(self, cache: Path) -> bytes:
        out = cache.with_name(cache.name + ".export.jsonl")
        assert main(["export", "-f", str(self.root / "mkdocs.yml"), "--cache", str(cache), "-o", str(out)]) == 0
        return out.read_bytes()


def _configure(root: Path) -> None:
    config = read_mkdocs_yml(PROJECT / "mkdocs.yml")
    config["site_url"] = "https://digest.example.org/"
    for entry in config["plugins"]:
        if isinstance(entry, dict) and "commit-digest" in entry:
            entry["commit-digest"].update(cache_dir="cache", repository=REPOSITORY)
    text = yaml.safe_dump(config, allow_unicode=True, sort_keys=False)
    (root / "mkdocs.yml").write_text(text, encoding="utf-8")


def _fill(store: AnalysisStore) -> None:
    store.merge_all(_records(range(60)))
    ledger = NotificationLedger(store)
    for day in range(1, 7):
        for channel in ("feishu", "slack"):
            sent = datetime(2026, 11, day, 9, tzinfo=UTC)
            ledger.merge([Delivery(channel=channel, day=date(2026, 11, day), sent_at=sent)])


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clean]:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("OPENAI_API_KEY", raising=False)
        yield from _clean(tmp_path_factory)


def _clean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clean]:
    root = tmp_path_factory.mktemp("durable-night")
    shutil.copytree(PROJECT / "docs", root / "docs")
    _configure(root)
    with AnalysisStore(root / "cache") as store:
        _fill(store)
    previous = Path.cwd()
    os.chdir(root)  # gen-files scripts are relative to the site's folder
    try:
        clean = Clean(root, {}, b"", root / "cache")
        assert clean.night(root / "cache", root / "data", root / "site") == 0
        clean.durable = _snapshot(root / "data")
        clean.export = clean.export_of(root / "cache")
        yield clean
    finally:
        os.chdir(previous)


@pytest.fixture(autouse=True)
def _in_root(clean: Clean, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(clean.root)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("COLUMNS", "10000")  # a step's line is one line, however long


def _one_line(error: str) -> str:
    assert "Traceback" not in error, error
    lines = [line for line in error.splitlines() if line.strip()]
    assert len(lines) == 1, error
    return lines[0]


def _damage(durable: Path, how: str) -> None:
    month, ledger = durable / NOVEMBER, durable / LEDGER
    if how == "cut mid-line":
        month.write_bytes(month.read_bytes()[: len(month.read_bytes()) // 2])
    elif how == "manifest deleted":
        (durable / "manifest.json").unlink()
    elif how == "month deleted":
        month.unlink()
    elif how == "line removed":
        month.write_text("".join(month.read_text().splitlines(keepends=True)[1:]))
    elif how == "ledger halved":
        ledger.write_text("".join(ledger.read_text().splitlines(keepends=True)[:6]))


@pytest.mark.parametrize(
    ("how", "named"),
    [
        ("cut mid-line", f"{NOVEMBER}: cut mid-line"),
        ("manifest deleted", "manifest.json: missing"),
        ("month deleted", f"{NOVEMBER}: missing (20 records)"),
        ("line removed", f"{NOVEMBER}: changed (19 lines where the manifest lists 20 records"),
        ("ledger halved", f"{LEDGER}: changed (6 lines where the manifest lists 12 records"),
    ],
)
def test_a_lost_cache_and_a_damaged_durable_form_stop_the_night_before_it_saves(
    clean: Clean, tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str, named: str
) -> None:
    durable, cache, site = tmp_path / "data", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(clean.root / "data", durable)
    _damage(durable, how)
    damaged = _snapshot(durable)
    capsys.readouterr()

    assert clean.night(cache, durable, site) == 2  # the cache is lost: a fresh one
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("restore: failed: ") and named in line and "nothing is fetched" in line
    assert _snapshot(durable) == damaged
    assert not site.exists()
    with AnalysisStore(cache) as store:
        assert len(store) == 0

    # restore says what is damaged and changes nothing; --partial restores the rest.
    assert main(["restore", "--cache", str(cache), "--durable-dir", str(durable)]) == 2
    assert named in _one_line(capsys.readouterr().err)
    assert main(["restore", "--cache", str(cache), "--durable-dir", str(durable), "--partial"]) == 1
    output = capsys.readouterr().out
    assert f"left out (not restored): {named}" in output
    with AnalysisStore(cache) as store:
        # A damaged month's valid lines are restored with the intact files: only the damaged line is lost.
        salvaged = {"cut mid-line": damaged[NOVEMBER].count(b"\n") if NOVEMBER in damaged else 0, "line removed": 19}
        assert len(store) == 40 + salvaged.get(how, 0 if how == "month deleted" else 20)
    assert _snapshot(durable) == damaged

    # Repaired (checked out again from the data branch): the next night equals a clean one.
    shutil.rmtree(durable)
    shutil.copytree(clean.root / "data", durable)
    shutil.rmtree(cache)
    assert clean.night(cache, durable, site) == 0
    assert clean.export_of(cache) == clean.export
    assert _snapshot(durable) == clean.durable


def test_nightly_prune_goes_on_from_the_intact_files(clean: Clean, tmp_path: Path, capsys) -> None:
    durable, cache, site = tmp_path / "data", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(clean.root / "data", durable)
    _damage(durable, "cut mid-line")
    whole_lines = (durable / NOVEMBER).read_bytes().count(b"\n")
    assert clean.night(cache, durable, site, "--prune") == 1  # published; the loss is said, not silent
    assert f"restore: left out (--prune drops what only it held): {NOVEMBER}: cut mid-line" in capsys.readouterr().err
    with AnalysisStore(cache) as store:
        assert len(store) == 40 + whole_lines  # all but the cut line
    assert clean.night(cache, durable, site) == 0  # the durable form is whole again, as the store is


@pytest.mark.parametrize("where", ["cache", "durable"])
def test_a_path_that_is_a_file_is_one_line(
    clean: Clean, tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    cache, durable = tmp_path / "cache", tmp_path / "data"
    (tmp_path / where if where == "cache" else durable).write_text("a file")
    if where == "durable":
        shutil.copytree(clean.cache, cache)
    capsys.readouterr()
    assert clean.night(cache, durable, tmp_path / "site") == 2
    line = _one_line(capsys.readouterr().err)
    assert ("the cache folder" if where == "cache" else "the durable folder") in line and "is not a folder" in line
    assert not (tmp_path / "site").exists()
    # Fixed: the cache (lost) comes back from the durable form, the durable form from the store.
    (tmp_path / where if where == "cache" else durable).unlink()
    if where == "cache":
        shutil.copytree(clean.root / "data", durable)
    assert clean.night(cache, durable, tmp_path / "site") == 0
    assert clean.export_of(cache) == clean.export
    assert _snapshot(durable) == clean.durable


# -- full and read-only disks ----------------------------------------------------------------


def _reference(clean: Clean, tmp_path: Path) -> tuple[bytes, dict[str, bytes]]:
    """A clean night's export and durable files after 20 new commits: what a fixed night must give."""
    cache, durable = tmp_path / "reference-cache", tmp_path / "reference-data"
    shutil.copytree(clean.cache, cache)
    shutil.copytree(clean.root / "data", durable)
    with AnalysisStore(cache) as store:
        store.merge_all(_records(range(100, 120), analysed=False))
    assert clean.night(cache, durable, tmp_path / "reference-site") == 0
    return clean.export_of(cache), _snapshot(durable)


def test_a_full_disk_under_the_durable_form_fails_the_save_in_one_line_and_keeps_its_files(
    clean: Clean, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export, saved = _reference(clean, tmp_path)
    cache, site = tmp_path / "cache", tmp_path / "site"
    shutil.copytree(clean.cache, cache)
    with AnalysisStore(cache) as store:
        store.merge_all(_records(range(100, 120), analysed=False))
    with mounted(tmp_path / "disk", "size=1m") as disk:
        durable = disk / "data"
        shutil.copytree(clean.root / "data", durable)
        filler = fill_disk(disk)
        capsys.readouterr()
        assert clean.night(cache, durable, site) == 1  # published from the store; the save is pending
        error = capsys.readouterr().err
        assert "Traceback" not in error
        (failed,) = [line for line in error.splitlines() if line.startswith("save: ")]
        assert f"save: failed: cannot write the durable form at {durable}: No space left on device" in failed
        assert "nightly: partial" in error
        assert _snapshot(durable) == {name: data for name, data in clean.durable.items()}
        filler.unlink()
        assert clean.night(cache, durable, site) == 0
        assert clean.export_of(cache) == export
        assert _snapshot(durable) == saved


def test_a_full_cache_stops_the_analyses_at_the_first_failed_write_in_one_line(clean: Clean, tmp_path: Path) -> None:
    export, saved = _reference(clean, tmp_path)
    durable, site = tmp_path / "data", tmp_path / "site"
    shutil.copytree(clean.root / "data", durable)
    with mounted(tmp_path / "disk", "size=4m") as disk:
        cache = disk / "cache"
        shutil.copytree(clean.cache, cache)
        with AnalysisStore(cache) as store:
            store.merge_all(_records(range(100, 120), analysed=False))
        # Room to open the store (SQLite writes when it opens), none for the analyses.
        filler = fill_disk(disk, room=256 * 1024)
        # In a process of its own: the build the full disk may abort leaves mkdocs-gen-files'
        # temporary folder to the garbage collector, whose warning is that process's, not a test's.
        done = subprocess.run(
            [sys.executable, "-m", "commit_digest.cli", *clean.arguments(cache, durable, site)],
            capture_output=True,
            text=True,
            cwd=clean.root,
            env={**os.environ, "COLUMNS": "10000"},
            check=False,
        )
        status, error = done.returncode, done.stderr
        assert status in (1, 2) and "Traceback" not in error, error
        # The step stops at its first failed write and says so in one line.
        failed = [line for line in error.splitlines() if line.startswith("analyse: failed:")]
        assert len(failed) == 1, error
        assert "database or disk is full" in failed[0] or "No space left on device" in failed[0], error
        # Nothing more is paid for that the store could not keep: no narrative either.
        assert any(line.startswith("narrate: skipped (the store cannot keep") for line in error.splitlines()), error
        assert _lines(clean.durable) <= _lines(_snapshot(durable))  # no record left the durable form
        filler.unlink()
        assert clean.night(cache, durable, site) == 0
        assert clean.export_of(cache) == export
        assert _snapshot(durable) == saved


def test_a_read_only_durable_folder_stops_the_night_before_anything_is_paid(
    clean: Clean, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    durable, cache, site = tmp_path / "data", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(clean.root / "data", durable)
    shutil.copytree(clean.cache, cache)
    with mounted(tmp_path / "read-only", "bind", source=str(durable)) as read_only:
        remounted = subprocess.run(["mount", "-o", "remount,ro,bind", str(read_only)], check=False)
        if remounted.returncode != 0:
            pytest.skip("cannot remount read-only here")
        capsys.readouterr()
        assert clean.night(cache, read_only, site) == 2
        line = _one_line(capsys.readouterr().err)
        assert f"the durable folder {read_only} is read-only" in line
        assert not site.exists()
    assert clean.night(cache, durable, site) == 0
    assert clean.export_of(cache) == clean.export


def test_a_file_size_limit_during_the_save_is_one_error_and_keeps_the_files(clean: Clean, tmp_path: Path) -> None:
    """Where no disk can be mounted, a file-size limit (RLIMIT_FSIZE, in a process of its own) fails the
    durable writes the same way. SQLite writes past any limit small enough, so the limit is set once
    the store is open and read."""
    cache, durable = tmp_path / "cache", tmp_path / "data"
    shutil.copytree(clean.cache, cache)
    shutil.copytree(clean.root / "data", durable)
    with AnalysisStore(cache) as store:
        store.merge_all(_records(range(100, 400)))  # the month files grow past the limit
    script = (
        "import os, resource, signal, sys\n"
        "from commit_digest.errors import StoreError\n"
        "from commit_digest.store.analysis_store import AnalysisStore\n"
        "from commit_digest.store.durable import save_durable\n"
        "store = AnalysisStore(sys.argv[1])\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))\n"
        "try:\n"
        "    save_durable(store, __import__('pathlib').Path(sys.argv[2]))\n"
        "except StoreError as error:\n"
        "    print(error, file=sys.stderr)\n"
        "    os._exit(2)\n"
        "os._exit(0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(cache), str(durable)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2, done.stderr
    assert _one_line(done.stderr).startswith(f"cannot write the durable form at {durable}: File too large")
    data_files = {name: data for name, data in _snapshot(durable).items() if name.endswith(".jsonl")}
    assert data_files == {name: data for name, data in clean.durable.items() if name.endswith(".jsonl")}
    # The manifest the save began with accepts the files as they are: the next restore has them all.
    assert main(["restore", "--cache", str(tmp_path / "fresh"), "--durable-dir", str(durable)]) == 0
    assert clean.export_of(tmp_path / "fresh") == clean.export


def test_a_full_cache_stops_llm_analyses_before_they_are_paid_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no mkdocs.yml: the defaults
    with FakeOpenAIServer() as server, mounted(tmp_path / "disk", "size=4m") as disk:
        server.responder = analysis_responder()
        monkeypatch.setenv("OPENAI_API_KEY", "sk-full-cache-test-0123456789")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        cache = disk / "cache"
        with AnalysisStore(cache) as store:
            store.merge_all(_records(range(100, 140), analysed=False))
        filler = fill_disk(disk, room=256 * 1024)
        # In a process of its own, as a night is: the claims it could not give back lapse with it.
        done = subprocess.run(
            [sys.executable, "-m", "commit_digest.cli", "analyze", "--cache", str(cache), "--concurrency", "4"],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "10000"},
            check=False,
        )
        error = done.stderr
        assert done.returncode == 2 and "Traceback" not in error, error
        (line,) = [line for line in error.splitlines() if "error" in line]
        assert line.startswith("commit-digest analyze: error: cannot write ") and "database or disk is full" in line
        filler.unlink()
        with AnalysisStore(cache) as store:
            stored = sum(1 for record in store.records() if record.analysis is not None)
        # A claim is written before each request: once the store cannot take one, no request starts,
        # and the answers paid for and not stored are at most those in flight.
        assert len(server.chat_requests) - stored <= 4
        assert main(["analyze", "--cache", str(cache), "--concurrency", "4", "--timeout", "5"]) == 0
        assert len(server.chat_requests) - 40 <= 4  # paid twice: at most the requests in flight
        with AnalysisStore(cache) as store:
            assert all(record.analysis is not None and record.analysis.ok for record in store.records())


# Kills itself as the save logs its first file written: a marker, not a race with the test's reader
# (a kill sent from outside after that line may land once the save, or the build after it, is done).
KILL_AFTER_FIRST_WRITE = """
import logging, os, signal, sys

class KillAfterFirstWrite(logging.Handler):
    def emit(self, record):
        if record.getMessage().startswith("durable form: wrote "):
            os.kill(os.getpid(), signal.SIGKILL)

logging.getLogger("mkdocs.plugins.commit_digest.store.durable").addHandler(KillAfterFirstWrite())
from commit_digest.cli import main
sys.exit(main())
"""


def test_a_night_killed_inside_the_save_leaves_files_the_next_night_restores(clean: Clean, tmp_path: Path) -> None:
    export, saved = _reference(clean, tmp_path)
    cache, durable, site = tmp_path / "cache", tmp_path / "data", tmp_path / "site"
    shutil.copytree(clean.cache, cache)
    shutil.copytree(clean.root / "data", durable)
    with AnalysisStore(cache) as store:
        store.merge_all(_records(range(100, 120), analysed=False))  # every month file changes
    changed = sorted(name for name in saved if name != "manifest.json" and saved[name] != clean.durable.get(name))
    assert len(changed) > 1, changed  # several files to write: a kill after the first is inside the save
    night = subprocess.run(
        [sys.executable, "-c", KILL_AFTER_FIRST_WRITE, "-v", *clean.arguments(cache, durable, site)],
        capture_output=True,
        text=True,
        cwd=clean.root,
        env={**os.environ, "COLUMNS": "10000"},
        check=False,
        timeout=600,
    )
    assert night.returncode == -9, night.stderr
    # Caught half-way: the first file written, the others as they were, the manifest still the save's
    # first one (each file's bytes before it pending), and no build begun.
    killed = _snapshot(durable)
    assert [name for name in changed if killed.get(name) == saved[name]] == changed[:1]
    assert [name for name in changed if killed.get(name) == clean.durable.get(name)] == changed[1:]
    assert json.loads(killed["manifest.json"])["pending"]
    assert not site.exists()
    with AnalysisStore(tmp_path / "fresh") as fresh:
        # No file is damaged: the manifest accepts each as it is, the new month file or the old ones.
        assert restore_durable(fresh, durable).records > 60
    assert clean.night(cache, durable, site) == 0
    assert clean.export_of(cache) == export
    assert _snapshot(durable) == saved


def test_a_full_cache_stops_translations_as_it_stops_analyses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: `translate` logged each failed write with a traceback and went on paying for the rest
    (issue 46: the three passes had drifted); now every pass stops at the first write that fails."""
    from tests.analysis.bilingual_replies import language_responder, stored_analysis

    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: t\nplugins:\n  - commit-digest:\n      languages: [zh, en]\n", encoding="utf-8")
    with FakeOpenAIServer() as server, mounted(tmp_path / "disk", "size=4m") as disk:
        server.responder = language_responder  # type: ignore[assignment]
        monkeypatch.setenv("OPENAI_API_KEY", "sk-full-cache-test-0123456789")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        cache = disk / "cache"
        with AnalysisStore(cache) as store:
            store.merge_all(
                [
                    CommitRecord(commit=make_commit(number), analysis=stored_analysis(minutes=number))
                    for number in range(200, 240)
                ]
            )
        filler = fill_disk(disk, room=256 * 1024)
        done = subprocess.run(
            [sys.executable, "-m", "commit_digest.cli", "translate", "-f", str(config), "--cache", str(cache)],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "10000"},
            check=False,
        )
        filler.unlink()
        error = done.stderr
        assert done.returncode == 2 and "Traceback" not in error, error
        (line,) = [line for line in error.splitlines() if "error" in line]
        assert line.startswith("commit-digest translate: error: cannot write ") and "disk is full" in line
        with AnalysisStore(cache) as store:
            translated = sum(1 for record in store.records() if record.analysis and record.analysis.translations)
        assert len(server.chat_requests) - translated <= 8  # paid and not kept: at most those in flight
