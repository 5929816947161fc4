"""The demo stopped halfway through its offline pass: by SIGTERM or SIGINT it stops at once with
one line and its exit status, keeping every analysis already stored; by SIGKILL it loses at most
the one in hand. Either way the next ``demo`` finishes the rest and analyses nothing twice.

The signal is sent by the process to itself from inside the offline analyzer at its 60th commit:
a marker, not a delay.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from commit_digest.store.analysis_store import AnalysisStore

SAMPLE_COMMITS = 172
OFFLINE_TO_DO = 60  # the sample's commits without an analysis: 45 invented, 15 pending
STOP_AT = 30

STOP_IN_THE_OFFLINE_PASS = """
import os, signal, sys
from commit_digest.meaning.offline import OfflineAnalyzer

analyze = OfflineAnalyzer.analyze
seen = 0

def analyze_then_stop(self, commit):
    global seen
    seen += 1
    if seen == {stop_at}:
        os.kill(os.getpid(), signal.{name})
    return analyze(self, commit)

OfflineAnalyzer.analyze = analyze_then_stop
from commit_digest.cli import main
sys.exit(main())
"""


def _demo(cache: Path, name: str | None, cwd: Path) -> subprocess.CompletedProcess[str]:
    code = STOP_IN_THE_OFFLINE_PASS.format(stop_at=STOP_AT, name=name) if name else None
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "commit_digest.cli"]
    command += ["demo", "--no-build", "--cache", str(cache)]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=300, cwd=cwd)


def _offline_analyses(cache: Path) -> int:
    with AnalysisStore(cache) as store:
        records = list(store.records())
    assert len(records) == SAMPLE_COMMITS  # the sample is stored whole before any analysis
    return sum(1 for record in records if record.analysis and record.analysis.provenance.analyzer.startswith("offline"))


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT", "SIGKILL"])
def test_a_stopped_demo_keeps_what_it_stored_and_the_next_one_finishes(name: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    stopped = _demo(cache, name, tmp_path)
    signum = signal.Signals[name]
    if signum is signal.SIGKILL:
        assert stopped.returncode == -signal.SIGKILL
        kept = _offline_analyses(cache)
        assert STOP_AT - 1 - 1 <= kept <= STOP_AT - 1  # at most the one in hand is lost
    else:
        assert stopped.returncode == 128 + signum, stopped.stderr
        lines = stopped.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"commit-digest demo: stopped by {name}"), lines
        assert "Traceback" not in stopped.stderr
        kept = _offline_analyses(cache)
        assert STOP_AT - 1 <= kept <= STOP_AT  # the one in hand is finished or not begun, never half

    finished = _demo(cache, None, tmp_path)
    assert finished.returncode == 0, finished.stderr
    analysed = re.search(r"offline analysis: (\d+) analysed", finished.stdout)
    assert analysed is not None, finished.stdout
    assert int(analysed.group(1)) == OFFLINE_TO_DO - kept  # nothing analysed twice
    assert _offline_analyses(cache) == OFFLINE_TO_DO
