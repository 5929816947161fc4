"""The durable form of the store: JSON Lines split by month, committed to a data branch.

The diskcache store is a fast working copy that CI caches may lose; this folder is what
survives. Files are written only when their bytes change and in a stable order, so a
night's change is a small diff: the new month's file grows, the rest stay untouched.

Layout: ``<dir>/<owner>/<name>/<YYYY-MM>.jsonl`` (month of the landing time in UTC, so the
layout does not move when the site's time zone changes), ``<dir>/narratives/<YYYY>.jsonl`` (the
weeks' narratives by ISO year of their week, one line each, ordered by week and platform: two
levels deep, so they never mix with a repository's files), ``<dir>/releases/<owner>.<name>.jsonl``
(a repository's releases, one line each in the order they were tagged, also two levels deep; a
GitHub owner has no dot, so the name is unambiguous), ``<dir>/notifications/<YYYY>.jsonl`` (which
day was sent to which notification channel, by year of the day: ``notification_ledger``) and
``<dir>/manifest.json``.

Releases are saved so that a lost store does not spend the API requests that found them again.
A release file is the whole truth of its repository's releases: a file no release is saved to any
more (its tags no longer match ``release_tags``) is removed.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path

from pydantic import ValidationError

from commit_digest.errors import InputError, StoreError
from commit_digest.meaning.releases import Release, is_release_tag, release_order
from commit_digest.models import CommitRecord
from commit_digest.settings import DEFAULT_RELEASE_TAGS
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.exchange import InputProblems, input_lines, read_all_records, record_line, record_order
from commit_digest.store.narratives import WeekNarrative
from commit_digest.store.notification_ledger import (
    NOTIFICATIONS_DIR,
    Delivery,
    NotificationLedger,
    delivery_line,
    delivery_order,
    read_all_deliveries,
)

MANIFEST = "manifest.json"
NARRATIVES_DIR = "narratives"
RELEASES_DIR = "releases"
_RESTORED_META = "durable-restored-digest"


@dataclass(frozen=True)
class SaveResult:
    files_written: int
    files_unchanged: int
    records: int
    digest: str
    narratives: int = 0
    releases: int = 0
    notifications: int = 0


@dataclass(frozen=True)
class RestoreResult:
    records: int
    changed: int
    skipped: bool  # the store already holds this durable form
    narratives: int = 0
    narratives_changed: int = 0
    releases: int = 0
    releases_added: int = 0
    releases_skipped: int = 0  # not release tags (``release_tags``, or no name git makes)
    notifications: int = 0
    notifications_added: int = 0


def month_file(directory: Path, record: CommitRecord) -> Path:
    commit = record.commit
    owner, name = commit.repository.split("/", 1)
    month = commit.committed_at.astimezone(UTC).strftime("%Y-%m")
    return _inside(directory, directory / owner / name / f"{month}.jsonl")


def narrative_file(directory: Path, narrative: WeekNarrative) -> Path:
    return _inside(directory, directory / NARRATIVES_DIR / f"{narrative.week[:4]}.jsonl")


def narrative_line(narrative: WeekNarrative) -> str:
    return json.dumps(narrative.model_dump(mode="json"), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def release_file(directory: Path, release: Release) -> Path:
    owner, name = release.repository.split("/", 1)
    return _inside(directory, directory / RELEASES_DIR / f"{owner}.{name}.jsonl")


def _inside(directory: Path, path: Path, *, follow_links: bool = False) -> Path:
    """``path``, which must stay in ``directory`` with its ``..`` taken as written (cheap: once per
    record) or, with ``follow_links``, once links are followed too (once per file, before it is
    touched). The models check the names paths are made of; this is the writer's own check."""
    if follow_links:
        inside = path.resolve().is_relative_to(directory.resolve())
    else:
        inside = path.is_relative_to(directory) and ".." not in path.relative_to(directory).parts
    if not inside:
        raise StoreError(f"refusing to write {path}: it is outside the durable folder {directory}")
    return path


