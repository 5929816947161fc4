"""PR-template boilerplate goes, what the author wrote stays: vLLM's and vllm-ascend's real
templates (.github/PULL_REQUEST_TEMPLATE.md), as left unfilled and as filled in."""

# The PR templates are quoted verbatim, long lines and all.
# ruff: noqa: E501

from __future__ import annotations

import time

import pytest

from commit_digest.meaning.pr_template import TESTING_HEADINGS, TemplateSection, strip_template, template_sections

# vLLM's template since 2025.
VLLM_TEMPLATE = """<!-- markdownlint-disable -->
PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) HAVE BEEN CONSIDERED.

## Purpose

## Test Plan

## Test Result

---
<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [ ] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".
- [ ] The test plan, such as providing test command.
- [ ] The test results, such as pasting the results comparison before and after, or e2e results
- [ ] (Optional) The necessary documentation update, such as updating `supported_models.md` and `examples` for a new model.
- [ ] (Optional) Release notes update. If your change is user facing, please update the release notes draft in the [Google Doc](https://docs.google.com/document/d/1YyVqrgX4gHTtrstbq8oWUImOyPCKSGnJ7xtTpmXzlRs/edit?tab=t.0).
</details>

**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing>** (anything written below this line will be removed by GitHub Actions)
"""

# vLLM's earlier template.
VLLM_OLD_TEMPLATE = """FILL IN THE PR DESCRIPTION HERE

FIX #xxxx (*link existing issues this PR will resolve*)

**BEFORE SUBMITTING, PLEASE READ https://docs.vllm.ai/en/latest/contributing/overview.html **
"""

VLLM_ASCEND_TEMPLATE = """<!--  Thanks for sending a pull request!

BEFORE SUBMITTING, PLEASE READ https://docs.vllm.ai/en/latest/contributing/overview.html

-->
### What this PR does / why we need it? (必填)
<!--
- Please clarify what changes you are proposing. The purpose of this section is to outline the changes and how this PR fixes the issue.
If possible, please consider writing useful notes for better and faster reviews in your PR.

- Please clarify why the changes are needed. For instance, the use case and bug description.

- Fixes #
-->

### Does this PR introduce _any_ user-facing change? (必填)
<!--
Note that it means *any* user-facing change including all aspects such as API, interface or other behavior changes.
Documentation-only updates are not considered user-facing changes.
-->

### How was this patch tested? (必填)
<!--
CI passed with new added/existing test.
If it was tested in a way different from regular unit tests, please clarify how you tested step by step, ideally copy and paste-able, so that other reviewers can test and check, and descendants can verify in the future.
If tests were not added, please describe why they were not added and/or why it was difficult to add.
-->
"""

VLLM_FILLED = """<!-- markdownlint-disable -->
PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) HAVE BEEN CONSIDERED.

## Purpose
Fix the crash of `fused_moe` on gfx950 when `num_experts > 256`.

FIX #31234 (*link existing issues this PR will resolve*)

## Test Plan
```bash
pytest tests/kernels/moe -k gfx950
# - [ ] a checklist inside code stays
<!-- and so does a comment -->
```

## Test Result
All 48 tests pass.

## (Optional) Documentation Update

---
<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [x] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".
- [x] The test plan, such as providing test command.
</details>

**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing>** (anything written below this line will be removed by GitHub Actions)

Signed-off-by: Dev One <dev@example.com>
Co-authored-by: Dev Two <two@example.com>
"""

VLLM_ASCEND_FILLED = """<!--  Thanks for sending a pull request!

BEFORE SUBMITTING, PLEASE READ https://docs.vllm.ai/en/latest/contributing/overview.html

-->
### What this PR does / why we need it?
<!--
- Please clarify what changes you are proposing.
- Fixes #
-->
Add the MLA prefill kernel for Ascend 910B.

### Does this PR introduce _any_ user-facing change?
<!--
Note that it means *any* user-facing change.
-->

### How was this patch tested?
<!--
CI passed with new added/existing test.
-->
CI passed.

- vLLM version: v0.11.0
- vLLM main: https://github.com/vllm-project/vllm/commit/83d80a83f89f4546008c06260568ebd1a31f6d88

Signed-off-by: Ascend Dev <dev@example.com>
"""


@pytest.mark.parametrize("template", [VLLM_TEMPLATE, VLLM_OLD_TEMPLATE, VLLM_ASCEND_TEMPLATE])
def test_an_unfilled_template_leaves_nothing(template: str) -> None:
    assert strip_template(template) == ""
    assert strip_template(template.replace("\n", "\r\n")) == ""


def test_a_filled_vllm_template_keeps_what_the_author_wrote() -> None:
    assert strip_template(VLLM_FILLED) == (
        "Fix the crash of `fused_moe` on gfx950 when `num_experts > 256`.\n"
        "\n"
        "FIX #31234\n"
        "\n"
        "```bash\n"
        "pytest tests/kernels/moe -k gfx950\n"
        "# - [ ] a checklist inside code stays\n"
        "<!-- and so does a comment -->\n"
        "```\n"
        "\n"
        "All 48 tests pass."
    )


