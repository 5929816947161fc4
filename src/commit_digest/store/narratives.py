"""A week's narrative per platform: a few sentences an LLM wrote about what changed that week for
the people who run the code on one hardware platform, in every language of the site.

A narrative is paid for once: it is stored the moment it arrives (``AnalysisStore.put_narrative``)
under a key of its own, kept in the durable form (``narratives/<ISO year>.jsonl``) and never
rewritten for a past week unless asked (``commit-digest narrate --rewrite``). Its text is model
output, so untrusted: it is validated here (length caps, no control characters) and a page must
escape it like any other text it shows.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Self

from pydantic import Field, StringConstraints, field_validator, model_validator

from commit_digest.fields import LabelId
from commit_digest.models import AnalysisStatus, LanguageCode, Provenance, StrictModel
from commit_digest.store.hygiene import clean_text

WEEK_ID_PATTERN = r"^(\d{4})-W(\d{2})$"
NARRATIVE_CAP = 1500
MAX_NARRATIVE_COMMITS = 200

_WEEK_ID = re.compile(WEEK_ID_PATTERN)

NarrativeText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=NARRATIVE_CAP)]
ShortSha = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{12}$")]


def week_id_problem(text: str) -> str | None:
    """Why ``text`` is not an ISO week id such as ``2026-W03``, or None when it is one."""
    match = _WEEK_ID.match(text)
    if match is None:
        return f"{text!r} is not an ISO week such as 2026-W03"
    try:
        date.fromisocalendar(int(match.group(1)), int(match.group(2)), 1)
    except ValueError as error:
        return f"{text!r} is not an ISO week: {error}"
    return None


class WeekNarrative(StrictModel):
    """The narrative of one ISO week (in the site's time zone) on one platform."""

    week: str  # "2026-W03"
    platform: LabelId  # a platform label id of the taxonomy: "rocm"
    # The narrative in each language of the site when it was written (3-5 sentences each).
    texts: dict[LanguageCode, NarrativeText] = Field(min_length=1)
    # The commits it was written from (short shas), in the order the model was given them:
    # high importance first, then medium, then low.
    commits: tuple[ShortSha, ...] = Field(min_length=1, max_length=MAX_NARRATIVE_COMMITS)
    provenance: Provenance  # analyzer "llm:<model>", when, the tokens it cost; always status ok

    @field_validator("week")
    @classmethod
    def _iso_week(cls, value: str) -> str:
        problem = week_id_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("texts", mode="before")
    @classmethod
    def _without_control_characters(cls, value: object) -> object:
        if isinstance(value, dict):
            return {key: clean_text(text) if isinstance(text, str) else text for key, text in value.items()}
        return value

    @model_validator(mode="after")
    def _written(self) -> Self:
        if self.provenance.status is not AnalysisStatus.OK:
            raise ValueError("a narrative is stored only when it was written: its provenance status must be 'ok'")
        return self

    @property
    def key(self) -> tuple[str, str]:
        """(week, platform): one narrative each."""
        return (self.week, self.platform)

    def text(self, language: LanguageCode) -> str | None:
        """The narrative in ``language``, or None when it was not written in it."""
        return self.texts.get(language)
