"""What in a request a server's refusal names: the context window, an output-limit field,
streaming, the reply form or the system message. Each is answered by asking differently (``session``), never by
asking the same again; any other refusal is a fault of the server or of the request's content.

The servers word it each their own way (OpenAI, vLLM, llama.cpp, Ollama, LM Studio): matched on
the words they use, not on their status codes alone (llama-cpp-python answers a form it does not
read with a 500).
"""

from __future__ import annotations

import re

from commit_digest.analysis.llm_errors import LlmContextError, LlmError, LlmFormRefusedError

# Statuses whose message can say what in the request the server refused (a 500 included: some
# servers answer a body they cannot parse with a 500). A gateway's 502-504 speaks of its upstream
# ("database schema mismatch"): a fault to retry, never a reason to ask in a weaker form for good.
_NOT_ABOUT_THE_REQUEST = frozenset({401, 403, 404, 408, 409, 429, 502, 503, 504})
# Pydantic's errors echo the value they refused, up to the whole request body: its words
# ("response_format" among the body's keys) say nothing of what was refused.
_ECHOED_INPUT = re.compile(r"input_value=[^\n]*")

_CONTEXT = re.compile(
    r"context length|context window|context size|maximum context|n_ctx|prompt is too long|too many (input )?tokens",
    re.IGNORECASE,
)
_CONTEXT_LIMIT = re.compile(
    r"(?:maximum context length is|context window of|context size \(|context length of|n_ctx\D{0,8})\s*(\d{3,})",
    re.IGNORECASE,
)
_CONTEXT_PROMPT = re.compile(
    r"(\d+) in the messages|has (\d+) input tokens|messages resulted in (\d+) tokens|requested tokens \((\d+)\)",
    re.IGNORECASE,
)
# An output limit over what the model writes, and the most it does (OpenAI: "This model supports at
# most 16384 completion tokens"; DeepSeek: "the valid range of max_tokens is [1, 8192]"; an
# Anthropic-style gateway: "max_tokens: 50000 > 8192, which is the maximum allowed").
_OUTPUT_LIMIT = re.compile(
    r"supports at most (\d+) completion tokens|valid range of max_(?:completion_)?tokens is \[\d+, ?(\d+)\]|"
    r"max_(?:completion_)?tokens\W{1,4}\d+ > (\d+), which is the maximum",
    re.IGNORECASE,
)
_TOKEN_FIELD = re.compile(
    r"['\"`]?(max_completion_tokens|max_tokens)['\"`]?[^.]{0,40}?(?:not supported|unsupported|unrecognized|"
    r"unknown|not permitted|extra)|(?:unsupported|unknown|unrecognized) (?:parameter|argument|field)\W{0,4}"
    r"(max_completion_tokens|max_tokens)",
    re.IGNORECASE,
)
# A server that cannot stream, or reads no stream_options (never "upstream").
_STREAM = re.compile(r"\bstream(?:_options|ing)?\b", re.IGNORECASE)
_FORM = re.compile(r"response_format|json_schema|\bschema\b|guided_json|structured_outputs", re.IGNORECASE)
_SYSTEM = re.compile(
    r"system (?:role|message|prompt)s? (?:is |are )?(?:not|un)|roles must alternate|role ['\"]?system['\"]? "
    r"(?:is )?(?:not|un)",
    re.IGNORECASE,
)


def refused_part(status: int, message: str) -> LlmError | None:
    """What in the request a refusal names: the context window, an output-limit field, the reply
    form or the system message (each answered by asking differently, never by asking again);
    None for any other refusal or fault."""
    if status in _NOT_ABOUT_THE_REQUEST or status < 400:
        return None
    message = _ECHOED_INPUT.sub("", message)
    if _CONTEXT.search(message):
        limit = _CONTEXT_LIMIT.search(message)
        prompt = _CONTEXT_PROMPT.search(message)
        prompt_tokens = int(next(group for group in prompt.groups() if group)) if prompt else None
        return LlmContextError(message, int(limit.group(1)) if limit else None, prompt_tokens)
    output = _OUTPUT_LIMIT.search(message)
    if output is not None:
        return LlmFormRefusedError(message, "output_limit", int(next(group for group in output.groups() if group)))
    field = _TOKEN_FIELD.search(message)
    if field is not None:
        return LlmFormRefusedError(message, field.group(1) or field.group(2))
    if status < 500 and _STREAM.search(message):  # a 5xx that speaks of streaming is a fault mid-stream
        return LlmFormRefusedError(message, "stream")
    if _FORM.search(message):
        return LlmFormRefusedError(message, "response_format")
    if _SYSTEM.search(message):
        return LlmFormRefusedError(message, "system")
    return None
