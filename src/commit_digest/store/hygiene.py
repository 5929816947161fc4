"""Control characters out of every string of a record, once, where records enter the store.

Commit messages, PR descriptions and patches are written by anyone; a NUL, an escape sequence
or a stray carriage return in them would reach terminals (``show``), JSON Lines diffs and the
site. Removing them where a record is stored means nothing downstream has to think about it.
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from commit_digest.errors import InputError
from commit_digest.models import CommitRecord, first_problem

# C0 controls except \t and \n (\r is here: it becomes \n), DEL, and the C1 controls.
_UNWANTED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_REMOVED = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_LINE_END = re.compile(r"\r\n?")


def clean_text(text: str) -> str:
    """``text`` without control characters other than \\t and \\n, with \\r\\n and \\r as \\n."""
    if not _UNWANTED.search(text):
        return text
    return _REMOVED.sub("", _LINE_END.sub("\n", text))


def clean_record(record: CommitRecord) -> CommitRecord:
    """``record`` with every string cleaned; the same object when nothing needed it."""
    data = record.model_dump()
    cleaned = clean_strings(data)
    if cleaned is data:
        return record
    try:
        return CommitRecord.model_validate(cleaned)
    except ValidationError as error:
        # Only a value made of nothing but control characters can get here (an empty path).
        raise InputError(
            f"{record.commit.repository}@{record.commit.sha}: {first_problem(error)} "
            "once its control characters are removed"
        ) from error


def clean_strings(value: object) -> object:
    """``value`` (parsed JSON, a model's dump) with its strings cleaned, rebuilding only the containers
    that changed."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        items = {key: clean_strings(item) for key, item in value.items()}
        return items if any(items[key] is not value[key] for key in value) else value
    if isinstance(value, list | tuple):
        members = [clean_strings(item) for item in value]
        if all(new is old for new, old in zip(members, value, strict=True)):
            return value
        return members if isinstance(value, list) else tuple(members)
    return value
