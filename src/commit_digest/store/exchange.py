"""JSON Lines export and import: the durable, diff-friendly form of the store.

One line per commit with its analysis, keys sorted, in a stable order (repository, landing
time, sha), so re-exporting an unchanged store gives the same bytes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from commit_digest.errors import InputError
from commit_digest.models import CommitRecord


def record_order(record: CommitRecord) -> tuple[str, str, str]:
    commit = record.commit
    return (commit.repository, commit.committed_at.isoformat(), commit.sha)


def record_line(record: CommitRecord) -> str:
    data = record.model_dump(mode="json", exclude_defaults=False)
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def write_records(records: Iterable[CommitRecord], out: TextIO) -> int:
    count = 0
    for record in sorted(records, key=record_order):
        out.write(record_line(record))
        out.write("\n")
        count += 1
    return count


# Enough to see the pattern of a bad export without flooding the terminal.
MAX_LISTED_PROBLEMS = 20


class InputProblems:
    """Every problem found in the input, so that one run shows them all before anything is stored.

    The first ``MAX_LISTED_PROBLEMS`` are kept as text; the rest are only counted.
    """

    def __init__(self) -> None:
        self.count = 0
        self.listed: list[str] = []

    def add(self, source: str, line: int, field: str, message: str) -> None:
        self.count += 1
        if len(self.listed) < MAX_LISTED_PROBLEMS:
            self.listed.append(f"{source}:{line}: {field}: {message}")

    def add_invalid(self, source: str, line: int, error: ValidationError) -> None:
        for issue in error.errors(include_url=False):
            field = ".".join(str(part) for part in issue["loc"]) or "(line)"
            self.add(source, line, field, issue["msg"])

    def raise_if_any(self) -> None:
        if not self.count:
            return
        noun = "problem" if self.count == 1 else "problems"
        lines = [f"{self.count} {noun} in the input; nothing was imported:", *self.listed]
        if self.count > len(self.listed):
            lines.append(f"and {self.count - len(self.listed)} more")
        raise InputError("\n".join(lines))


# The longest line `import` reads, in characters. Far above the longest record the sources make
# (a 200,000-character body and a pull request's description, both up to six times longer as JSON
# escapes, patches cut to the per-commit cap, an analysis in two languages, tens of thousands of
# changed files); a bound on what a line that never ends (/dev/zero) costs before it is refused.
MAX_LINE_CHARS = 32 * 1024 * 1024
_BYTE_ORDER_MARK = "\ufeff"


def bounded_lines(
    stream: TextIO, *, source: str, problems: InputProblems, limit: int = MAX_LINE_CHARS
) -> Iterator[str]:
    """The lines of ``stream``, without the byte order mark some editors start a file with.

    A line longer than ``limit`` characters is a problem, and the rest of ``stream`` is not read:
    a stream with no newline may have no end either.
    """
    number = 0
    while line := stream.readline(limit + 1):
        number += 1
        if len(line) > limit and not line.endswith("\n"):
            problems.add(source, number, "line", f"longer than {limit:,} characters; the rest of {source} was not read")
            return
        yield line.removeprefix(_BYTE_ORDER_MARK) if number == 1 else line


@contextmanager
def input_lines(path: Path | None, *, source: str, problems: InputProblems) -> Iterator[Iterator[str]]:
    """The ``bounded_lines`` of the file at ``path`` (standard input when None), read as they are
    iterated; a file that cannot be read or is not UTF-8 text is an InputError naming ``source``."""
    try:
        with nullcontext(sys.stdin) if path is None else path.open(encoding="utf-8") as stream:
            yield bounded_lines(stream, source=source, problems=problems)
    except OSError as error:
        raise InputError(f"cannot read {source}: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise InputError(f"{source} is not UTF-8 text: {error.reason} at byte {error.start}") from error


def parse_records(lines: Iterable[str], *, source: str, problems: InputProblems) -> list[CommitRecord]:
    """The records of every valid non-blank line; each invalid one adds its problems, naming ``source:line``."""
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(CommitRecord.model_validate_json(line))
        except ValidationError as error:
            problems.add_invalid(source, number, error)
    return records


def read_all_records(lines: Iterable[str], *, source: str) -> list[CommitRecord]:
    """All records, or an InputError listing every bad line before anything is stored."""
    problems = InputProblems()
    records = parse_records(lines, source=source, problems=problems)
    problems.raise_if_any()
    return records
