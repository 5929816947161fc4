"""A sample note the store cannot read is said once and ignored, and a note file that is not one
is an error naming the file: neither breaks a build nor loses a stored analysis."""

from __future__ import annotations

import logging

import pytest

from commit_digest.errors import StoreError
from commit_digest.store.sample_note import SampleNote, load_note_file, note_text, read_sample_note

NOTE = SampleNote(
    repository="vllm-project/vllm",
    first_day="2026-01-07",
    last_day="2026-01-09",
    commits=3,
    invented=frozenset({"b" * 40}),
    placeholder_shas=frozenset({"a" * 40}),
    invented_tags=frozenset({"v0.0.0"}),
)


def test_the_note_round_trips_as_the_same_text() -> None:
    assert read_sample_note(note_text(NOTE)) == NOTE
    assert note_text(read_sample_note(note_text(NOTE))) == note_text(NOTE)  # type: ignore[arg-type]
    assert not NOTE.links_commit("a" * 40) and not NOTE.links_commit("b" * 40) and NOTE.links_commit("c" * 40)
    assert NOTE.links_pull_request("a" * 40) and not NOTE.links_pull_request("b" * 40)
    assert not NOTE.links_tag("v0.0.0") and NOTE.links_tag("v0.14.0")


@pytest.mark.parametrize(
    "stored",
    ["not json", '{"repository": 3}', note_text(NOTE).replace('"commits":3', '"commits":-1'), "[]", ""],
    ids=["junk", "wrong-type", "negative", "array", "empty"],
)
def test_an_unreadable_note_in_the_store_is_said_once_and_ignored(
    stored: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="mkdocs.plugins.commit_digest"):
        assert read_sample_note(stored) is None
    warnings = [record.getMessage() for record in caplog.records]
    assert len(warnings) == 1 and "sample note is unreadable" in warnings[0] and "ignored" in warnings[0]


def test_no_note_is_no_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mkdocs.plugins.commit_digest"):
        assert read_sample_note(None) is None
    assert caplog.records == []


def test_a_note_file_that_is_not_one_names_the_file() -> None:
    with pytest.raises(StoreError, match=r"^data/x\.note\.json: not a sample note: "):
        load_note_file('{"repository": "vllm-project/vllm"}', "data/x.note.json")
