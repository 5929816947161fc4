"""The notification ledger: which day was sent to which channel, so no day is sent twice.

A delivery is written the moment the service accepted the message, before the next channel is
tried: a run that stops half-way resends nothing the next time, and a channel that failed is
simply missing here and tried again. The ledger is one metadata value of the store (never a
record: writing it moves no revision, so a build after a notify run reuses every page), a
mapping of channel name to day to when it was sent, and in the durable form one line per
delivery in ``notifications/<year>.jsonl`` (``durable.py`` writes and reads those files with the
helpers below), so a lost store restored from the data branch still knows what was sent.

Only names, days and times are kept: never a webhook address, a secret or the message itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import date

from pydantic import AwareDatetime, ValidationError

from commit_digest.errors import StoreError
from commit_digest.models import StrictModel
from commit_digest.notify.config import ChannelName
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.exchange import InputProblems

LEDGER_META = "notifications"
NOTIFICATIONS_DIR = "notifications"


class Delivery(StrictModel):
    """One day's message accepted by one channel's service."""

    channel: ChannelName
    day: date
    sent_at: AwareDatetime

    @property
    def key(self) -> tuple[str, date]:
        return (self.channel, self.day)


def delivery_line(delivery: Delivery) -> str:
    return json.dumps(delivery.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))


def delivery_order(delivery: Delivery) -> tuple[date, str]:
    return (delivery.day, delivery.channel)


def read_all_deliveries(lines: Iterable[str], *, source: str) -> list[Delivery]:
    """Every delivery of a year file, or an InputError listing every bad line (``file:line: field``)."""
    problems = InputProblems()
    found = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            found.append(Delivery.model_validate_json(line))
        except ValidationError as error:
            problems.add_invalid(source, number, error)
    problems.raise_if_any()
    return found


class NotificationLedger:
    """The deliveries kept in a store (see the module's docstring)."""

    def __init__(self, store: AnalysisStore) -> None:
        self._store = store

    def _read(self) -> dict[str, dict[str, str]]:
        value = self._store.get_meta(LEDGER_META)
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(
            isinstance(days, dict) and all(isinstance(sent, str) for sent in days.values()) for days in value.values()
        ):
            raise StoreError(
                f"the store's {LEDGER_META} value is not a ledger of deliveries; "
                "rebuild the store with `commit-digest restore`"
            )
        return value

    def deliveries(self) -> Iterator[Delivery]:
        """Every delivery, by day, then channel."""
        found = []
        for channel, days in self._read().items():
            for day, sent_at in days.items():
                try:
                    found.append(Delivery(channel=channel, day=date.fromisoformat(day), sent_at=sent_at))
                except (ValueError, ValidationError) as error:
                    raise StoreError(f"the store's {LEDGER_META} value holds a bad delivery: {error}") from error
        yield from sorted(found, key=delivery_order)

    def sent(self, channel: str, day: date) -> bool:
        return day.isoformat() in self._read().get(channel, {})

    def record(self, delivery: Delivery) -> bool:
        """Keeps ``delivery``; False when its channel already had its day (the first time stays)."""
        ledger = self._read()
        days = ledger.setdefault(delivery.channel, {})
        if delivery.day.isoformat() in days:
            return False
        days[delivery.day.isoformat()] = delivery.sent_at.isoformat()
        self._store.set_meta(LEDGER_META, ledger)
        return True

    def merge(self, deliveries: Iterable[Delivery]) -> int:
        """Adds the deliveries the store does not know (restoring the durable form); how many."""
        ledger = self._read()
        added = 0
        for delivery in deliveries:
            days = ledger.setdefault(delivery.channel, {})
            if delivery.day.isoformat() not in days:
                days[delivery.day.isoformat()] = delivery.sent_at.isoformat()
                added += 1
        if added:
            self._store.set_meta(LEDGER_META, ledger)
        return added
