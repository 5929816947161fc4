"""The durable form of the store: JSON Lines split by month, committed to a data branch.

The diskcache store is a fast working copy that CI caches may lose; this folder is what
survives. Files are written only when their bytes change and in a stable order, so a
night's change is a small diff: the new month's file grows, the rest stay untouched.

Layout: ``<dir>/<owner>/<name>/<YYYY-MM>.jsonl`` (month of the landing time in UTC, so the
layout does not move when the site's time zone changes) and ``<dir>/manifest.json``.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path

from commit_digest.errors import InputError
from commit_digest.exchange import read_all_records, record_line, record_order
from commit_digest.models import CommitRecord
from commit_digest.store import AnalysisStore

MANIFEST = "manifest.json"
_RESTORED_META = "durable-restored-digest"


@dataclass(frozen=True)
class SaveResult:
    files_written: int
    files_unchanged: int
    records: int
    digest: str


@dataclass(frozen=True)
class RestoreResult:
    records: int
    changed: int
    skipped: bool  # the store already holds this durable form


def month_file(directory: Path, record: CommitRecord) -> Path:
    commit = record.commit
    owner, name = commit.repository.split("/", 1)
    return directory / owner / name / f"{commit.committed_at.astimezone(UTC).strftime('%Y-%m')}.jsonl"


def save_durable(store: AnalysisStore, directory: Path) -> SaveResult:
    """Writes every record of the store into month files; unchanged files are not touched."""
    by_file: dict[Path, list[CommitRecord]] = defaultdict(list)
    for record in store.records():
        by_file[month_file(directory, record)].append(record)
    written = unchanged = total = 0
    digests = {}
    for path in sorted(by_file):
        records = sorted(by_file[path], key=record_order)
        total += len(records)
        text = "".join(record_line(record) + "\n" for record in records)
        digests[str(path.relative_to(directory))] = hashlib.sha256(text.encode()).hexdigest()
        if path.exists() and path.read_text(encoding="utf-8") == text:
            unchanged += 1
            continue
        _write_atomically(path, text)
        written += 1
    digest = _digest_of(digests)
    manifest = {"format": 1, "records": total, "files": digests, "digest": digest}
    manifest_text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    manifest_path = directory / MANIFEST
    if not manifest_path.exists() or manifest_path.read_text(encoding="utf-8") != manifest_text:
        _write_atomically(manifest_path, manifest_text)
    # The store now matches this durable form: the next restore can skip the work.
    store.set_meta(_RESTORED_META, digest)
    return SaveResult(files_written=written, files_unchanged=unchanged, records=total, digest=digest)


def restore_durable(store: AnalysisStore, directory: Path) -> RestoreResult:
    """Merges the durable form into the store (missing or older store: nothing paid is lost).

    Merging keeps the more valuable analysis of each commit, so restoring into a store that
    is newer than the durable form changes nothing that matters.
    """
    manifest_path = directory / MANIFEST
    if not manifest_path.exists():
        return RestoreResult(records=0, changed=0, skipped=True)
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        digest = manifest["digest"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InputError(f"{manifest_path} is not a commit-digest manifest: {error}") from error
    if store.get_meta(_RESTORED_META) == digest and len(store) >= int(manifest.get("records", 0)):
        return RestoreResult(records=int(manifest.get("records", 0)), changed=0, skipped=True)
    files = sorted(path for path in directory.rglob("*.jsonl"))
    # Parse everything before writing anything: a bad file leaves the store as it was.
    batches = []
    for path in files:
        with path.open(encoding="utf-8") as lines:
            batches.append(read_all_records(lines, source=str(path)))
    changed = sum(store.merge_all(batch) for batch in batches)
    store.set_meta(_RESTORED_META, digest)
    return RestoreResult(records=sum(len(batch) for batch in batches), changed=changed, skipped=False)


def _digest_of(file_digests: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(file_digests, sort_keys=True).encode()).hexdigest()


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".partial")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
