"""The notification ledger: which day was posted to which channel, so no day is posted twice.

A post is recorded in two steps. Before it leaves, its attempt (outcome ``unknown``); once the
service has answered, its outcome: ``delivered`` (with when), or the attempt is withdrawn when the
service refused it (it was not delivered: the next run tries the day again). A run that stops
between the two leaves the attempt ``unknown``: no run posts that day to that channel again on
its own (the service may have it), it is reported until someone posts it on purpose
(``notify --resend``). Each step is written to the store and, through the command, to the
durable form before the run goes on.

The ledger is one metadata value of the store (never a record: writing it moves no revision, so a
build after a notify run reuses every page), a mapping of channel name to day to its entry (an
older store's entry is the time it was sent: delivered), and in the durable form one line per
entry in ``notifications/<year>.jsonl`` (``durable.py`` writes and reads those files with the
helpers below), so a lost store restored from the data branch still knows what was posted and
what may have been. A line without ``attempted_at`` and ``outcome`` (written before attempts were
recorded) is a delivery, and is written back byte for byte as it was.

Only names, days and times are kept: never a webhook address, a secret or the message itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import date, datetime
from typing import Any, Literal

from pydantic import AwareDatetime, ValidationError, model_validator

from commit_digest.errors import StoreError
from commit_digest.models import StrictModel
from commit_digest.notify.config import ChannelName
from commit_digest.store.analysis_store import AnalysisStore

LEDGER_META = "notifications"
NOTIFICATIONS_DIR = "notifications"

Outcome = Literal["delivered", "unknown"]


class Delivery(StrictModel):
    """One day's message to one channel: delivered, or attempted with its outcome unknown."""

    channel: ChannelName
    day: date
    attempted_at: AwareDatetime | None = None  # None: recorded before attempts were
    outcome: Outcome = "delivered"
    sent_at: AwareDatetime | None = None  # when the service accepted it

    @model_validator(mode="after")
    def _outcome_matches_times(self) -> Delivery:
        if self.outcome == "delivered" and self.sent_at is None:
            raise ValueError("a delivered message has a sent_at")
        if self.outcome == "unknown" and (self.attempted_at is None or self.sent_at is not None):
            raise ValueError("an attempt whose outcome is unknown has an attempted_at and no sent_at")
        return self

    @property
    def key(self) -> tuple[str, date]:
        return (self.channel, self.day)

    @property
    def delivered(self) -> bool:
        return self.outcome == "delivered"


def delivery_line(delivery: Delivery) -> str:
    fields = delivery.model_dump(mode="json", exclude_none=True)
    if delivery.attempted_at is None:
        del fields["outcome"]  # an older delivery: its line stays as it was written
    return json.dumps(fields, sort_keys=True, separators=(",", ":"))


def delivery_order(delivery: Delivery) -> tuple[date, str]:
    return (delivery.day, delivery.channel)


def _stored(delivery: Delivery) -> dict[str, Any]:
    return delivery.model_dump(mode="json", exclude={"channel", "day"}, exclude_none=True)


def _wins(new: Delivery, old: Delivery | None) -> bool:
    """Whether a restored entry tells more than the store's: a delivery beats an attempt."""
    return old is None or (new.delivered and not old.delivered)


class NotificationLedger:
    """The ledger kept in a store (see the module's docstring)."""

    def __init__(self, store: AnalysisStore) -> None:
        self._store = store

    def _read(self) -> dict[str, dict[str, object]]:
        value = self._store.get_meta(LEDGER_META)
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(
            isinstance(days, dict) and all(isinstance(entry, str | dict) for entry in days.values())
            for days in value.values()
        ):
            raise StoreError(
                f"the store's {LEDGER_META} value is not a ledger of deliveries; "
                "rebuild the store with `commit-digest restore`"
            )
        return value

    @staticmethod
    def _entry(channel: str, day: str, value: object) -> Delivery:
        fields = {"sent_at": value} if isinstance(value, str) else dict(value)  # type: ignore[call-overload]
        try:
            return Delivery.model_validate({"channel": channel, "day": date.fromisoformat(day), **fields})
        except (ValueError, ValidationError) as error:
            raise StoreError(f"the store's {LEDGER_META} value holds a bad delivery: {error}") from error

    def deliveries(self) -> Iterator[Delivery]:
        """Every entry (delivered or outcome unknown), by day, then channel."""
        found = [
            self._entry(channel, day, value) for channel, days in self._read().items() for day, value in days.items()
        ]
        yield from sorted(found, key=delivery_order)

    def entry(self, channel: str, day: date) -> Delivery | None:
        value = self._read().get(channel, {}).get(day.isoformat())
        return None if value is None else self._entry(channel, day.isoformat(), value)

    def unknown(self, channel: str) -> list[Delivery]:
        """The channel's attempts whose outcome is unknown, oldest day first."""
        return [item for item in self.deliveries() if item.channel == channel and not item.delivered]

    def _write(self, delivery: Delivery) -> None:
        ledger = self._read()
        ledger.setdefault(delivery.channel, {})[delivery.day.isoformat()] = _stored(delivery)
        self._store.set_meta(LEDGER_META, ledger)

    def attempt(self, channel: str, day: date, at: datetime) -> Delivery:
        """Records that ``day`` is about to be posted to ``channel`` (outcome unknown until settled)."""
        attempt = Delivery(channel=channel, day=day, attempted_at=at, outcome="unknown")
        self._write(attempt)
        return attempt

    def settle(self, attempt: Delivery, sent_at: datetime) -> Delivery:
        """Records that the service accepted ``attempt``."""
        delivered = Delivery(
            channel=attempt.channel, day=attempt.day, attempted_at=attempt.attempted_at, sent_at=sent_at
        )
        self._write(delivered)
        return delivered

    def withdraw(self, attempt: Delivery) -> None:
        """Forgets ``attempt``: it was not delivered (refused, or never sent)."""
        ledger = self._read()
        days = ledger.get(attempt.channel, {})
        if days.pop(attempt.day.isoformat(), None) is not None:
            if not days:
                del ledger[attempt.channel]
            self._store.set_meta(LEDGER_META, ledger)

    def merge(self, deliveries: Iterable[Delivery]) -> int:
        """Adds the entries the store does not know, and the deliveries of what it knows only as an
        attempt (restoring the durable form); how many."""
        ledger = self._read()
        added = 0
        for delivery in deliveries:
            days = ledger.setdefault(delivery.channel, {})
            old = days.get(delivery.day.isoformat())
            known = None if old is None else self._entry(delivery.channel, delivery.day.isoformat(), old)
            if _wins(delivery, known):
                days[delivery.day.isoformat()] = _stored(delivery)
                added += 1
        if added:
            self._store.set_meta(LEDGER_META, ledger)
        return added