def test_a_filled_vllm_ascend_template_keeps_what_the_author_wrote() -> None:
    assert strip_template(VLLM_ASCEND_FILLED) == (
        "Add the MLA prefill kernel for Ascend 910B.\n"
        "\n"
        "CI passed.\n"
        "\n"
        "- vLLM version: v0.11.0\n"
        "- vLLM main: https://github.com/vllm-project/vllm/commit/83d80a83f89f4546008c06260568ebd1a31f6d88"
    )


@pytest.mark.parametrize(
    "heading",
    [
        "### What this PR does / why we need it?",
        "**What this PR does / why we need it?**",
        "What this PR does / why we need it?",
        "### What this PR does / why we need it? (必填)",
        "**Does this PR introduce _any_ user-facing change?**",
        "### How was this patch tested?",
        "## Purpose",
        "## Test Plan:",
        "## (Optional) Documentation Update",
        "## Essential Elements of an Effective PR Description Checklist",
    ],
)
def test_template_headings_go_in_every_spelling(heading: str) -> None:
    assert strip_template(f"{heading}\nThe real text.") == "The real text."


def test_trailers_alone_leave_nothing() -> None:
    body = (
        "Signed-off-by: Jinzhen Lin <jinzhen.ljz@antgroup.com>\n"
        "Co-authored-by: Michael Goin <mgoin64@gmail.com>\n"
        "co-authored-by: gemini-code-assist[bot] <176961590+gemini-code-assist[bot]@users.noreply.github.com>"
    )
    assert strip_template(body) == ""


def test_the_authors_own_headings_stay_unless_empty() -> None:
    text = "## Design\nA new cache.\n\n## Notes\n\n## Benchmarks\n### Throughput\n+12%\n\n## Later\n### Empty too\n"
    assert strip_template(text) == "## Design\nA new cache.\n\n## Benchmarks\n### Throughput\n+12%"


def test_details_blocks_and_checklists_go_whole() -> None:
    text = (
        "Speeds up decode.\n"
        "<details>\n<summary>Logs</summary>\n\n```\nlong log\n```\n</details>\n"
        "- [ ] follow-up\n"
        "- [x] done\n"
        "- a plain item stays"
    )
    assert strip_template(text) == "Speeds up decode.\n- a plain item stays"


def test_details_named_in_prose_does_not_hide_the_rest() -> None:
    text = "The page now uses a `<details>` element.\n\nMore text."
    assert strip_template(text) == text


def test_comments_go_inline_and_across_lines_and_an_unclosed_one_hides_the_rest() -> None:
    assert strip_template("Keep <!-- hidden --> this.\n<!--\nhidden\n-->\nAnd this.") == "Keep  this.\nAnd this."
    assert strip_template("Shown.\n\n<!-- never closed\nhidden") == "Shown."


def test_a_real_issue_reference_stays() -> None:
    assert strip_template("FIX #xxxx (*link existing issues this PR will resolve*)") == ""
    assert strip_template("FIX #1234 (*link existing issues this PR will resolve*)") == "FIX #1234"
    assert strip_template("Fixes #99") == "Fixes #99"


def test_plain_text_is_left_as_it_is() -> None:
    text = "Use `torch.compile` for the sampler.\n\n1. first\n2. second\n\n> quoted"
    assert strip_template(text) == text


def test_hostile_input_is_linear() -> None:
    started = time.perf_counter()
    for text in ("#\n" * 100_000, "<!--" * 50_000, "<details>\n" * 50_000, "```\n" * 50_000, "## a\n\n" * 50_000):
        strip_template(text)
    assert time.perf_counter() - started < 10


def test_sections_tell_the_purpose_from_the_test_notes() -> None:
    assert template_sections(VLLM_FILLED) == [
        TemplateSection("purpose", "Fix the crash of `fused_moe` on gfx950 when `num_experts > 256`.\n\nFIX #31234"),
        TemplateSection(
            "test plan",
            "```bash\npytest tests/kernels/moe -k gfx950\n# - [ ] a checklist inside code stays\n"
            "<!-- and so does a comment -->\n```",
        ),
        TemplateSection("test result", "All 48 tests pass."),
    ]
    assert [section.heading for section in template_sections(VLLM_ASCEND_FILLED)] == [
        "what this pr does / why we need it",
        "how was this patch tested",
    ]
    assert {section.heading for section in template_sections(VLLM_FILLED)} & TESTING_HEADINGS == {
        "test plan",
        "test result",
    }


@pytest.mark.parametrize("template", [VLLM_TEMPLATE, VLLM_OLD_TEMPLATE, VLLM_ASCEND_TEMPLATE])
def test_an_unfilled_template_has_no_sections(template: str) -> None:
    assert template_sections(template) == []


def test_text_before_any_heading_and_headings_in_code_stay_in_their_section() -> None:
    text = "Plain words first.\n\n### How was this patch tested?\n```\n## Purpose\n```\n"
    assert template_sections(text) == [
        TemplateSection(None, "Plain words first."),
        TemplateSection("how was this patch tested", "```\n## Purpose\n```"),
    ]
