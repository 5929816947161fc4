"""What a save of the durable form and a restore from it report, per kind (``durable_kinds``).

The named properties are the figures the commands and tests read; a kind without one is read
through ``saved``/``kind``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class SaveResult:
    files_written: int
    files_unchanged: int
    digest: str
    saved: Mapping[str, int] = field(default_factory=dict)  # kind name -> values saved

    @property
    def records(self) -> int:
        return self.saved.get("records", 0)

    @property
    def narratives(self) -> int:
        return self.saved.get("narratives", 0)

    @property
    def releases(self) -> int:
        return self.saved.get("releases", 0)

    @property
    def notifications(self) -> int:
        return self.saved.get("notifications", 0)


@dataclass(frozen=True)
class KindRestored:
    read: int = 0  # values read and let in (a skipped one is not)
    merged: int = 0  # of those, new to the store or better than its own
    skipped: int = 0  # not let in: releases whose tags are not release tags (``release_tags``, or no name git makes)


@dataclass(frozen=True)
class RestoreResult:
    skipped: bool  # the store already holds this durable form
    kinds: Mapping[str, KindRestored] = field(default_factory=dict)  # kind name -> what it restored
    left_out: tuple[str, ...] = ()  # with ``partial``: each file not restored, and why

    def kind(self, name: str) -> KindRestored:
        return self.kinds.get(name, KindRestored())

    @property
    def records(self) -> int:
        return self.kind("records").read

    @property
    def changed(self) -> int:
        return self.kind("records").merged

    @property
    def narratives(self) -> int:
        return self.kind("narratives").read

    @property
    def narratives_changed(self) -> int:
        return self.kind("narratives").merged

    @property
    def releases(self) -> int:
        return self.kind("releases").read

    @property
    def releases_added(self) -> int:
        return self.kind("releases").merged

    @property
    def releases_skipped(self) -> int:
        return self.kind("releases").skipped

    @property
    def notifications(self) -> int:
        return self.kind("notifications").read

    @property
    def notifications_added(self) -> int:
        return self.kind("notifications").merged
