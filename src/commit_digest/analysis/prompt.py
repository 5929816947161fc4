"""The prompt: a static system message, then the commit as delimited, untrusted data.

The system message depends only on the prompt version, the schema, the taxonomy and the
output language (or the two languages of a two-language site, asked for in one request), so it
is byte-identical for every commit and providers can cache it. The commit goes into the user
message between marker lines carrying a random boundary the commit's author cannot know, so a
message cannot fake the end of the data.
Templates live in ``prompts/*.j2`` and render with StrictUndefined: a missing value is an
error, never an empty hole in the prompt.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jinja2

from commit_digest.analysis import llm_schema
from commit_digest.analysis.diff_budget import FittedDiff, estimate_tokens, fit_diff
from commit_digest.analysis.llm_client import strict_schema_of
from commit_digest.meaning.taxonomy import Taxonomy, classify
from commit_digest.models import LANGUAGE_CODES, ChangeType, Commit, LanguageCode
from commit_digest.words import load_words

# Bump when a template or the schema changes what is asked: analyses made with another version are
# redone (paid again). Not for a change of wording alone (the schema shown without the code's class
# names), which leaves every stored analysis what it was.
# A two-language request has the same version: its analysis says what a one-language one says,
# so a site that adds or drops a language keeps every analysis (`translate` fills the gaps).
PROMPT_VERSION = "llm-1"
# A marker only the system message contains: a reply holding it has echoed the instructions.
PROMPT_CANARY = "CD-CANARY-5b1e0c7d93"
MESSAGE_CHAR_CAP = 8_000
PR_DESCRIPTION_CHAR_CAP = 8_000

# The analyzer's words (the offline sentences and what the prompts call each language).
_WORDS = resources.files("commit_digest.analysis").joinpath("words")
_CHANGE_TYPE_MEANINGS: dict[ChangeType, str] = {
    ChangeType.FEATURE: "new capability, model, option or API",
    ChangeType.BUGFIX: "fixes wrong behaviour, a crash or an accuracy problem",
    ChangeType.PERFORMANCE: "makes something faster or use less memory",
    ChangeType.REFACTOR: "restructures code without changing behaviour",
    ChangeType.DOCS: "documentation only",
    ChangeType.TEST: "tests only",
    ChangeType.CI_BUILD: "CI, build, packaging or Docker",
    ChangeType.CONFIG: "defaults or configuration",
    ChangeType.DEPENDENCY: "bumps or pins a dependency",
    ChangeType.DEPRECATION: "deprecates or removes a feature",
    ChangeType.REVERT: "reverts an earlier commit",
    ChangeType.OTHER: "none of the above",
}

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("commit_digest.analysis", "prompts"),
    undefined=jinja2.StrictUndefined,
    autoescape=False,  # plain text for a model, not HTML; nothing here reaches a page
    keep_trailing_newline=False,
)


@dataclass(frozen=True)
class Prompt:
    system: str
    user: str
    diff: FittedDiff
    boundary: str

    @property
    def messages(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]

    @property
    def estimated_tokens(self) -> int:
        return estimate_tokens(self.system) + estimate_tokens(self.user)


def new_boundary() -> str:
    return secrets.token_hex(12)


def render(template: str, **values: Any) -> str:
    """One of ``prompts/*.j2`` with ``values`` (a missing one is an error)."""
    return _ENVIRONMENT.get_template(template).render(**values)


@cache
def _strict_schema(languages: tuple[LanguageCode, ...]) -> dict[str, Any]:
    # The SDK's own converter makes the schema strict (all required, no extra properties).
    return strict_schema_of(llm_schema.reply_model(languages) if languages else llm_schema.LlmAnalysis)


def strict_reply_schema(languages: Sequence[LanguageCode]) -> dict[str, Any]:
    """The reply's strict schema with its caps (``reply_schema`` is what is sent)."""
    return _strict_schema(tuple(languages) if len(languages) == 2 else ())


def reply_schema(taxonomy: Taxonomy, languages: Sequence[LanguageCode] = ()) -> dict[str, Any]:
    """The reply's schema: one wording (no or one language given), or one per language of two."""
    return llm_schema.response_schema(_strict_schema(tuple(languages)), taxonomy)


def system_prompt(
    taxonomy: Taxonomy, language: str, repository: str, *, second_language: LanguageCode | None = None
) -> str:
    """The static instructions; with ``second_language`` they ask for the worded fields in
    ``language`` and in ``second_language``, saying the same thing."""
    labels = [
        {
            "id": rule.id,
            "name": rule.name.en if rule.name.en == rule.name.zh else f"{rule.name.en} / {rule.name.zh}",
        }
        for rule in (*taxonomy.platforms, *taxonomy.subsystems)
    ]
    return _ENVIRONMENT.get_template("system.j2").render(
        repository_kind=repository,
        canary=PROMPT_CANARY,
        language=language,
        language_name=prompt_language_name(language),
        second_language=second_language,
        second_language_name=prompt_language_name(second_language) if second_language else None,
        paragraph_cap=llm_schema.PARAGRAPH_CAP,
        short_cap=llm_schema.SHORT_CAP,
        note_cap=llm_schema.NOTE_CAP,
        max_summary_items=llm_schema.MAX_SUMMARY_ITEMS,
        max_impact_items=llm_schema.MAX_IMPACT_ITEMS,
        max_list_items=llm_schema.MAX_LIST_ITEMS,
        max_labels=llm_schema.MAX_LABELS,
        change_types=[value.value for value in ChangeType],
        change_type_meanings=[(value.value, meaning) for value, meaning in _CHANGE_TYPE_MEANINGS.items()],
        platform_ids=list(taxonomy.platform_ids),
        subsystem_ids=list(taxonomy.subsystem_ids),
        labels=labels,
        schema=llm_schema.schema_text(
            reply_schema(taxonomy, (language, second_language) if second_language else ())  # type: ignore[arg-type]
        ),
    )


def _clip(text: str, cap: int) -> tuple[str, bool]:
    text = text.strip()
    if len(text) <= cap:
        return text, False
    return text[:cap] + "\n[… shortened]", True


def commit_prompt(
    commit: Commit,
    *,
    system: str,
    taxonomy: Taxonomy,
    diff_budget: int,
    boundary_factory: Callable[[], str] = new_boundary,
) -> Prompt:
    message = commit.body.strip()
    if message == commit.title.strip():
        message = ""
    message, _ = _clip(message, MESSAGE_CHAR_CAP)
    description = commit.pull_request.description if commit.pull_request else ""
    description, description_clipped = _clip(description, PR_DESCRIPTION_CHAR_CAP)
    diff = fit_diff(commit.files, diff_budget)
    rules = classify(commit.title, commit.body, [change.path for change in commit.files], taxonomy)
    everything = "\n".join(
        [commit.title, commit.body, description, *(change.patch or "" for change in commit.files)]
    )
    boundary = boundary_factory()
    while boundary in everything:  # astronomically unlikely; a guessed boundary must still not close the data
        boundary = new_boundary()
    user = _ENVIRONMENT.get_template("commit.j2").render(
        boundary=boundary,
        commit=commit,
        pr_labels=list(commit.pull_request.labels) if commit.pull_request else [],
        file_count=len(commit.files),
        additions=commit.additions,
        deletions=commit.deletions,
        rule_labels=[label.id for label in (*rules.platforms, *rules.subsystems)],
        message=message,
        pr_description=description,
        pr_description_clipped=description_clipped,
        diff=diff,
        clipped_count=sum(1 for file in diff.included if file.clipped_lines > 0),
    )
    return Prompt(system=system, user=user, diff=diff, boundary=boundary)


def prompt_language_name(language: str) -> str:
    """What the prompts call ``language`` when they ask for text in it (from ``words/<language>.yml``)."""
    return load_words(_WORDS, LANGUAGE_CODES)[language]["prompt_language_name"]
