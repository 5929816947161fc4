"""What a page says of itself in one line of plain text: its meta description, which search
engines show under its title and link previews (Slack, WeChat…) under its name.

A commit page's is its gist (its analysis's first summary bullet; an unanalysed commit's title
and day); a page of commits (a day, a label's month, a week, a release…) its counts by
importance and its most important titles; a label's page its name, count and period. Every
description keeps to ``DESCRIPTION_WIDTH`` columns, a wide character (Chinese, Japanese, Korean)
counting two, cut at a word (at a character in scripts written without spaces) with "…".

Pure: the site's words and model in, plain text out; whoever puts it in HTML escapes it
(``head.py``). Untrusted text loses its explicit direction controls and line breaks here
(``escape.plain_name``, ``escape.title_plain``), as every plain text of the site does.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from commit_digest.site.model.commit import GROUP_ORDER, UNANALYSED, SiteCommit
from commit_digest.site.rendering.escape import plain_name, title_plain
from commit_digest.site.rendering.i18n import Texts

# Search engines show about this much of a description (their cut is by width: ~160 Latin
# characters, ~80 Chinese ones); link previews less. A page carries its description twice (meta
# and og:description), so what no one is shown is not written.
DESCRIPTION_WIDTH = 160
_ELLIPSIS = "…"

# Scripts written without spaces between words: a description may be cut after any character.
_UNSPACED = re.compile(r"[\u2e80-\u2fff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
# What a cut leaves at the end before its "…".
_TRAILING = " ,;:.、，；：。·-–—"


def _joins_previous(text: str, position: int) -> bool:
    """Whether a cut before ``position`` would split a character as it is seen (a combining mark,
    a variation selector, an emoji joined by a zero-width joiner)."""
    character = text[position]
    return (
        unicodedata.category(character) in ("Mn", "Mc", "Me")
        or character in "\u200d\ufe0f"
        or text[position - 1] == "\u200d"
    )


def _in_word(character: str) -> bool:
    return character.isalnum() and not _UNSPACED.match(character)


def _columns(character: str) -> int:
    return 2 if unicodedata.east_asian_width(character) in ("W", "F") else 1


def width(text: str) -> int:
    """The columns ``text`` takes: two for a wide (CJK) character, one for any other."""
    return sum(_columns(character) for character in text)


def clipped(text: str, limit: int = DESCRIPTION_WIDTH) -> str:
    """``text`` (one line) within ``limit`` columns (``width``): whole, or cut with "…" at the
    last space before the limit when the cut would split a word (at any character of a script
    written without spaces), never inside a character as it is seen."""
    if width(text) <= limit:
        return text
    cut, used = 0, 0
    while used + _columns(text[cut]) <= limit - 1:  # room for the "…"
        used += _columns(text[cut])
        cut += 1
    while cut > 0 and _joins_previous(text, cut):
        cut -= 1
    kept = text[:cut]
    if _in_word(text[cut]) and cut > 0 and _in_word(text[cut - 1]):
        space = kept.rfind(" ")
        if space > cut // 2:  # a word longer than half the description is cut where it is
            kept = kept[:space]
    return kept.rstrip(_TRAILING) + _ELLIPSIS


def _by_importance(commits: Iterable[SiteCommit]) -> list[SiteCommit]:
    """The commits most important first, the newest first within an importance."""
    newest_first = sorted(commits, key=lambda item: item.committed_at, reverse=True)
    return sorted(newest_first, key=lambda item: GROUP_ORDER.index(item.group))


def importance_counts(commits: Sequence[SiteCommit], texts: Texts) -> str:
    """How many of ``commits`` each importance has ("高 3 · 中 20 · 低 31"), those of none left out."""
    counts = dict.fromkeys(GROUP_ORDER, 0)
    for item in commits:
        counts[item.group] += 1
    words = {name: texts("importance_none" if name == UNANALYSED else f"importance_{name}") for name in GROUP_ORDER}
    return " · ".join(
        texts("describe_count", name=words[name], count=count).unescape() for name, count in counts.items() if count
    )


def commits_description(
    lead: str, commits: Sequence[SiteCommit], texts: Texts, *, titles: bool = True, brief: Sequence[str] = ()
) -> str:
    """The commits' lead, count and counts by importance ("2026-01-08：54 个提交，高 3 · 中 20 ·
    低 31。") and, with ``titles``, the most important commits' titles, as many as the
    description holds, or the sentences of a ``brief`` (a day's, untrusted) in their place: what
    a link to the day previews is then what changed, not a list of titles; "" (the site's
    description) without commits."""
    if not commits:
        return ""
    counts = importance_counts(commits, texts)
    described = texts("describe_commits", lead=plain_name(lead), total=len(commits), counts=counts).unescape()
    if brief:
        for sentence in brief:
            described = _joined(described, plain_name(sentence))
    elif titles and commits:
        separator = texts("describe_separator").unescape()
        shown: list[str] = []
        length = width(described)
        for item in _by_importance(commits):
            title = title_plain(item.title, DESCRIPTION_WIDTH)
            shown.append(title)
            length += width(title) + width(separator)
            if length > DESCRIPTION_WIDTH:
                break
        described = _joined(described, separator.join(shown))
    return clipped(described)


def commit_description(item: SiteCommit, texts: Texts) -> str:
    """A commit's gist: its analysis's first summary bullet; without an analysis, its title and day."""
    analysis = item.analysis if item.analysed else None
    # As the page shows it (escaped text), plain: code spans without their backticks, one line.
    gist = title_plain(analysis.summary[0], None) if analysis is not None and analysis.summary else ""
    if gist:
        return clipped(gist)
    title = title_plain(item.title, DESCRIPTION_WIDTH)
    return clipped(texts("describe_unanalysed", title=title, date=item.day.isoformat()).unescape())


def label_description(name: str, commits: Sequence[SiteCommit], texts: Texts, about: str = "") -> str:
    """A label's page: its name, how many commits and over which days, then what it is about."""
    text = name
    if commits:
        days = [item.day for item in commits]
        first, last, total = min(days), max(days), len(commits)
        if first == last:
            text = texts("describe_label_day", name=name, total=total, day=first).unescape()
        else:
            text = texts("describe_label", name=name, total=total, first=first, last=last).unescape()
    return clipped(_joined(text, plain_name(about)))


def _joined(first: str, second: str) -> str:
    """Two sentences, with a space between them but after a full-width stop ("。")."""
    if not first or not second:
        return first or second
    return first + ("" if _UNSPACED.match(first[-1]) else " ") + second


def listing_description(title: str, items: Sequence[tuple[str, int]], texts: Texts) -> str:
    """An index of labels (or releases, series): its title, then each with its count, as many as
    fit; those of no commit left out. "" (the site's description) when none is left."""
    listed: list[str] = []
    length = width(title)
    for name, count in items:
        if count and length <= DESCRIPTION_WIDTH:  # the rest would be cut off
            named = title_plain(name, DESCRIPTION_WIDTH)
            listed.append(texts("describe_label_count", name=named, count=count).unescape())
            length += width(listed[-1]) + 2
    if not listed:
        return ""
    separator = texts("describe_list_separator").unescape()
    text = texts("describe_listing", title=title, items=separator.join(listed)).unescape()
    return clipped(text)
