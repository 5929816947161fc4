"""The project's build as a measured child process, shared by the benchmarks that build a site.

``write_project`` copies the project's mkdocs.yml and docs/ to a work folder (in other languages
when asked); ``run_step`` runs a command as its own process and returns its wall time and its own
peak RSS (from wait4). Separate from benchmarks/scale.py so that benchmarks/search_recall.py can
build a site without importing the scale benchmark, which imports it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
UNLIMITED = 10**15  # bytes: the site_size_limit of the benchmarks' builds


@dataclass
class Step:
    name: str
    seconds: float
    peak_rss_mb: float


def run_step(name: str, command: list[str], cwd: Path) -> Step:
    """Runs ``command`` as a child process; its wall time and its own peak RSS (wait4)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        sys.stderr.write(output.decode(errors="replace")[-4000:])
        raise SystemExit(f"{name} failed with exit status {process.returncode}: {' '.join(command)}")
    return Step(name, seconds, usage.ru_maxrss / 1024)  # ru_maxrss is in KiB on Linux


def write_project(target: Path, languages: tuple[str, ...] = ()) -> Path:
    """A copy of the project's site (mkdocs.yml and docs/) to build from, in ``languages`` when given,
    with no site_size_limit to speak of."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(PROJECT / "docs", target / "docs", dirs_exist_ok=True)
    config = target / "mkdocs.yml"
    text = (PROJECT / "mkdocs.yml").read_text(encoding="utf-8")
    theme, plugins = text.split("- commit-digest:", 1)
    language = f"languages: [{', '.join(languages)}]" if languages else r"\2"
    # The benchmarks measure sites past the host's limit too: the build must not refuse them.
    plugins = re.sub(r"(?m)^( +)(language: \w+).*$", rf"\1{language}\n\1site_size_limit: {UNLIMITED}", plugins, count=1)
    config.write_text(f"{theme}- commit-digest:{plugins}", encoding="utf-8")
    return config
