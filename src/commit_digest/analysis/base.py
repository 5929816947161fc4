"""What every analyzer offers."""

from __future__ import annotations

from typing import Protocol

from commit_digest.models import Analysis, Commit


class Analyzer(Protocol):
    """Turns one commit into one analysis. Failures are returned as an Analysis whose
    provenance status says so, never raised past the commit."""

    @property
    def name(self) -> str: ...

    def analyze(self, commit: Commit) -> Analysis: ...
