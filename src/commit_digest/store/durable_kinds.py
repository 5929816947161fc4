"""The kinds of value the durable form holds, as data: one ``DurableKind`` each, in ``KINDS``.

A kind says where each of its values is written (``durable_layout`` makes the paths), the line it
is written as and in which order, the model its lines are read back with, how the save's guard
reads a line's key without that model, how the store lists its values and how a restore merges them
in. ``durable`` saves, restores, salvages and guards by looping over ``KINDS``, so a new kind of
value is one entry here and its file's place in ``durable_layout``.

Records are an entry like the others: their merge rules (the better analysis wins, a legacy
placeholder may go) are the store's ``merge``, and what sets them apart is said by two fields:
their files sit in each repository's folder rather than one of their own, and the manifest counts
them even when there are none (every manifest ever written has ``records``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from commit_digest.legacy.importer import is_placeholder
from commit_digest.meaning.releases import Release, is_release_tag, release_order
from commit_digest.models import CommitRecord
from commit_digest.settings import DEFAULT_RELEASE_TAGS
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.briefs import WHOLE_DAY, DayBrief
from commit_digest.store.durable_files import Key, LineKey, field_key
from commit_digest.store.durable_layout import (
    BRIEFS_DIR,
    NARRATIVES_DIR,
    RELEASES_DIR,
    brief_file,
    model_line,
    month_file,
    narrative_file,
    notification_file,
    release_file,
)
from commit_digest.store.exchange import record_line, record_order
from commit_digest.store.narratives import WeekNarrative
from commit_digest.store.notification_ledger import (
    NOTIFICATIONS_DIR,
    Delivery,
    NotificationLedger,
    delivery_line,
    delivery_order,
)
from commit_digest.words import counted

T = TypeVar("T", bound=BaseModel)
# Repository → its ``release_tags`` (the default pattern for one not named): the fetch's filter.
ReleaseTags = Mapping[str, str]


def _never(key: Key, release_tags: ReleaseTags) -> bool:
    return False


def _always(value: Any, release_tags: ReleaseTags) -> bool:
    return True


@dataclass(frozen=True)
class DurableKind(Generic[T]):
    """One kind of value of the durable form (see the module's docstring)."""

    name: str  # its count in the manifest and its folder (unless ``own_folder`` is False)
    label: str  # what a report calls its values: "week narratives"
    label_one: str  # and one of them: "1 week narrative"
    model: type[T]  # reads a line back; a line it refuses is a problem naming file and line
    file: Callable[[Path, T], Path]  # the file a value is written to, in the durable folder
    line: Callable[[T], str]
    order: Callable[[T], Any]  # the order of the lines in a file: a stable file is a small diff
    key: Callable[[T], Key]  # the value's key as ``line_key`` reads it from its line
    line_key: LineKey
    stored: Callable[[AnalysisStore], Iterable[T]]
    merge: Callable[[AnalysisStore, Sequence[T]], int]  # how many were new to the store or newer
    count: Callable[[AnalysisStore], int] | None = None  # None: counts ``stored``
    may_drop: Callable[[Key, ReleaseTags], bool] = _never  # a key a save drops on purpose
    admits: Callable[[T, ReleaseTags], bool] = _always  # a value a restore lets into the store
    own_folder: bool = True
    counted_when_none: bool = False

    def counted(self, count: int) -> str:
        """``count`` values of this kind, as a report says them: "1 day brief", "3 day briefs"."""
        return counted(count, self.label_one, self.label)

    def in_store(self, store: AnalysisStore) -> int:
        return self.count(store) if self.count is not None else sum(1 for _ in self.stored(store))


def _each(merge_one: Callable[[AnalysisStore, T], bool]) -> Callable[[AnalysisStore, Sequence[T]], int]:
    return lambda store, values: sum(merge_one(store, value) for value in values)


def _placeholder(key: Key, release_tags: ReleaseTags) -> bool:
    """A legacy placeholder a save moved onto its real commit."""
    return is_placeholder(key[1])


def _not_a_release_tag(key: Key, release_tags: ReleaseTags) -> bool:
    return not is_release_tag(key[1], release_tags.get(key[0], DEFAULT_RELEASE_TAGS))


def _release_admitted(release: Release, release_tags: ReleaseTags) -> bool:
    return not _not_a_release_tag(release.key, release_tags)


_DELIVERY_KEY = field_key(("channel",), ("day",))


def _delivery_line_key(value: object) -> Key | None:
    # ``notify`` withdraws an attempt the service refused, so a line whose outcome is unknown may go.
    if isinstance(value, dict) and value.get("outcome", "delivered") != "delivered":
        return ()
    return _DELIVERY_KEY(value)


def _delivery_key(delivery: Delivery) -> Key:
    return (delivery.channel, delivery.day.isoformat()) if delivery.delivered else ()


_BRIEF_KEY = field_key(("day",), ("platform",))


def _brief_line_key(value: object) -> Key | None:
    # The whole day's brief has no platform (null): its key names it as the store's does.
    if isinstance(value, dict) and value.get("platform") is None:
        value = {**value, "platform": WHOLE_DAY}
    return _BRIEF_KEY(value)


RECORDS: DurableKind[CommitRecord] = DurableKind(
    name="records",
    label="records",
    label_one="record",
    model=CommitRecord,
    file=month_file,
    line=record_line,
    order=record_order,
    key=lambda record: record.key,
    line_key=field_key(("commit", "repository"), ("commit", "sha")),
    stored=AnalysisStore.records,
    merge=lambda store, records: store.merge_all(records),
    count=len,  # a restore's shortcut must not parse every record to count them
    may_drop=_placeholder,
    own_folder=False,
    counted_when_none=True,
)
NARRATIVES: DurableKind[WeekNarrative] = DurableKind(
    name=NARRATIVES_DIR,
    label="week narratives",
    label_one="week narrative",
    model=WeekNarrative,
    file=narrative_file,
    line=model_line,
    order=lambda narrative: narrative.key,
    key=lambda narrative: narrative.key,
    line_key=field_key(("week",), ("platform",)),
    stored=AnalysisStore.narratives,
    merge=_each(AnalysisStore.merge_narrative),
)
RELEASES: DurableKind[Release] = DurableKind(
    name=RELEASES_DIR,
    label="releases",
    label_one="release",
    model=Release,
    file=release_file,
    line=model_line,
    order=lambda release: (release.repository, release_order(release), release.tag),
    key=lambda release: release.key,
    line_key=field_key(("repository",), ("tag",)),
    stored=AnalysisStore.releases,
    merge=_each(AnalysisStore.merge_release),
    may_drop=_not_a_release_tag,
    admits=_release_admitted,
)
NOTIFICATIONS: DurableKind[Delivery] = DurableKind(
    name=NOTIFICATIONS_DIR,
    label="notification entries",
    label_one="notification entry",
    model=Delivery,
    file=notification_file,
    line=delivery_line,
    order=delivery_order,
    key=_delivery_key,
    line_key=_delivery_line_key,
    stored=lambda store: NotificationLedger(store).deliveries(),
    merge=lambda store, deliveries: NotificationLedger(store).merge(deliveries),
)
BRIEFS: DurableKind[DayBrief] = DurableKind(
    name=BRIEFS_DIR,
    label="day briefs",
    label_one="day brief",
    model=DayBrief,
    file=brief_file,
    line=model_line,
    order=lambda brief: brief.key,
    key=lambda brief: brief.key,
    line_key=_brief_line_key,
    stored=AnalysisStore.briefs,
    merge=_each(AnalysisStore.merge_brief),
)

# In the order a restore merges them.
KINDS: tuple[DurableKind[Any], ...] = (RECORDS, NARRATIVES, RELEASES, NOTIFICATIONS, BRIEFS)
BY_NAME: Mapping[str, DurableKind[Any]] = {kind.name: kind for kind in KINDS}


def kind_of(name: str) -> DurableKind[Any]:
    """The kind of the file ``name`` (relative to the durable folder): a file two levels deep in a
    kind's own folder is of that kind; any other is a repository's month of records."""
    parts = name.split("/")
    if len(parts) == 2:
        kind = BY_NAME.get(parts[0])
        if kind is not None and kind.own_folder:
            return kind
    return RECORDS
