"""text_hygiene: control characters out, line ends as \\n, everything else untouched."""

from __future__ import annotations

import pytest

from commit_digest.errors import InputError
from commit_digest.models import CommitRecord, FileChange
from commit_digest.store.hygiene import clean_record, clean_text
from tests.core.test_store import analysis
from tests.factories import make_commit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain text, 中文, ünïcode, emoji 🚀", "plain text, 中文, ünïcode, emoji 🚀"),
        ("tab\tand\nnewline kept", "tab\tand\nnewline kept"),
        ("nul\x00 bell\x07 escape\x1b[0m", "nul bell escape[0m"),
        ("windows\r\nline\r\nends", "windows\nline\nends"),
        ("old mac\rline ends\r", "old mac\nline ends\n"),
        ("\r\r\n", "\n\n"),
        ("vertical\x0b form\x0c unit\x1f", "vertical form unit"),
        ("del\x7f c1\x80\x85\x9b\x9f end", "del c1 end"),
        ("\xa0 nbsp and \u2028 separators stay", "\xa0 nbsp and \u2028 separators stay"),
    ],
)
def test_clean_text(text: str, expected: str) -> None:
    assert clean_text(text) == expected


def test_clean_text_returns_clean_text_itself() -> None:
    text = "nothing to do here\n"
    assert clean_text(text) is text


def test_a_clean_record_is_returned_as_is() -> None:
    record = CommitRecord(commit=make_commit(1, body="body\nwith\ttab"), analysis=analysis("offline"))
    assert clean_record(record) is record


def test_every_string_of_a_record_is_cleaned() -> None:
    good = analysis("offline")
    dirty_analysis = good.model_copy(update={"summary": ("summary\x00 text",), "conclusion": "do\x9bne"})
    change = FileChange(path="a\x1b.py", previous_path="b\x85.py", patch="+x\r\n")
    record = CommitRecord(commit=make_commit(2, files=(change,)), analysis=dirty_analysis)
    cleaned = clean_record(record)
    assert cleaned.analysis is not None
    assert cleaned.analysis.summary == ("summary text",) and cleaned.analysis.conclusion == "done"
    assert cleaned.commit.files[0].path == "a.py" and cleaned.commit.files[0].previous_path == "b.py"
    assert cleaned.commit.files[0].patch == "+x\n"
    assert cleaned.commit == record.commit.model_copy(update={"files": cleaned.commit.files})


def test_a_value_of_only_control_characters_that_must_not_be_empty_is_an_input_error() -> None:
    record = CommitRecord(commit=make_commit(3, files=(FileChange(path="\x00\x01"),)))
    with pytest.raises(InputError, match=r"@0{39}3: commit\.files\.0\.path: .* once its control characters"):
        clean_record(record)