def release_line(release: Release) -> str:
    return json.dumps(release.model_dump(mode="json"), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _is_narrative_file(directory: Path, path: Path) -> bool:
    parts = path.relative_to(directory).parts
    return len(parts) == 2 and parts[0] == NARRATIVES_DIR


def _is_release_file(directory: Path, path: Path) -> bool:
    parts = path.relative_to(directory).parts
    return len(parts) == 2 and parts[0] == RELEASES_DIR


def notification_file(directory: Path, delivery: Delivery) -> Path:
    return _inside(directory, directory / NOTIFICATIONS_DIR / f"{delivery.day.year:04d}.jsonl")


def _is_notification_file(directory: Path, path: Path) -> bool:
    parts = path.relative_to(directory).parts
    return len(parts) == 2 and parts[0] == NOTIFICATIONS_DIR


def _notification_texts(store: AnalysisStore, directory: Path) -> tuple[dict[Path, str], int]:
    """The notification year files' texts, and how many deliveries they hold."""
    by_year: dict[Path, list[Delivery]] = defaultdict(list)
    for delivery in NotificationLedger(store).deliveries():
        by_year[notification_file(directory, delivery)].append(delivery)
    texts = {
        path: "".join(delivery_line(item) + "\n" for item in sorted(items, key=delivery_order))
        for path, items in by_year.items()
    }
    return texts, sum(len(items) for items in by_year.values())


def save_durable(store: AnalysisStore, directory: Path) -> SaveResult:
    """Writes every record of the store into month files, every narrative into year files and every
    release into its repository's file; unchanged files are not touched."""
    texts: dict[Path, str] = {}
    by_file: dict[Path, list[CommitRecord]] = defaultdict(list)
    for record in store.records():
        by_file[month_file(directory, record)].append(record)
    total = 0
    for path, records in by_file.items():
        total += len(records)
        texts[path] = "".join(record_line(record) + "\n" for record in sorted(records, key=record_order))
    by_year: dict[Path, list[WeekNarrative]] = defaultdict(list)
    for narrative in store.narratives():
        by_year[narrative_file(directory, narrative)].append(narrative)
    narratives = 0
    for path, items in by_year.items():
        narratives += len(items)
        texts[path] = "".join(narrative_line(item) + "\n" for item in sorted(items, key=lambda item: item.key))
    by_repository: dict[Path, list[Release]] = defaultdict(list)
    for release in store.releases():
        by_repository[release_file(directory, release)].append(release)
    releases = 0
    for path, items in by_repository.items():
        releases += len(items)
        ordered_items = sorted(items, key=lambda item: (item.repository, release_order(item), item.tag))
        texts[path] = "".join(release_line(item) + "\n" for item in ordered_items)
    notification_texts, notifications = _notification_texts(store, directory)
    texts.update(notification_texts)
    stale = [
        _inside(directory, path, follow_links=True)
        for path in (directory / RELEASES_DIR).glob("*.jsonl")
        if path not in texts and _is_release_file(directory, path)
    ]
    for path in stale:
        path.unlink()
    written = unchanged = 0
    digests = {}
    for path in sorted(texts):
        _inside(directory, path, follow_links=True)
        text = texts[path]
        digests[str(path.relative_to(directory))] = hashlib.sha256(text.encode()).hexdigest()
        if path.exists() and path.read_text(encoding="utf-8") == text:
            unchanged += 1
            continue
        _write_atomically(path, text)
        written += 1
    digest = _digest_of(digests)
    manifest: dict[str, object] = {"format": 1, "records": total, "files": digests, "digest": digest}
    if narratives:
        manifest["narratives"] = narratives
    if releases:
        manifest["releases"] = releases
    if notifications:
        manifest["notifications"] = notifications
    manifest_text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    manifest_path = directory / MANIFEST
    if not manifest_path.exists() or manifest_path.read_text(encoding="utf-8") != manifest_text:
        _write_atomically(manifest_path, manifest_text)
    # The store now matches this durable form: the next restore can skip the work.
    store.set_meta(_RESTORED_META, digest)
    return SaveResult(
        files_written=written,
        files_unchanged=unchanged,
        records=total,
        digest=digest,
        narratives=narratives,
        releases=releases,
        notifications=notifications,
    )


def save_notifications(store: AnalysisStore, directory: Path) -> int:
    """Writes the notification ledger's year files and the manifest's entries for them, leaving the
    rest of the durable form as it is: what a notify run calls after each delivery, so the data
    branch knows it even when the store is lost before the next full save. Without a durable form
    yet (no manifest), writes the whole of it. Returns the files written."""
    manifest_path = directory / MANIFEST
    if not manifest_path.exists():
        return save_durable(store, directory).files_written
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        files, old_digest = dict(manifest["files"]), manifest["digest"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InputError(f"{manifest_path} is not a commit-digest manifest: {error}") from error
    texts, notifications = _notification_texts(store, directory)
    written = 0
    for path in sorted(texts):
        _inside(directory, path, follow_links=True)
        text = texts[path]
        files[str(path.relative_to(directory))] = hashlib.sha256(text.encode()).hexdigest()
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            _write_atomically(path, text)
            written += 1
    digest = _digest_of(files)
    manifest.update(files=files, digest=digest, notifications=notifications)
    manifest_text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    if manifest_path.read_text(encoding="utf-8") != manifest_text:
        _write_atomically(manifest_path, manifest_text)
    # The store matched the durable form before (a save or a restore said so): it still does.
    if store.get_meta(_RESTORED_META) == old_digest:
        store.set_meta(_RESTORED_META, digest)
    return written


def restore_durable(
    store: AnalysisStore, directory: Path, *, release_tags: Mapping[str, str] | None = None
) -> RestoreResult:
    """Merges the durable form into the store (missing or older store: nothing paid is lost).

    Merging keeps the more valuable analysis of each commit, the newer narrative of each week
    and platform, and the stored release of each tag (a release the store lacks is added), so
    restoring into a store that is newer than the durable form changes nothing that matters.
    ``release_tags`` (repository → its ``release_tags``; the default pattern for one not named)
    is the fetch's filter: a release whose tag it refuses is skipped and counted, never stored.
    """
    patterns = release_tags or {}
    manifest_path = directory / MANIFEST
    if not manifest_path.exists():
        return RestoreResult(records=0, changed=0, skipped=True)
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        digest = manifest["digest"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InputError(f"{manifest_path} is not a commit-digest manifest: {error}") from error
    try:
        listed_records, listed_narratives = int(manifest.get("records", 0)), int(manifest.get("narratives", 0))
        listed_releases = int(manifest.get("releases", 0))
        listed_notifications = int(manifest.get("notifications", 0))
    except (ValueError, TypeError) as error:
        raise InputError(
            f"{manifest_path}: the records, narratives or releases count is not a number: {error}"
        ) from error
    if (
        store.get_meta(_RESTORED_META) == digest
        and len(store) >= listed_records
        and sum(1 for _ in store.narratives()) >= listed_narratives
        and sum(1 for _ in store.releases()) >= listed_releases
        and sum(1 for _ in NotificationLedger(store).deliveries()) >= listed_notifications
    ):
        return RestoreResult(
            records=listed_records,
            changed=0,
            skipped=True,
            narratives=listed_narratives,
            releases=listed_releases,
        )
    files = sorted(path for path in directory.rglob("*.jsonl"))
    # Parse everything before writing anything: a bad file leaves the store as it was.
    batches = []
    narratives = []
    releases = []
    deliveries = []
    for path in files:
        # The folder is a checkout anyone with push access to the data branch writes: a line with no
        # end (a file linked to /dev/zero) or bytes that are not text are errors naming the file.
        problems = InputProblems()
        with input_lines(path, source=str(path), problems=problems) as lines:
            if _is_narrative_file(directory, path):
                narratives.extend(read_all_narratives(lines, source=str(path)))
            elif _is_release_file(directory, path):
                releases.extend(read_all_releases(lines, source=str(path)))
            elif _is_notification_file(directory, path):
                deliveries.extend(read_all_deliveries(lines, source=str(path)))
            else:
                batches.append(read_all_records(lines, source=str(path)))
        problems.raise_if_any()
    changed = sum(store.merge_all(batch) for batch in batches)
    narratives_changed = sum(store.merge_narrative(narrative) for narrative in narratives)
    restorable = [
        release
        for release in releases
        if is_release_tag(release.tag, patterns.get(release.repository, DEFAULT_RELEASE_TAGS))
    ]
    releases_added = sum(store.merge_release(release) for release in restorable)
    notifications_added = NotificationLedger(store).merge(deliveries)
    store.set_meta(_RESTORED_META, digest)
    return RestoreResult(
        records=sum(len(batch) for batch in batches),
        changed=changed,
        skipped=False,
        narratives=len(narratives),
        narratives_changed=narratives_changed,
        releases=len(restorable),
        releases_added=releases_added,
        releases_skipped=len(releases) - len(restorable),
        notifications=len(deliveries),
        notifications_added=notifications_added,
    )


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


def _digest_of(file_digests: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(file_digests, sort_keys=True).encode()).hexdigest()


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".partial")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
