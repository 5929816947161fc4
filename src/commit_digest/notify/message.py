"""A day's notification as every service receives it, before any service's markup: the message.

What one channel is told about one day: a title, the counts, which commits it follows, then
sections of commit lines (the day's high-importance changes first, then by platform or
subsystem), each line with its page on the published site, and the day page's link. Every text
in it is plain text and untrusted (commit titles, author names, analyses, even the taxonomy's
names): each service's formatter escapes it for its own markup.

It leads with the day's brief when there is one (``MessageBrief``: an LLM's few sentences on the
day, the channel's platform's or everyone's), as untrusted as the rest.

A message too big for a service is cut at a line (``shown``): the lines past the cut are left
out whole and counted, and the formatter ends with "and N more" and the day's link. The brief
is the last to go, a sentence at a time, once no line is left: it says what the lines would.
The formatters never cut themselves; ``fitting`` finds the longest cut that fits.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date

from commit_digest.words import fill


@dataclass(frozen=True)
class MessageLine:
    """One commit as a line of the message."""

    title: str  # one line, plain
    url: str  # its page on the published site
    short_sha: str
    importance: str  # worded in the message's language
    change_type: str | None  # worded; None when not analysed
    author: str
    summary: str | None = None  # one line of its analysis (the high-importance lines have one)
    repository: str | None = None  # the repository's title, on a site of several


@dataclass(frozen=True)
class BriefLine:
    """One sentence of the day's brief, one line, and the commits it cites (short shas)."""

    text: str
    commits: tuple[str, ...] = ()


@dataclass(frozen=True)
class MessageBrief:
    heading: str  # worded: whose brief, who wrote it
    sentences: tuple[BriefLine, ...]

    @property
    def text(self) -> str:
        """The sentences as one paragraph, as the chat services show it."""
        return " ".join(sentence.text for sentence in self.sentences)


@dataclass(frozen=True)
class MessageSection:
    heading: str
    lines: tuple[MessageLine, ...]


@dataclass(frozen=True)
class DayMessage:
    channel: str  # the channel's name (the ledger's key)
    language: str
    day: date
    site_name: str
    title: str
    counts: str  # the day's counts, worded
    stats: dict[str, int]  # the same counts as numbers: total, high, medium, low, unanalysed
    scope: str | None  # what the channel follows, worded; None: everything
    sections: tuple[MessageSection, ...]
    day_url: str
    open_day: str  # the day link's words
    more_words: str  # "and {count} more…": the line that ends a cut message
    subject: str  # an e-mail's subject
    footer: str  # an e-mail's last line
    hidden: int = 0  # lines left out by a cut
    idempotency_key: str = ""  # the same for every post of this day to this channel (``idempotency``)
    brief: MessageBrief | None = None  # the day's brief, first; None: none was written

    @property
    def line_count(self) -> int:
        return sum(len(section.lines) for section in self.sections)

    @property
    def unit_count(self) -> int:
        """What a cut counts: the brief's sentences, then the lines."""
        return (len(self.brief.sentences) if self.brief else 0) + self.line_count

    @property
    def more(self) -> str | None:
        """The line saying how many lines were cut, or None when none was."""
        return fill(self.more_words, count=self.hidden) if self.hidden else None

    def shown(self, count: int) -> DayMessage:
        """The message with only its first ``count`` units: the brief's sentences, then its lines
        (in section order), the lines left out counted in ``hidden``; a section left without lines
        is left out, and so is a brief left without sentences."""
        sentences = len(self.brief.sentences) if self.brief else 0
        count = max(0, min(count, self.unit_count))
        brief = self.brief
        if brief is not None and count < sentences:
            brief = dataclasses.replace(brief, sentences=brief.sentences[:count]) if count else None
        total = self.line_count
        count = max(0, count - sentences)
        kept: list[MessageSection] = []
        left = count
        for section in self.sections:
            if left <= 0:
                break
            kept.append(dataclasses.replace(section, lines=section.lines[:left]))
            left -= len(section.lines)
        return dataclasses.replace(self, brief=brief, sections=tuple(kept), hidden=self.hidden + total - count)
