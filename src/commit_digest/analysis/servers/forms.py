"""The reply forms: the ways a chat request can ask for a reply in a JSON schema.

Servers read different ones: the OpenAI API, vLLM, SGLang, llama.cpp's ``llama-server``, Ollama
and LM Studio read ``response_format`` of type ``json_schema``; llama-cpp-python's server reads only
``json_object``, with the schema beside the type (as ``llama-server`` does too); vLLM also reads its
own structured-output field; any server reads plain text, with the schema stated in the prompt
(every prompt of this project states it). Each form shapes a request body; none sends anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Protocol

SCHEMA_NAME = "commit_analysis"


class ReplyForm(Protocol):
    """How a request asks for structured output; capabilities are attributes, not call-site ifs."""

    @property
    def name(self) -> str: ...

    @property
    def constrained(self) -> bool:
        """The server holds the reply to the schema (False: the JSON is read out of free text)."""
        ...

    def shape(self, body: dict[str, Any], schema: dict[str, Any], *, schema_attached: bool) -> None:
        """Adds the form's fields to ``body``; ``schema_attached`` False leaves the schema to the
        prompt where the form allows (a server that refuses unknown fields)."""
        ...


@dataclass(frozen=True)
class JsonSchemaForm:
    name: str = "json_schema"
    constrained: bool = True

    def shape(self, body: dict[str, Any], schema: dict[str, Any], *, schema_attached: bool) -> None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "schema": schema, "strict": True},
        }


@dataclass(frozen=True)
class JsonObjectForm:
    name: str = "json_object"
    constrained: bool = True

    def shape(self, body: dict[str, Any], schema: dict[str, Any], *, schema_attached: bool) -> None:
        # Without the schema a grammar-constrained server lets a small model answer {}.
        body["response_format"] = (
            {"type": "json_object", "schema": schema} if schema_attached else {"type": "json_object"}
        )


@dataclass(frozen=True)
class StructuredOutputsForm:
    """vLLM's own field: ``structured_outputs`` since 0.10.2, ``guided_json`` before (each version
    ignores the other's)."""

    name: str = "structured_outputs"
    constrained: bool = True

    def shape(self, body: dict[str, Any], schema: dict[str, Any], *, schema_attached: bool) -> None:
        body["structured_outputs"] = {"json": schema}
        body["guided_json"] = schema


@dataclass(frozen=True)
class TextForm:
    name: str = "text"
    constrained: bool = False

    def shape(self, body: dict[str, Any], schema: dict[str, Any], *, schema_attached: bool) -> None:
        """Nothing: the prompt states the schema."""


JSON_SCHEMA: Final = JsonSchemaForm()
JSON_OBJECT: Final = JsonObjectForm()
STRUCTURED_OUTPUTS: Final = StructuredOutputsForm()
TEXT: Final = TextForm()
FORMS: Final[dict[str, ReplyForm]] = {form.name: form for form in (JSON_SCHEMA, JSON_OBJECT, STRUCTURED_OUTPUTS, TEXT)}
