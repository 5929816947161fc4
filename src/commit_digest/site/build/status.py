"""The site's status: when it was last built, which days it holds, when the data was last
fetched, and whether it is out of date.

It is one small JSON file beside the pages that the footer of every page reads, so that
the pages themselves do not change from one night to the next when their content does not.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from commit_digest.site.model.index import SiteIndex
from commit_digest.site.rendering.i18n import Texts

STATUS_FILE = "status.json"
# A nightly build that lost its data for a weekend says so; one missed night does not.
STALE_AFTER = timedelta(days=2)


def status_facts(index: SiteIndex, *, last_fetch: datetime | None = None) -> dict[str, object]:
    """What the status says besides the time: the data window and the last successful fetch
    (kept in the build manifest)."""
    days = [day.date for day in index.days]
    fetched = {"last_fetch": last_fetch.isoformat()} if last_fetch is not None else {}
    if not days:
        return fetched
    sample = {"sample": True} if index.sample is not None else {}
    return {
        **sample,
        "first_day": min(days).isoformat(),
        "last_day": max(days).isoformat(),
        "days": len(days),
        "commits": sum(len(day.commits) for day in index.days),
        **fetched,
    }


def is_stale(last_day: date | None, last_fetch: datetime | None, built_at: datetime) -> bool:
    """Whether the data is more than ``STALE_AFTER`` older than the build. A recent successful
    fetch makes it fresh even when the newest commit is older: the repository was quiet."""
    if last_fetch is not None and built_at - last_fetch <= STALE_AFTER:
        return False
    return last_day is None or built_at.date() - last_day > STALE_AFTER


def status_document(facts: dict[str, object], *, built_at: datetime, language: str) -> dict[str, object]:
    """The status document; ``text`` is what the footer shows and ``notice``, present when the
    data is stale, what the bar at the screen's foot does, with ``dismiss`` naming its close
    button (all set as text, never as HTML)."""
    texts = Texts(language)
    built = _moment(built_at)
    last_fetch = datetime.fromisoformat(str(facts["last_fetch"])) if "last_fetch" in facts else None
    fetched = ""
    if last_fetch is not None:
        fetched = texts("status_last_fetch", fetched=_moment(last_fetch.astimezone(built_at.tzinfo))).unescape()
    document: dict[str, object] = {"built_at": built_at.isoformat(), **facts}
    if "last_day" not in facts:
        document["text"] = texts("footer_status_empty", built=built).unescape() + fetched
        document["stale"] = False  # nothing to be out of date; the empty site says so itself
        return document
    last_day = date.fromisoformat(str(facts["last_day"]))
    text = texts(
        "footer_status",
        built=built,
        first=facts["first_day"],
        last=last_day,
        days=facts["days"],
        commits=facts["commits"],
    )
    sample = texts("sample_footer").unescape() if facts.get("sample") else ""
    document["text"] = text.unescape() + fetched + sample
    # Sample data is of its own days by design: no fetch failed, so there is no notice.
    document["stale"] = not facts.get("sample") and is_stale(last_day, last_fetch, built_at)
    if document["stale"]:
        notice = texts("status_stale", last=last_day, days=(built_at.date() - last_day).days, built=built)
        document["notice"] = notice.unescape()
        document["dismiss"] = texts("status_dismiss").unescape()  # the notice's close button
    return document


def _moment(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M %Z").strip()
