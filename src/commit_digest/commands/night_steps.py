"""The steps of ``nightly``: how one runs, what it reports, and the night they add up to."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Console

from commit_digest import stopping
from commit_digest.commands.common import print_lines
from commit_digest.errors import CommitDigestError


@dataclass
class StepReport:
    name: str
    ok: bool = True
    lines: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: CommitDigestError | None = None  # what failed the step, when it raised


@dataclass
class NightReport:
    steps: list[StepReport] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return all(step.ok for step in self.steps)


def step(night: NightReport, console: Console, name: str, body: Callable[[StepReport], None]) -> bool:
    """Runs one step; its domain errors mark it failed and the night goes on. After a stop signal
    only the save runs, and the end of the grace does not cut it (a second signal does)."""
    if stopping.stop_requested() and name != "save":
        return False
    if name == "save":
        with stopping.shielded():
            return _run_step(night, console, name, body)
    return _run_step(night, console, name, body)


def _run_step(night: NightReport, console: Console, name: str, body: Callable[[StepReport], None]) -> bool:
    report = StepReport(name)
    started = time.perf_counter()
    try:
        body(report)
    except CommitDigestError as error:
        report.ok, report.error = False, error
        report.lines.append(f"failed: {error}")
    report.seconds = time.perf_counter() - started
    night.steps.append(report)
    print_lines(console, [f"{name}: {line}" for line in report.lines or ["done"]])
    return report.ok
