"""No name of the code's own reaches a prompt (issue 45): SmolLM2-135M, shown the reply schema with
its class names ("LlmAnalysis", "LlmInsights") and docstrings, wrote them back as its summary."""

from __future__ import annotations

import re

import pytest

from commit_digest.analysis import llm_schema
from commit_digest.analysis.narration import narrative_schema
from commit_digest.analysis.prompt import reply_schema, system_prompt
from commit_digest.analysis.translation import translation_schema
from commit_digest.meaning.taxonomy import load_taxonomy

TAXONOMY = load_taxonomy()
# CamelCase words, the schema's own naming keywords, a module path of ours.
CODE_NAMES = re.compile(r"\b[A-Z][a-z]+[A-Z]\w*|\$defs|\$ref|\"title\"|models\.\w+")


@pytest.mark.parametrize(
    "schema",
    [
        reply_schema(TAXONOMY),
        reply_schema(TAXONOMY, ("zh", "en")),
        translation_schema(),
        narrative_schema(("zh", "en")),
    ],
    ids=["analysis", "two-language analysis", "translation", "narrative"],
)
def test_a_schema_as_sent_and_shown_names_nothing_of_the_code(schema: dict[str, object]) -> None:
    text = llm_schema.schema_text(schema)
    assert not CODE_NAMES.findall(text)
    assert '"additionalProperties":false' in text  # still the strict schema, inlined


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_system_prompt_names_no_class_of_ours(language: str) -> None:
    prompt = system_prompt(TAXONOMY, language, "vllm-project/vllm")
    assert not re.findall(r"\bLlm\w+|\$defs|ChangeType|Importance\b", prompt)
