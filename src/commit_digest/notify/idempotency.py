"""The idempotency key of one day's message to one channel: the same on every attempt and resend.

Derived from the site (its published address), the day and the channel's name, and nothing that
changes between two posts of the same message (no time, no content), so a receiver that keeps the
keys it has seen can drop a second copy: the generic webhook sends it as the ``Idempotency-Key``
header and in the body, an e-mail as its ``Message-ID``.
"""

from __future__ import annotations

import hashlib
from datetime import date

IDEMPOTENCY_HEADER = "Idempotency-Key"


def idempotency_key(site: str, day: date, channel: str) -> str:
    text = "\n".join(("commit-digest.day", site, day.isoformat(), channel))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def message_id(key: str, domain: str) -> str:
    """An e-mail's ``Message-ID`` (RFC 5322 ``<id-left@id-right>``) for ``key``."""
    return f"<commit-digest.{key}@{domain}>"
