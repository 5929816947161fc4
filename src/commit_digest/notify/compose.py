"""One channel's message about one day, from the site's read model of that day.

The day comes as the site shows it (``site.model``: its commits with their importance, labels
and worded analysis), so a message and the day page never disagree; the links are the pages'
addresses on the published site (``site.paths``). Here the channel's filters apply: only the
commits on its platforms or in its subsystems, the high-importance ones first with a line of
their analysis, then per platform (or per subsystem, when it follows only subsystems) the
others from the importance it asks. Before them, the day's brief when one was written: the
platform's when the channel follows exactly one platform, else the whole day's (``briefs``, read
as the site reads them: ``site.model.briefs.site_briefs``). The words come from
``notify/words/<language>.yml``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from importlib import resources

from commit_digest.errors import InputError
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.meaning.vocabulary import change_type_name
from commit_digest.models import LANGUAGE_CODES
from commit_digest.notify.config import EmailChannel, WebhookChannel
from commit_digest.notify.message import BriefLine, DayMessage, MessageBrief, MessageLine, MessageSection
from commit_digest.site import paths
from commit_digest.site.model.briefs import BriefKey, SiteBrief, site_briefs
from commit_digest.site.model.commit import GROUP_ORDER, UNANALYSED, SiteCommit
from commit_digest.site.model.index import Day
from commit_digest.site.rendering.escape import plain_name, title_plain
from commit_digest.store.briefs import DayBrief
from commit_digest.words import Words, fill, load_words

_WORDS = resources.files("commit_digest.notify").joinpath("words")
TITLE_CHARACTERS = 200  # a chat line is not a page: the rest is one click away
SUMMARY_CHARACTERS = 280


def notify_words(language: str) -> Words:
    return load_words(_WORDS, tuple(LANGUAGE_CODES))[language]


def day_briefs(
    stored: Iterable[DayBrief], days: Mapping[date, Day], language: str, site_languages: Sequence[str]
) -> dict[BriefKey, SiteBrief]:
    """The stored briefs of ``days`` as a channel in ``language`` shows them (as the site does)."""
    commits = {when: day.commits for when, day in days.items()}
    return site_briefs(stored, commits, language, site_languages)


@dataclass(frozen=True)
class SiteLinks:
    """Where the published site is and how its pages are addressed (one language's build)."""

    base: str  # the language's root on the site: "https://example.org/" or ".../en/"
    directory_urls: bool = True
    several_repositories: bool = False
    repository_titles: Mapping[str, str] | None = None

    def page(self, src_uri: str) -> str:
        return self.base + paths.url(src_uri, self.directory_urls)

    def commit(self, item: SiteCommit) -> str:
        return self.page(paths.commit_page(item.sha, item.repository if self.several_repositories else None))


def _one_line(text: str, limit: int) -> str:
    folded = plain_name(text)
    return folded if len(folded) <= limit else folded[: limit - 1].rstrip() + "…"


class Composer:
    """Makes one channel's messages, in its language."""

    def __init__(
        self,
        channel: WebhookChannel | EmailChannel,
        language: str,
        taxonomy: Taxonomy,
        links: SiteLinks,
        site_name: str | None,
        briefs: Mapping[BriefKey, SiteBrief] | None = None,
    ) -> None:
        self.channel = channel
        self.briefs = briefs or {}
        self.language = language
        self.taxonomy = taxonomy
        self.links = links
        self.words = notify_words(language)
        self.site_name = site_name or self.words["site_title"]
        for kind, wanted, known in (
            ("platform", channel.platforms, taxonomy.platform_ids),
            ("subsystem", channel.subsystems, taxonomy.subsystem_ids),
        ):
            unknown = sorted(set(wanted) - set(known))
            if unknown:
                raise InputError(
                    f"notify channel {channel.key}: unknown {kind} {', '.join(unknown)} "
                    f"(the taxonomy has {', '.join(known)})"
                )

    def _say(self, key: str, **values: object) -> str:
        return fill(self.words[key], **values)

    def follows(self, item: SiteCommit) -> bool:
        platforms, subsystems = self.channel.platforms, self.channel.subsystems
        on_platform = not platforms or any(label.id in platforms for label in item.platforms)
        in_subsystem = not subsystems or any(label.id in subsystems for label in item.subsystems)
        return on_platform and in_subsystem

    def _label_name(self, kind: str, label_id: str) -> str:
        rule = self.taxonomy.platform(label_id) if kind == "platforms" else self.taxonomy.subsystem(label_id)
        return rule.name.in_language(self.language) if rule else label_id

    def _line(self, item: SiteCommit, *, with_summary: bool) -> MessageLine:
        analysis = item.analysis if item.analysed else None
        summary = _one_line(analysis.summary[0], SUMMARY_CHARACTERS) if with_summary and analysis else None
        titles = self.links.repository_titles or {}
        return MessageLine(
            # A title of only spaces would be a link with no text, which no service shows.
            title=title_plain(item.title, TITLE_CHARACTERS) or item.short_sha,
            url=self.links.commit(item),
            short_sha=item.short_sha,
            importance=self.words[f"importance_{item.group}"],
            change_type=_change_type(item, self.language),
            author=plain_name(item.author_name),
            summary=summary,
            repository=titles.get(item.repository, item.repository) if self.links.several_repositories else None,
        )

    def _listed_groups(self) -> tuple[str, ...]:
        """The groups listed by platform: from the channel's least importance down (not high: it leads)."""
        last = GROUP_ORDER.index(self.channel.min_importance)
        groups = GROUP_ORDER[1 : last + 1]
        return (*groups, UNANALYSED) if self.channel.min_importance == "low" else groups

    def _sections(self, followed: Sequence[SiteCommit]) -> list[MessageSection]:
        high = [item for item in followed if item.group == GROUP_ORDER[0]]
        sections = []
        if high:
            lines = tuple(self._line(item, with_summary=True) for item in high)
            sections.append(MessageSection(self.words["high_heading"], lines))
        listed = self._listed_groups()
        rest = sorted(
            (item for item in followed if item.group in listed), key=lambda item: GROUP_ORDER.index(item.group)
        )
        kind = "subsystems" if self.channel.subsystems and not self.channel.platforms else "platforms"
        wanted = self.channel.subsystems if kind == "subsystems" else self.channel.platforms
        order = wanted or (self.taxonomy.subsystem_ids if kind == "subsystems" else self.taxonomy.platform_ids)
        for label_id in order:
            items = [item for item in rest if any(label.id == label_id for label in item.labels(kind))]
            if items:
                lines = tuple(self._line(item, with_summary=False) for item in items)
                sections.append(MessageSection(self._label_name(kind, label_id), lines))
        if not wanted:
            unlabelled = [item for item in rest if not item.labels(kind)]
            if unlabelled:
                lines = tuple(self._line(item, with_summary=False) for item in unlabelled)
                sections.append(MessageSection(self.words["no_platform"], lines))
        return sections

    def _scope(self) -> str | None:
        names = [self._label_name("platforms", label_id) for label_id in self.channel.platforms]
        names += [self._label_name("subsystems", label_id) for label_id in self.channel.subsystems]
        importance = self._say("scope_importance", importance=self.words[f"importance_{self.channel.min_importance}"])
        if not names:
            return importance
        return self._say("scope", labels=self.words["list_separator"].join(names)) + " · " + importance

    def _brief(self, day: Day) -> MessageBrief | None:
        """The day's brief for this channel: its one platform's, else the whole day's. A channel of
        one platform gets no other: the whole day's would speak of commits it does not follow."""
        platforms = self.channel.platforms
        platform = platforms[0] if len(platforms) == 1 else None
        brief = self.briefs.get((day.date, platform))
        if brief is None or not brief.sentences:
            return None
        model = plain_name(brief.model)
        if platform is None:
            heading = self._say("brief_heading", model=model)
        else:
            heading = self._say("brief_heading_platform", platform=self._label_name("platforms", platform), model=model)
        if brief.original_language:
            heading += " · " + self.words[f"brief_original_{brief.original_language}"]
        sentences = tuple(
            BriefLine(plain_name(sentence.text), tuple(item.short_sha for item in sentence.cites))
            for sentence in brief.sentences
        )
        return MessageBrief(heading, sentences)

    def message(self, day: Day) -> DayMessage | None:
        """The channel's message about ``day``; None when the day has no commit it follows."""
        followed = [item for item in day.newest_first if self.follows(item)]
        if not followed:
            return None
        stats = {name: sum(1 for item in followed if item.group == name) for name in GROUP_ORDER}
        stats["total"] = len(followed)
        counts = self._say("counts", total=len(followed), high=stats["high"], medium=stats["medium"], low=stats["low"])
        if stats[UNANALYSED]:
            counts = self._say("counts_unanalysed", counts=counts, unanalysed=stats[UNANALYSED])
        return DayMessage(
            channel=self.channel.key,
            language=self.language,
            day=day.date,
            site_name=plain_name(self.site_name),
            title=self._say("title", site=plain_name(self.site_name), day=day.iso),
            counts=counts,
            stats=stats,
            scope=self._scope(),
            sections=tuple(self._sections(followed)),
            day_url=self.links.page(paths.day_page(day.date)),
            open_day=self.words["open_day"],
            more_words=self.words["more"],
            subject=self._say("email_subject", site=plain_name(self.site_name), day=day.iso, total=len(followed)),
            footer=self._say("email_footer", channel=self.channel.key),
            brief=self._brief(day),
        )


def _change_type(item: SiteCommit, language: str) -> str | None:
    return change_type_name(item.change_type, language) if item.change_type else None
