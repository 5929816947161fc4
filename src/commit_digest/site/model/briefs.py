"""The days' briefs as the site shows them: a day's few sentences (the whole day's, or one
platform's) in the build's language, each sentence with the day's commits it cites.

Pure: stored briefs and the site's days in, ``SiteBrief`` values out. The text is an LLM's, so
untrusted: whoever shows it escapes it (``rendering.escape``). A stored brief is data, whatever
the writer checked: a day without a page, a language the site does not have, a citation of a
commit not on that day are left out here, at read time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from commit_digest.models import LanguageCode
from commit_digest.site.fingerprint import text_digest
from commit_digest.site.model.commit import SiteCommit
from commit_digest.store.briefs import DayBrief

# (day, platform id), None for the whole day's brief.
BriefKey = tuple[date, str | None]


@dataclass(frozen=True)
class SiteSentence:
    text: str  # untrusted
    cites: tuple[SiteCommit, ...]  # the day's commits it rests on, as the brief cites them


@dataclass(frozen=True)
class SiteBrief:
    day: date
    platform: str | None  # None: the whole day's
    sentences: tuple[SiteSentence, ...]
    model: str  # who wrote it ("gpt-4o"), untrusted as any stored text
    created_at: datetime  # when it was written: a feed entry's time
    fingerprint: str  # of the stored brief: a page showing it changes when it does
    original_language: LanguageCode | None = None  # when not worded in the build's language

    @property
    def plain_sentences(self) -> tuple[str, ...]:
        return tuple(sentence.text for sentence in self.sentences)


def _worded(brief: DayBrief, language: str, site_languages: Sequence[str]) -> LanguageCode | None:
    """The language the brief is shown in: the build's, else the first other language of the site
    it was written in; None when it has none of the site's (it is then not shown at all)."""
    for wanted in (language, *site_languages):
        for code in brief.texts:
            if code == wanted:
                return code
    return None


def site_brief(
    brief: DayBrief, commits: Sequence[SiteCommit], language: str, site_languages: Sequence[str]
) -> SiteBrief | None:
    """``brief`` as the day page shows it, its citations resolved among ``commits`` (the day's)."""
    code = _worded(brief, language, site_languages)
    if code is None:
        return None
    by_short: dict[str, SiteCommit] = {}
    for item in commits:
        by_short.setdefault(item.short_sha, item)
    sentences = tuple(
        SiteSentence(
            sentence.text,
            tuple(dict.fromkeys(by_short[sha] for sha in sentence.commits if sha in by_short)),
        )
        for sentence in brief.sentences(code)
    )
    return SiteBrief(
        day=brief.day,
        platform=brief.platform,
        sentences=sentences,
        model=brief.provenance.model or brief.provenance.analyzer,
        created_at=brief.provenance.created_at,
        fingerprint=text_digest(brief.model_dump_json()),
        original_language=None if code == language else code,
    )


def site_briefs(
    stored: Iterable[DayBrief],
    days: Mapping[date, Sequence[SiteCommit]],
    language: str,
    site_languages: Sequence[str] = (),
) -> dict[BriefKey, SiteBrief]:
    """The stored briefs of the days the site has a page for (``days``: each day's commits), in
    ``language`` or another of ``site_languages``."""
    found: dict[BriefKey, SiteBrief] = {}
    for brief in stored:
        commits = days.get(brief.day)
        if commits is None:
            continue
        shown = site_brief(brief, commits, language, site_languages)
        if shown is not None:
            found[(brief.day, brief.platform)] = shown
    return found
