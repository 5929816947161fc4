"""Errors of the LLM path. ``llm_client`` converts the openai SDK's errors into these once;
everything above it sees only these, with the API key scrubbed from every text."""

from __future__ import annotations

import re

from commit_digest.errors import CommitDigestError


class LlmError(CommitDigestError):
    """The LLM endpoint could not give an answer for a request."""


class LlmConfigError(LlmError):
    """The client cannot be built (no API key, bad base URL)."""


class LlmTimeoutError(LlmError):
    """No reply within the configured timeout: a failure for this commit, never a hang."""


class LlmUnavailableError(LlmError):
    """Rate limits, server errors or connection errors that outlasted every retry."""


class LlmRequestError(LlmError):
    """The endpoint rejected the request (4xx other than 408/409/429): retrying will not help."""


class LlmFormRefusedError(LlmRequestError):
    """The server refused the request's form (its ``response_format``, a system message, a token
    field): asking the same again will not help, asking in another form may. ``part`` names what
    was refused: "response_format", "system", "stream", "output_limit" or the token field."""

    def __init__(self, message: str, part: str, limit: int | None = None) -> None:
        super().__init__(message)
        self.part = part
        self.limit = limit  # part "output_limit": the most output tokens the model writes


class LlmContextError(LlmRequestError):
    """The prompt is over the server's context window; ``limit`` is the window and
    ``prompt_tokens`` the prompt's size where the server says them (in tokens), else None."""

    def __init__(self, message: str, limit: int | None, prompt_tokens: int | None = None) -> None:
        super().__init__(message)
        self.limit = limit
        self.prompt_tokens = prompt_tokens


class InvalidReplyError(LlmError):
    """The reply is not valid JSON, does not match the schema, or repeats the instructions."""


_BEARER = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+")
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}")


# Shorter values are no secret ("EMPTY", "x": what local servers are given), and replacing them
# would make every error text unreadable ("te[redacted]t").
MIN_SECRET_LENGTH = 8


def scrub(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` without any of ``secrets`` (those of 8 characters or more), bearer tokens or
    OpenAI-style keys."""
    for secret in secrets:
        if len(secret) >= MIN_SECRET_LENGTH:
            text = text.replace(secret, "[redacted]")
    text = _BEARER.sub(r"\1[redacted]", text)
    return _KEY_LIKE.sub("[redacted]", text)
