"""Reading the durable form's files into values, each with the model of its kind (``durable_kinds``).

The folder is a checkout anyone with push access to the data branch writes: a line with no end (a
file linked to /dev/zero), bytes that are not text or a line no model accepts are errors naming the
file and line, and a file with any of them adds nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from commit_digest.errors import InputError
from commit_digest.store.durable_kinds import DurableKind
from commit_digest.store.exchange import InputProblems, bounded_lines, input_lines

T = TypeVar("T", bound=BaseModel)


@dataclass
class ParsedFiles:
    """The values of the files read so far, by kind."""

    values: defaultdict[str, list[Any]] = field(default_factory=lambda: defaultdict(list))

    def of(self, kind: DurableKind[T]) -> list[T]:
        return self.values[kind.name]

    def read(self, path: Path, kind: DurableKind[Any]) -> None:
        """Adds the values of one file of ``kind``, or raises an InputError listing its bad lines."""
        problems = InputProblems()
        with input_lines(path, source=str(path), problems=problems) as lines:
            found = read_all(kind.model, lines, source=str(path))
            problems.raise_if_any()
            self.values[kind.name].extend(found)

    def salvage(self, path: Path, kind: DurableKind[Any]) -> tuple[int, int]:
        """Adds the valid lines of a damaged file (cut mid-line, a line removed or changed) and skips
        the others; (added, skipped). A file that is not text adds nothing (an InputError)."""
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
                        found.append(kind.model.model_validate_json(line.encode("utf-8")))
                    except (ValidationError, UnicodeEncodeError):
                        skipped += 1
        except OSError as error:
            raise InputError(f"cannot read {path}: {error.strerror}") from error
        self.values[kind.name].extend(found)
        return len(found), skipped


def read_all(model: type[T], lines: Iterable[str], *, source: str) -> list[T]:
    """Every value of a file, or an InputError listing every bad line (``file:line: field``)."""
    problems = InputProblems()
    found = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            found.append(model.model_validate_json(line))
        except ValidationError as error:
            problems.add_invalid(source, number, error)
    problems.raise_if_any()
    return found
