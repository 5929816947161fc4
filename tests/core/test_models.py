from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from commit_digest.models import (
    Analysis,
    AnalysisStatus,
    ChangeType,
    Commit,
    CommitRecord,
    Importance,
    Provenance,
)
from tests.factories import make_commit

NOW = datetime(2026, 1, 8, 12, tzinfo=UTC)


def commit_fields(**changes: object) -> dict[str, object]:
    fields: dict[str, object] = {
        "repository": "vllm-project/vllm",
        "sha": "a" * 40,
        "author_name": "Ada",
        "authored_at": NOW,
        "committed_at": NOW,
        "title": "[Model] Add Grok-2 (#31847)",
    }
    fields.update(changes)
    return fields


def error_fields(error: ValidationError) -> set[str]:
    return {".".join(str(part) for part in issue["loc"]) for issue in error.errors()}


def test_a_bad_sha_is_an_error_naming_the_field() -> None:
    with pytest.raises(ValidationError) as caught:
        Commit(**commit_fields(sha="not-a-sha"))
    assert error_fields(caught.value) == {"sha"}


def test_a_naive_time_is_an_error_naming_the_field() -> None:
    with pytest.raises(ValidationError) as caught:
        Commit(**commit_fields(committed_at=datetime(2026, 1, 8, 12)))
    assert error_fields(caught.value) == {"committed_at"}
    assert "timezone" in str(caught.value)


def test_an_unknown_field_is_rejected() -> None:
    with pytest.raises(ValidationError) as caught:
        Commit(**commit_fields(colour="red"))
    assert error_fields(caught.value) == {"colour"}


def test_an_unknown_change_type_is_an_error_naming_the_field() -> None:
    with pytest.raises(ValidationError) as caught:
        Analysis.model_validate(
            {
                "change_type": "Bug修复",
                "importance": "high",
                "summary": ["x"],
                "provenance": {"analyzer": "offline", "created_at": NOW.isoformat()},
            }
        )
    assert error_fields(caught.value) == {"change_type"}


def test_pr_number_comes_from_the_title_and_sha_is_normalised() -> None:
    commit = Commit(**commit_fields(sha="A" * 40))
    assert commit.pr_number == 31847
    assert commit.sha == "a" * 40
    assert commit.pr_url == "https://github.com/vllm-project/vllm/pull/31847"
    assert commit.web_url == f"https://github.com/vllm-project/vllm/commit/{'a' * 40}"
    assert Commit(**commit_fields(title="Fix #12 in the middle")).pr_number is None


def test_an_ok_analysis_must_be_complete_and_a_failed_one_must_say_why() -> None:
    with pytest.raises(ValidationError, match="needs an importance"):
        Analysis(summary=("x",), provenance=Provenance(analyzer="offline", created_at=NOW))
    with pytest.raises(ValidationError, match="needs an error text"):
        Provenance(analyzer="llm:gpt-4o-mini", created_at=NOW, status=AnalysisStatus.FAILED)
    failed = Analysis(
        provenance=Provenance(analyzer="llm:m", created_at=NOW, status=AnalysisStatus.FAILED, error="HTTP 500")
    )
    assert not failed.ok and failed.importance is None


def test_a_record_round_trips_through_json() -> None:
    analysis = Analysis(
        change_type=ChangeType.FEATURE,
        importance=Importance.HIGH,
        summary=("新增 Grok-2 模型支持",),
        provenance=Provenance(analyzer="offline", created_at=NOW),
    )
    record = CommitRecord(commit=make_commit(1), analysis=analysis)
    assert CommitRecord.model_validate_json(record.model_dump_json()) == record


def test_day_follows_the_site_time_zone() -> None:
    from zoneinfo import ZoneInfo

    late = make_commit(1, when=datetime(2026, 1, 8, 23, 59, 59, tzinfo=UTC))
    assert str(late.day(ZoneInfo("UTC"))) == "2026-01-08"
    assert str(late.day(ZoneInfo("Asia/Shanghai"))) == "2026-01-09"
