"""The rehearsal's runner reads expressions as GitHub Actions does (what the rehearsal relies on)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.deploy.actions import Job, StepResult, _key_values, _with_status, evaluate, interpolate


def job(failed: bool = False) -> Job:
    made = Job(Path(), secrets={"SET": "s3cret"}, variables={}, github={"token": "t"}, environment={})
    made.steps["nightly"] = StepResult("Nightly run", "success", outputs={"status": "1"})
    if failed:
        made.results.append(StepResult("broken", "failure"))
    return made


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("vars.DEPLOY_TARGET != 'rclone'", True),  # an unset variable is ''
        ("vars.DEPLOY_TARGET == ''", True),
        ("secrets.UNSET == ''", True),
        ("success() && (steps.nightly.outputs.status == '0' || steps.nightly.outputs.status == '1')", True),
        ("always() && steps.nightly.outputs.status != ''", True),
        ("steps.missing.outputs.status != ''", False),
        ("'ROCLONE' == 'roclone'", True),  # strings compare case-insensitively
        ("!cancelled() && !(1 == 2)", True),
    ],
)
def test_conditions(condition: str, expected: bool) -> None:
    assert bool(evaluate(_with_status(condition), job())) is expected


def test_a_failed_step_skips_what_does_not_ask_for_always() -> None:
    failed = job(failed=True)
    assert evaluate(_with_status("vars.X == ''"), failed) is False
    assert evaluate(_with_status("always() && true"), failed) is True
    assert evaluate(_with_status("failure()"), failed) is True


def test_interpolation_gives_unset_secrets_as_empty_strings() -> None:
    assert interpolate("${{ secrets.SET }}|${{ secrets.UNSET }}|${{ vars.SITE_URL }}", job()) == "s3cret||"
    assert interpolate("${{ secrets.UNSET || 'fallback' }}", job()) == "fallback"


def test_github_output_in_both_forms() -> None:
    assert _key_values("status=0\nnotes<<EOF\na\nb=c\nEOF\n") == {"status": "0", "notes": "a\nb=c"}
