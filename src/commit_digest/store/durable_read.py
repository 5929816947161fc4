"""Reading the durable form's files into values: records, narratives, releases and deliveries.

The folder is a checkout anyone with push access to the data branch writes: a line with no end (a
file linked to /dev/zero), bytes that are not text or a line no model accepts are errors naming the
file and line, and a file with any of them adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ValidationError

from commit_digest.errors import InputError
from commit_digest.meaning.releases import Release
from commit_digest.models import CommitRecord
from commit_digest.store.exchange import InputProblems, bounded_lines, input_lines, read_all_records
from commit_digest.store.narratives import WeekNarrative
from commit_digest.store.notification_ledger import NOTIFICATIONS_DIR, Delivery, read_all_deliveries

NARRATIVES = "narratives"
RELEASES = "releases"
_MODELS: dict[str, type[BaseModel]] = {NARRATIVES: WeekNarrative, RELEASES: Release, NOTIFICATIONS_DIR: Delivery}


@dataclass
class ParsedFiles:
    """The values of the files read so far, by kind."""

    batches: list[list[CommitRecord]] = field(default_factory=list)
    narratives: list[WeekNarrative] = field(default_factory=list)
    releases: list[Release] = field(default_factory=list)
    deliveries: list[Delivery] = field(default_factory=list)

    def read(self, path: Path, kind: str) -> None:
        """Adds the values of one file of ``kind`` (its folder: narratives, releases, notifications;
        anything else holds records), or raises an InputError listing its bad lines."""
        problems = InputProblems()
        with input_lines(path, source=str(path), problems=problems) as lines:
            if kind == NARRATIVES:
                narratives = read_all_narratives(lines, source=str(path))
                problems.raise_if_any()
                self.narratives.extend(narratives)
            elif kind == RELEASES:
                releases = read_all_releases(lines, source=str(path))
                problems.raise_if_any()
                self.releases.extend(releases)
            elif kind == NOTIFICATIONS_DIR:
                deliveries = read_all_deliveries(lines, source=str(path))
                problems.raise_if_any()
                self.deliveries.extend(deliveries)
            else:
                records = read_all_records(lines, source=str(path))
                problems.raise_if_any()
                self.batches.append(records)

    def salvage(self, path: Path, kind: str) -> tuple[int, int]:
        """Adds the valid lines of a damaged file (cut mid-line, a line removed or changed) and skips
        the others; (added, skipped). A file that is not text adds nothing (an InputError)."""
        model = _MODELS.get(kind, CommitRecord)
        found: list[BaseModel] = []
        skipped = 0
        problems = InputProblems()  # a line past the bound ends the reading: what came before is kept
        try:
            # A file cut mid-line may end inside a character: only the lines that are text count.
            with path.open(encoding="utf-8", errors="surrogateescape") as stream:
                for line in bounded_lines(stream, source=str(path), problems=problems):
                    if not line.strip():
                        continue
                    try:
                        found.append(model.model_validate_json(line.encode("utf-8")))
                    except (ValidationError, UnicodeEncodeError):
                        skipped += 1
        except OSError as error:
            raise InputError(f"cannot read {path}: {error.strerror}") from error
        if kind == NARRATIVES:
            self.narratives.extend(item for item in found if isinstance(item, WeekNarrative))
        elif kind == RELEASES:
            self.releases.extend(item for item in found if isinstance(item, Release))
        elif kind == NOTIFICATIONS_DIR:
            self.deliveries.extend(item for item in found if isinstance(item, Delivery))
        else:
            self.batches.append([item for item in found if isinstance(item, CommitRecord)])
        return len(found), skipped


def read_all_narratives(lines: Iterable[str], *, source: str) -> list[WeekNarrative]:
    """Every narrative of a year file, or an InputError listing every bad line (``file:line: field``)."""
    problems = InputProblems()
    narratives = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            narratives.append(WeekNarrative.model_validate_json(line))
        except ValidationError as error:
            problems.add_invalid(source, number, error)
    problems.raise_if_any()
    return narratives


def read_all_releases(lines: Iterable[str], *, source: str) -> list[Release]:
    """Every release of a repository's file, or an InputError listing every bad line."""
    problems = InputProblems()
    releases = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            releases.append(Release.model_validate_json(line))
        except ValidationError as error:
            problems.add_invalid(source, number, error)
    problems.raise_if_any()
    return releases
