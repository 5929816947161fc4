"""The server families: what each kind of OpenAI-compatible server reads, and what it says about
itself. One adapter per family behind one interface (as simonw/llm keeps a plugin per model family
behind its ``Model``); the session picks one from what the server answers and never branches on
a family's name. Everything here is pure: the probes' answers come in as data.

What each family reads was taken from its own source: vLLM's ``entrypoints/openai/protocol.py``
(``max_tokens`` and ``max_completion_tokens``, ``response_format`` json_schema, its
structured-output field, ``max_model_len`` in ``/v1/models``); llama.cpp's
``tools/server/README.md`` (``/props`` ``n_ctx``, ``response_format`` with ``schema``);
llama-cpp-python 0.3.36's ``server/types.py`` (``max_tokens`` only, ``response_format`` of type
``text`` or ``json_object`` with ``schema``; ``/v1/models`` says ``owned_by: me``); Ollama's
``/api/show`` (``model_info``'s ``*.context_length``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

BOTH_TOKEN_FIELDS: Final = ("max_completion_tokens", "max_tokens")
# The windows a model has: the floor llm.context_tokens accepts (a prompt's instructions alone
# take most of it) up to far past any model's. A server reporting one outside is mistaken.
MIN_CONTEXT_TOKENS: Final = 1024
MAX_CONTEXT_TOKENS: Final = 100_000_000
# Past this, a reported slot count is no guide to how many requests to send at once.
MAX_SLOTS: Final = 1024


def plausible_context(tokens: int) -> bool:
    return MIN_CONTEXT_TOKENS <= tokens <= MAX_CONTEXT_TOKENS


@dataclass(frozen=True)
class ServerFacts:
    """What a server said about itself: its ``/v1/models`` listing and, where the family has one,
    its ``/props`` (llama.cpp) or ``/api/show`` (Ollama) answer; None where it said nothing."""

    models: Mapping[str, Any] | None = None
    props: Mapping[str, Any] | None = None
    show: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ServerFamily:
    """One family's quirks as data."""

    name: str
    # The output-limit fields it reads (both where it is not sure: a server ignores the other).
    token_fields: tuple[str, ...] = BOTH_TOKEN_FIELDS
    # The forms to try, in order, after json_schema (always first).
    forms: tuple[str, ...] = ("json_schema", "json_object", "text")
    # json_object carries the schema beside its type (False: a server that refuses unknown fields).
    schema_in_json_object: bool = True
    # The extra probe that tells the context window: "props" (llama.cpp), "show" (Ollama) or "".
    context_probe: str = ""

    def context_tokens(self, facts: ServerFacts, model: str) -> int | None:
        """The context window the server reports for ``model``, else None."""
        return (
            _from_props(facts.props)
            or _from_show(facts.show)
            or _from_models(facts.models, model, "max_model_len")
            or _from_models(facts.models, model, "n_ctx")
        )


OPENAI: Final = ServerFamily(
    "openai",
    token_fields=("max_completion_tokens",),
    forms=("json_schema", "json_object", "text"),
    schema_in_json_object=False,
)
VLLM: Final = ServerFamily("vllm", forms=("json_schema", "structured_outputs", "json_object", "text"))
LLAMA_SERVER: Final = ServerFamily("llama.cpp", context_probe="props")
LLAMA_CPP_PYTHON: Final = ServerFamily("llama-cpp-python")
OLLAMA: Final = ServerFamily("ollama", context_probe="show")
# SGLang, LM Studio, gateways: every form, both token fields.
GENERIC: Final = ServerFamily("generic", forms=("json_schema", "json_object", "structured_outputs", "text"))
FAMILIES: Final = {family.name: family for family in (OPENAI, VLLM, LLAMA_SERVER, LLAMA_CPP_PYTHON, OLLAMA, GENERIC)}

_OWNERS: Final = {"vllm": VLLM, "llamacpp": LLAMA_SERVER, "me": LLAMA_CPP_PYTHON, "library": OLLAMA, "ollama": OLLAMA}


def family_of(base_url: str, models: Mapping[str, Any] | None) -> ServerFamily:
    """The family of the server at ``base_url`` from its ``/v1/models`` answer."""
    host = urlsplit(base_url).hostname or ""
    if host == "api.openai.com" or host.endswith(".openai.azure.com"):
        return OPENAI
    for entry in _entries(models):
        owner = str(entry.get("owned_by", "")).lower()
        if owner in _OWNERS:
            return _OWNERS[owner]
        if "max_model_len" in entry:
            return VLLM
    return GENERIC


def server_root(base_url: str) -> str:
    """The server's own root (``/props``, ``/api/show`` live there, not under ``/v1``)."""
    trimmed = base_url.rstrip("/")
    return trimmed[: -len("/v1")] if trimmed.endswith("/v1") else trimmed


def _entries(models: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    data = models.get("data") if isinstance(models, Mapping) else None
    return [entry for entry in data if isinstance(entry, Mapping)] if isinstance(data, list) else []


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def server_slots(facts: ServerFacts) -> int | None:
    """How many requests the server serves at once, where it says (llama.cpp's ``/props``
    ``total_slots``); None where it does not, or says a number no server has."""
    slots = _positive(facts.props.get("total_slots")) if isinstance(facts.props, Mapping) else None
    return slots if slots is not None and slots <= MAX_SLOTS else None


def _from_models(models: Mapping[str, Any] | None, model: str, field: str) -> int | None:
    entries = _entries(models)
    # Another model's window says nothing of this one's (a gateway lists many); a lone listing is
    # the model served whatever it is called.
    chosen = [entry for entry in entries if entry.get("id") == model] or (entries if len(entries) == 1 else [])
    for entry in chosen:
        found = _positive(entry.get(field)) or _positive((entry.get("meta") or {}).get(field))
        if found:
            return found
    return None


def _from_props(props: Mapping[str, Any] | None) -> int | None:
    if not isinstance(props, Mapping):
        return None
    settings = props.get("default_generation_settings")
    return _positive(settings.get("n_ctx")) if isinstance(settings, Mapping) else _positive(props.get("n_ctx"))


def _from_show(show: Mapping[str, Any] | None) -> int | None:
    info = show.get("model_info") if isinstance(show, Mapping) else None
    if not isinstance(info, Mapping):
        return None
    for key, value in info.items():
        if str(key).endswith(".context_length") and _positive(value):
            return int(value)
    return None
