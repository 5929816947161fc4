"""A day's brief: what changed that day for the people who run the code on one platform (or for
everyone, the whole day's), a few sentences an LLM wrote in every language of the site, each
sentence citing the commits it rests on.

A brief is paid for once: it is stored the moment it arrives (``AnalysisStore.put_brief``) under
a key of its own, kept in the durable form (``briefs/<YYYY-MM>.jsonl``) and asked again only when
the day's analyses it was written from change (``inputs``, a fingerprint of them, no longer
matches) or a language of the site is missing. Its text is model output, so untrusted: it is
validated here (length caps, no control characters, citations that are short shas) and a page
escapes it like any other text it shows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import date
from typing import Annotated, Self

from pydantic import Field, StringConstraints, field_validator, model_validator

from commit_digest.fields import LabelId
from commit_digest.models import AnalysisStatus, LanguageCode, Provenance, StrictModel
from commit_digest.store.hygiene import clean_text

# What one sentence may hold, and how many a brief has (a platform with one commit may have one).
SENTENCE_CAP = 400
MAX_SENTENCES = 6
MAX_CITED = 12  # commits one sentence cites
MAX_BRIEF_COMMITS = 200
# The key part of the whole day's brief, where a platform's id stands otherwise.
WHOLE_DAY = "all"

ShortSha = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{12}$")]
SentenceText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=SENTENCE_CAP)]


class BriefSentence(StrictModel):
    """One claim of a brief and the commits (short shas) it rests on."""

    text: SentenceText
    commits: tuple[ShortSha, ...] = Field(min_length=1, max_length=MAX_CITED)

    @field_validator("text", mode="before")
    @classmethod
    def _without_control_characters(cls, value: object) -> object:
        return clean_text(value) if isinstance(value, str) else value


Sentences = Annotated[tuple[BriefSentence, ...], Field(min_length=1, max_length=MAX_SENTENCES)]


def brief_key(day: date, platform: str | None) -> tuple[str, str]:
    """(day, platform or "all"): where a brief is stored, one each."""
    return (day.isoformat(), platform or WHOLE_DAY)


def inputs_fingerprint(analysed: Iterable[tuple[str, str]]) -> str:
    """What a brief was written from, as one token: the (sha, analysis identity) of each analysed
    commit it covers. A new, replaced or newly failed analysis changes it; a translation does not."""
    text = "\n".join(f"{sha} {identity}" for sha, identity in sorted(analysed))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class DayBrief(StrictModel):
    """The brief of one day (in the site's time zone) on one platform, or the whole day's."""

    day: date
    platform: LabelId | None = None  # None: the whole day's brief
    # Each language of the site when it was written: its sentences, each citing commits.
    texts: dict[LanguageCode, Sentences] = Field(min_length=1)
    # The commits it was written from (short shas), most important first.
    commits: tuple[ShortSha, ...] = Field(min_length=1, max_length=MAX_BRIEF_COMMITS)
    inputs: str = Field(pattern=r"^[0-9a-f]{32}$")  # inputs_fingerprint of the day's analyses it covers
    provenance: Provenance  # analyzer "llm:<model>", when, the tokens it cost; always status ok

    @model_validator(mode="after")
    def _sound(self) -> Self:
        if self.provenance.status is not AnalysisStatus.OK:
            raise ValueError("a brief is stored only when it was written: its provenance status must be 'ok'")
        known = set(self.commits)
        for language, sentences in self.texts.items():
            for sentence in sentences:
                stray = [sha for sha in sentence.commits if sha not in known]
                if stray:
                    raise ValueError(f"{language}: a sentence cites {', '.join(stray)}, not among the brief's commits")
        return self

    @property
    def key(self) -> tuple[str, str]:
        return brief_key(self.day, self.platform)

    def sentences(self, language: LanguageCode) -> tuple[BriefSentence, ...]:
        """The brief in ``language``; empty when it was not written in it."""
        return self.texts.get(language, ())
