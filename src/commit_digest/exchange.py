"""JSON Lines export and import: the durable, diff-friendly form of the store.

One line per commit with its analysis, keys sorted, in a stable order (repository, landing
time, sha), so re-exporting an unchanged store gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
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


def parse_records(lines: Iterable[str], *, source: str) -> Iterator[CommitRecord]:
    """Parses every non-blank line; an invalid one raises InputError naming ``source:line``."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield CommitRecord.model_validate_json(line)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "(line)"
            raise InputError(
                f"{source}:{number}: {where}: {first['msg']}"
                + (f" (and {error.error_count() - 1} more problems)" if error.error_count() > 1 else "")
            ) from error


def read_all_records(lines: Iterable[str], *, source: str) -> list[CommitRecord]:
    """All records, or an error before anything is stored: a bad file changes nothing."""
    return list(parse_records(lines, source=source))
