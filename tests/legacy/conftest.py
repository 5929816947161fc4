"""The three real legacy reports (copied from the old archive) imported once per session."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from commit_digest.legacy.importer import ReportImport, import_files
from commit_digest.legacy.parse import LegacyReport, parse_report
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.store.analysis_store import AnalysisStore

DATA = Path(__file__).parent / "data"
NEWER_HIGH = DATA / "000_f690ba4805e39c59.txt"
NEWER = DATA / "001_26de92dd01ec965e.txt"
OLDER = DATA / "002_90d04fa18592eadf.txt"
SEEDS = (NEWER_HIGH, NEWER, OLDER)
REPOSITORY = "vllm-project/vllm"
UTC = ZoneInfo("UTC")


@dataclass(frozen=True)
class ImportedArchive:
    directory: Path
    results: list[ReportImport]

    def open(self) -> AnalysisStore:
        return AnalysisStore(self.directory)


@pytest.fixture(scope="session")
def reports() -> dict[str, LegacyReport]:
    return {path.name: parse_report(path.read_text(encoding="utf-8"), path.name) for path in SEEDS}


@pytest.fixture(scope="session")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ImportedArchive]:
    """All three seeds imported into one store; tests only read it."""
    directory = tmp_path_factory.mktemp("legacy-store")
    with AnalysisStore(directory) as store:
        results = import_files(
            SEEDS,
            store,
            requested_repository=None,
            default_repository=REPOSITORY,
            zone=UTC,
            taxonomy=load_taxonomy(),
        )
    yield ImportedArchive(directory, results)
