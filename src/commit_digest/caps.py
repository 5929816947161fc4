"""How long each worded field of an analysis may be: one table for the store, the replies and the prompts.

An analysis is paid for, so a reply the prompt allowed must always fit the store: a cap the
store refused would mark a good answer failed and pay for it again the next night. The store's
caps (``STORED``) bound what ``models.Analysis`` accepts; what the analysis prompt states and its
reply schema checks (``ASKED``) is tighter, so a model that runs a little long is still asked for
less than the store holds; a translation is checked against the store's own caps (it must fit where
its source fits). ``check_within`` holds the order at import time, so a change to one table that
breaks it fails at once rather than on a paid reply.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class TextCaps:
    """Characters per text and items per list of an analysis's worded fields."""

    short: int  # an impact item's area, a recommendation's audience, a label's reason
    note: int  # what an impact item says of its area (may be empty)
    paragraph: int  # a summary item, an insight, a risk, an advice, the conclusion
    summary_items: int
    impact_items: int
    list_items: int  # risks and recommendations


STORED = TextCaps(
    short=300,
    note=2000,
    paragraph=2000,
    summary_items=12,
    impact_items=30,
    list_items=15,
)
ASKED = TextCaps(
    short=200,
    note=1200,
    paragraph=1200,
    summary_items=6,
    impact_items=8,
    list_items=8,
)
# Platforms, and subsystems, a reply may propose (the store keeps every label the rules add too).
ASKED_LABELS = 6
TRANSLATED = STORED
LABEL_ID = 40  # characters of a platform or subsystem id


def check_within(inner: TextCaps, outer: TextCaps) -> None:
    """Raises when a text ``inner`` allows would not fit ``outer``."""
    wider = [field.name for field in fields(TextCaps) if getattr(inner, field.name) > getattr(outer, field.name)]
    if wider:
        raise ValueError(f"caps allow more than the store holds: {', '.join(wider)}")


check_within(ASKED, STORED)
check_within(TRANSLATED, STORED)
