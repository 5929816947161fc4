"""Where each value of the durable form lives, and the line it is written as.

Layout: ``<dir>/<owner>/<name>/<YYYY-MM>.jsonl`` (month of the landing time in UTC, so the
layout does not move when the site's time zone changes), ``<dir>/narratives/<YYYY>.jsonl`` (the
weeks' narratives by ISO year of their week, one line each, ordered by week and platform: two
levels deep, so they never mix with a repository's files), ``<dir>/releases/<owner>.<name>.jsonl``
(a repository's releases, one line each in the order they were tagged, also two levels deep; a
GitHub owner has no dot, so the name is unambiguous), ``<dir>/notifications/<YYYY>.jsonl`` (which
day was sent to which notification channel, by year of the day: ``notification_ledger``),
``<dir>/briefs/<YYYY-MM>.jsonl`` (the days' briefs by month of their day, one line each, ordered by
day and platform, the whole day's under ``all``) and ``<dir>/manifest.json``. What each kind of
file holds and how it is read back: ``durable_kinds``.

Releases are saved so that a lost store does not spend the API requests that found them again.
A release file is the whole truth of its repository's releases: a file no release is saved to any
more (its tags no longer match ``release_tags``) is removed.

Paths are made from names the models check; ``inside`` is the writer's own check that a path
stays in the durable folder.
"""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

from pydantic import BaseModel

from commit_digest.errors import StoreError
from commit_digest.meaning.releases import Release
from commit_digest.models import CommitRecord
from commit_digest.store.briefs import DayBrief
from commit_digest.store.narratives import WeekNarrative
from commit_digest.store.notification_ledger import NOTIFICATIONS_DIR, Delivery

NARRATIVES_DIR = "narratives"
RELEASES_DIR = "releases"
BRIEFS_DIR = "briefs"


def month_file(directory: Path, record: CommitRecord) -> Path:
    commit = record.commit
    owner, name = commit.repository.split("/", 1)
    month = commit.committed_at.astimezone(UTC).strftime("%Y-%m")
    return inside(directory, directory / owner / name / f"{month}.jsonl")


def narrative_file(directory: Path, narrative: WeekNarrative) -> Path:
    return inside(directory, directory / NARRATIVES_DIR / f"{narrative.week[:4]}.jsonl")


def model_line(value: BaseModel) -> str:
    """A narrative's, release's or brief's line: keys sorted, text as it is (readable in a diff)."""
    return json.dumps(value.model_dump(mode="json"), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def release_file(directory: Path, release: Release) -> Path:
    owner, name = release.repository.split("/", 1)
    return inside(directory, directory / RELEASES_DIR / f"{owner}.{name}.jsonl")


def inside(directory: Path, path: Path, *, follow_links: bool = False) -> Path:
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


def notification_file(directory: Path, delivery: Delivery) -> Path:
    return inside(directory, directory / NOTIFICATIONS_DIR / f"{delivery.day.year:04d}.jsonl")


def brief_file(directory: Path, brief: DayBrief) -> Path:
    return inside(directory, directory / BRIEFS_DIR / f"{brief.day.year:04d}-{brief.day.month:02d}.jsonl")
