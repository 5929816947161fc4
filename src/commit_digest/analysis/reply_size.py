"""How many output tokens the longest valid reply can take: every text at its cap, every list at
its most items, in the language each text is written in. The output limit asked for is this,
unless ``llm.max_output_tokens`` is set: no valid reply is ever cut off, and what stops a reply
that goes on and on is the loop watch and the caps (``reply_watch``, the schema), not a flat
number. Pure: a strict JSON schema (with its caps, from the SDK's converter) in, a count out.

Counted as ``diff_budget.estimate_tokens`` counts (a token per Han character, four ASCII
characters a token): above what tokenizers make of such text, so the limit is never short.
"""

from __future__ import annotations

from typing import Any

from commit_digest.analysis.diff_budget import estimate_tokens

# A JSON text's quotes, separators and escapes around each value, in characters (generous).
_PUNCTUATION = 4
# Characters a text at its cap is counted as, per language: Chinese is written in Han characters
# (a token each); any other language of ours in Latin letters.
_SAMPLE = {"zh": "字", "en": "a"}


def longest_reply_tokens(schema: dict[str, Any], language: str) -> int:
    """Output tokens of the longest reply ``schema`` allows, its texts written in ``language``
    (a two-language reply's wordings each in the language they are keyed by)."""
    return _longest(schema, schema.get("$defs", {}), language)


def _longest(node: dict[str, Any], definitions: dict[str, Any], language: str) -> int:
    if "$ref" in node:
        return _longest(definitions[node["$ref"].rsplit("/", 1)[1]], definitions, language)
    if "anyOf" in node:
        return max(_longest(part, definitions, language) for part in node["anyOf"])
    if "enum" in node:
        return max(estimate_tokens(str(value)) for value in node["enum"]) + 1
    kind = node.get("type")
    if kind == "object":
        return (
            sum(
                estimate_tokens(name) + 1 + _longest(value, definitions, name if name in _SAMPLE else language)
                for name, value in node.get("properties", {}).items()
            )
            + 1
        )
    if kind == "array":
        return node.get("maxItems", 1) * (_longest(node["items"], definitions, language) + 1) + 1
    if kind == "string":
        return estimate_tokens(_SAMPLE.get(language, "a") * node.get("maxLength", 0)) + _PUNCTUATION
    return 2  # a number, a boolean, null
