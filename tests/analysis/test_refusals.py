"""What a refusal names, from the words servers use; gateway faults and echoed request bodies
name nothing (they would otherwise move every later run to a weaker reply form for good)."""

from __future__ import annotations

import pytest

from commit_digest.analysis.llm_errors import LlmContextError, LlmFormRefusedError
from commit_digest.analysis.servers.refusals import refused_part

# llama-cpp-python 0.3.36's answer to json_schema, pydantic's words with the refused value echoed.
LLAMA_CPP_PYTHON = (
    "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n"
    "  Input should be 'text' or 'json_object' [type=literal_error, input_value='json_schema', input_type=str]"
)
# A validation error about something else, echoing the whole body (which holds response_format).
ECHOED_BODY = (
    "1 validation error\nmessages.0.content\n  Field required [type=missing, input_value={'model': 'm', "
    "'response_format': {'type': 'json_schema', 'json_schema': {'schema': {}}}}, input_type=dict]"
)


def test_the_form_refusal_of_llama_cpp_python_is_a_form_refusal() -> None:
    refusal = refused_part(500, LLAMA_CPP_PYTHON)
    assert isinstance(refusal, LlmFormRefusedError) and refusal.part == "response_format"


def test_an_echoed_request_body_names_nothing() -> None:
    assert refused_part(400, ECHOED_BODY) is None


@pytest.mark.parametrize("status", [502, 503, 504])
@pytest.mark.parametrize(
    "message",
    ["upstream: database schema mismatch", "backend overloaded: context window cache full", "response_format"],
)
def test_a_gateway_fault_is_a_fault_whatever_it_says(status: int, message: str) -> None:
    assert refused_part(status, message) is None


def test_a_context_refusal_still_says_the_window() -> None:
    refusal = refused_part(400, "This model's maximum context length is 4096 tokens. However, you requested 5000")
    assert isinstance(refusal, LlmContextError) and refusal.limit == 4096
