"""What a store's sample data is, kept beside it: the demo says so on every page it builds.

``commit-digest demo`` stores the note of the data set it loads (``data/sample-vllm.note.json``);
a store that never held a sample has none. The site reads it to say, in one line, that it shows
sample data and from when, and never to link to GitHub what the sample made up.
"""

from __future__ import annotations

import json
import logging
from datetime import date

from pydantic import Field, ValidationError

from commit_digest.errors import StoreError
from commit_digest.fields import RepositoryName, Sha
from commit_digest.models import StrictModel

logger = logging.getLogger("mkdocs.plugins.commit_digest.store")

SAMPLE_META = "sample"


class SampleNote(StrictModel):
    """A data set loaded for show: its repository, its days, and what of it is made up."""

    repository: RepositoryName
    first_day: date
    last_day: date
    commits: int = Field(ge=0)
    # Commits made up whole (title, author, time, PR number, sha): none of it names a real thing.
    invented: frozenset[Sha] = frozenset()
    # Real commits whose sha is not known: a stand-in that names no commit on GitHub.
    placeholder_shas: frozenset[Sha] = frozenset()
    # Release tags made up for the sample: they name no tag on GitHub.
    invented_tags: frozenset[str] = frozenset()
    # How many of the analyses stored for the site's language a model wrote (the rest are the
    # offline rules'): counted by ``demo`` after its offline pass, for the line every page shows.
    model_analyses: int = Field(default=0, ge=0)

    def links_commit(self, sha: str) -> bool:
        """Whether the commit's GitHub page is the real one."""
        return sha not in self.invented and sha not in self.placeholder_shas

    def links_tag(self, tag: str) -> bool:
        return tag not in self.invented_tags

    def links_pull_request(self, sha: str) -> bool:
        """Whether the commit's PR number names its real pull request."""
        return sha not in self.invented


def read_sample_note(value: object) -> SampleNote | None:
    """The note as the store keeps it (JSON text), or None: none, or one this version cannot read
    (said once; the site is then built as a real one, and ``demo`` writes it anew)."""
    if value is None:
        return None
    try:
        return SampleNote.model_validate_json(str(value))
    except ValidationError as error:
        logger.warning("commit-digest: the store's sample note is unreadable (%s); ignored", error.errors()[0]["msg"])
        return None


def note_text(note: SampleNote) -> str:
    """The note as the store keeps it: its shas sorted, so the same note is the same text."""
    data = note.model_dump(mode="json")
    data["invented"] = sorted(note.invented)
    data["placeholder_shas"] = sorted(note.placeholder_shas)
    data["invented_tags"] = sorted(note.invented_tags)
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def load_note_file(text: str, source: str) -> SampleNote:
    """A data set's note file, as shipped beside its records."""
    try:
        return SampleNote.model_validate_json(text)
    except ValidationError as error:
        raise StoreError(f"{source}: not a sample note: {error.errors()[0]['msg']}") from error
