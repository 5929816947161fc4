"""What a save of the durable form and a restore from it report."""

from __future__ import annotations

from dataclasses import dataclass


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
    left_out: tuple[str, ...] = ()  # with ``partial``: each file not restored, and why
