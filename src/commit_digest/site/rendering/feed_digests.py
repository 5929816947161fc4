"""The feed entries that are no commit: a day's brief and a week's narratives, in the feeds that
carry them (the whole site's: the whole day's brief and every platform's narrative of the week;
a platform's: that platform's brief and narrative).

Pure: the site index and one feed's commit entries in, plain-text entries out; ``views/feeds.py``
writes them among the commit entries. Only the days and weeks of the feed's commit entries get
one, so the commit entries stay the newest ``FEED_SIZE`` and a brief never pushes one out. The
text is an LLM's: plain text without direction controls (``escape.plain_name``/``plain_text``),
and the feed's XML writer escapes it as any other text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

from commit_digest.site import paths
from commit_digest.site.model.briefs import SiteBrief
from commit_digest.site.model.calendar import IsoWeek
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.index import SiteIndex, SiteNarrative
from commit_digest.site.rendering.escape import plain_name, plain_text
from commit_digest.site.rendering.feed_list import Feed
from commit_digest.site.rendering.i18n import Texts

# The feeds with day and week entries: a subsystem's, a repository's or the high-importance
# feed has no brief of its own, and the whole day's would say more than they hold.
DIGEST_KINDS = ("all", "platforms")


@dataclass(frozen=True)
class DigestEntry:
    id: str  # the page's URL with a fragment: stable while the day or week exists
    link: str
    title: str  # plain text
    moment: datetime  # when it was written: the entry's published and updated
    summary: str  # plain text


class DigestEntries:
    """Makes one build's day and week entries (one language)."""

    def __init__(
        self,
        index: SiteIndex,
        texts: Texts,
        page_url: Callable[[str], str],
        label_name: Callable[[str], str],
        platform_order: Sequence[str],
        zone: tzinfo,
    ) -> None:
        self.index = index
        self.texts = texts
        self.page_url = page_url
        self.label_name = label_name  # a platform's name, plain text
        self.platform_order = platform_order
        self.zone = zone

    def _text(self, key: str, **values: object) -> str:
        return self.texts(key, **values).unescape()

    def of(self, feed: Feed, commits: Sequence[SiteCommit]) -> list[DigestEntry]:
        """The feed's day and week entries, newest first, for the days and weeks of ``commits``."""
        if feed.kind not in DIGEST_KINDS:
            return []
        platform = feed.label_id if feed.kind == "platforms" else None
        entries = []
        for day in dict.fromkeys(item.day for item in commits):
            brief = self.index.brief(day, platform)
            if brief is not None:
                entries.append(self._day(brief))
        for week in dict.fromkeys(item.week for item in commits):
            entry = self._week(week, platform)
            if entry is not None:
                entries.append(entry)
        return sorted(entries, key=lambda entry: entry.moment, reverse=True)

    def _written_by(self, key: str, model: str, original: str | None) -> str:
        line = self._text(key, model=plain_name(model))
        return line + (" · " + self._text(f"original_{original}") if original else "")

    def _day(self, brief: SiteBrief) -> DigestEntry:
        page = self.page_url(paths.day_page(brief.day))
        iso = brief.day.isoformat()
        if brief.platform is None:
            anchor, link = "brief", page + "#brief"
            title = self._text("feed_brief_title", date=iso)
        else:
            anchor = f"brief-{brief.platform}"
            link = f"{page}?platform={brief.platform}#{anchor}"
            title = self._text("feed_brief_platform_title", date=iso, platform=self.label_name(brief.platform))
        sentences = "\n".join(plain_name(text) for text in brief.plain_sentences)
        by = self._written_by("brief_by", brief.model, brief.original_language)
        return DigestEntry(
            id=f"{page}#{anchor}",
            link=link,
            title=title,
            moment=brief.created_at.astimezone(self.zone),
            summary=f"{sentences}\n\n{by}",
        )

    def _week(self, week: IsoWeek, platform: str | None) -> DigestEntry | None:
        wanted = [platform] if platform is not None else list(self.platform_order)
        if platform is None:  # platforms outside the taxonomy's order, after it
            wanted += sorted({key for week_id, key in self.index.narratives if week_id == week.id} - set(wanted))
        found = [
            (key, note)
            for key in wanted
            if (note := self.index.narratives.get((week.id, key))) is not None and note.created_at is not None
        ]
        if not found:
            return None
        page = self.page_url(paths.week_page(week))
        anchor = f"platforms-{platform}" if platform is not None else "platforms"
        parts = [self._narrative(key, note, named=platform is None) for key, note in found]
        return DigestEntry(
            id=f"{page}#{anchor}",
            link=f"{page}#{anchor}",
            title=self._text("feed_week_title", week=week.id),
            moment=max(note.created_at for _, note in found if note.created_at is not None).astimezone(self.zone),
            summary="\n\n".join(parts),
        )

    def _narrative(self, platform: str, note: SiteNarrative, *, named: bool) -> str:
        text = plain_text(note.text.replace("\r\n", "\n")).strip()
        if named:  # the name filled in alone: the text keeps its paragraphs
            text = self._text("feed_fact", name=self.label_name(platform), value="") + text
        return text + "\n" + self._written_by("week_narrative", note.model, note.original_language)
