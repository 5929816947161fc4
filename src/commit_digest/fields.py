"""The checked values the models are made of: names, moments and capped texts.

A sha, a GitHub repository name, a label id, a moment a site can show and the lengths of the
texts an analysis holds, each as a pattern or a bound and the annotated type that checks it.
They are apart from ``models`` because more than the models check them: settings and ``--repo``
check repository names, the taxonomy and the LLM schema check label ids, the git source refuses
dates outside the same range, and releases and the site's summaries are made of the same fields.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, StringConstraints

from commit_digest import caps

SHA_PATTERN = r"^[0-9a-f]{40}$"
# GitHub's names: an owner is 1-39 letters, digits and hyphens, not starting with a hyphen (so
# never a dot: ``releases/<owner>.<name>.jsonl`` is unambiguous); a repository is 1-100 letters,
# digits, dots, hyphens and underscores, but not "." or "..". Paths are built from these names.
REPOSITORY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$"
_REPOSITORY_NAME = re.compile(REPOSITORY_PATTERN.removesuffix("$") + r"\Z")
LABEL_ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"

# The moments a site can show. A date is moved into the site's zone (UTC-12 to UTC+14), then to
# its week, month and year and their neighbours; datetime ends at years 1 and 9999, so the range
# keeps a year clear of each end (and git gives no date before 1970). The clone source refuses a
# time outside them.
EARLIEST_DATE = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_DATE = datetime(9998, 1, 1, tzinfo=UTC)


def _repository_name(value: str) -> str:
    if not _REPOSITORY_NAME.match(value):
        raise ValueError(
            f"{value!r} is not a GitHub repository name: owner/name, the owner of letters, digits and "
            "hyphens, the name of letters, digits and . _ -"
        )
    return value


def _shown_date(value: datetime) -> datetime:
    # Compared as instants: an aware comparison subtracts offsets without making a datetime.
    if not EARLIEST_DATE <= value <= LATEST_DATE:
        raise ValueError(
            f"{value.isoformat()} is outside the dates a site can show "
            f"({EARLIEST_DATE:%Y-%m-%d} to {LATEST_DATE:%Y-%m-%d} UTC)"
        )
    return value


Sha = Annotated[str, StringConstraints(pattern=SHA_PATTERN)]
# Checked wherever a name enters (records, settings, --repo, releases), so no path is ever built
# from an unchecked one.
RepositoryName = Annotated[str, AfterValidator(_repository_name)]
# A commit's or an analysis's moment, which pages and commands move into the site's time zone.
ShownDatetime = Annotated[AwareDatetime, AfterValidator(_shown_date)]
LabelId = Annotated[str, StringConstraints(pattern=LABEL_ID_PATTERN, max_length=caps.LABEL_ID)]
ShortText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=caps.STORED.short)]
Paragraph = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=caps.STORED.paragraph)]
Note = Annotated[str, StringConstraints(strip_whitespace=True, max_length=caps.STORED.note)]
Conclusion = Annotated[str, StringConstraints(strip_whitespace=True, max_length=caps.STORED.paragraph)]
