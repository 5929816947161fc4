"""The site's status: when it was last built and which days it holds.

It is one small JSON file beside the pages that the footer of every page reads, so that
the pages themselves do not change from one night to the next when their content does not.
"""

from __future__ import annotations

from datetime import datetime

from commit_digest.site.i18n import Texts
from commit_digest.site.model import SiteIndex

STATUS_FILE = "status.json"


def status_facts(index: SiteIndex) -> dict[str, object]:
    """What the status says besides the time: the data window (kept in the build manifest)."""
    days = [day.date for day in index.days]
    if not days:
        return {}
    return {
        "first_day": min(days).isoformat(),
        "last_day": max(days).isoformat(),
        "days": len(days),
        "commits": sum(len(day.commits) for day in index.days),
    }


def status_document(facts: dict[str, object], *, built_at: datetime, language: str) -> dict[str, object]:
    """The status document; ``text`` is what the footer shows (it is set as text, never as HTML)."""
    texts = Texts(language)
    built = built_at.strftime("%Y-%m-%d %H:%M %Z").strip()
    if not facts:
        return {"built_at": built_at.isoformat(), "text": texts("footer_status_empty", built=built).unescape()}
    text = texts(
        "footer_status",
        built=built,
        first=facts["first_day"],
        last=facts["last_day"],
        days=facts["days"],
        commits=facts["commits"],
    )
    return {"built_at": built_at.isoformat(), **facts, "text": text.unescape()}


def site_status(index: SiteIndex, *, built_at: datetime, language: str) -> dict[str, object]:
    return status_document(status_facts(index), built_at=built_at, language=language)
