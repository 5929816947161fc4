"""What an LLM server was found to read (its reply form, whether it keeps system messages, which
output-limit field), one small meta row per base URL and model, so later runs do not probe again.

It opens the store only for the moment it reads or writes the row: the LLM client is built before
a command opens its store, and the row is read once per run and written once per negotiation.
"""

from __future__ import annotations

from pathlib import Path

from commit_digest.store.analysis_store import AnalysisStore

_PREFIX = "llm-server:"


def profile_key(base_url: str, model: str) -> str:
    return f"{_PREFIX}{base_url.rstrip('/')} {model}"


class StoredServerProfiles:
    """Server profiles as meta rows of the store at ``directory`` (a JSON object each)."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory

    def get(self, base_url: str, model: str) -> dict[str, object] | None:
        if not self._directory.exists():
            return None
        with AnalysisStore(self._directory) as store:
            value = store.get_meta(profile_key(base_url, model))
        return value if isinstance(value, dict) else None

    def put(self, base_url: str, model: str, profile: dict[str, object]) -> None:
        self._directory.mkdir(parents=True, exist_ok=True)
        with AnalysisStore(self._directory) as store:
            store.set_meta(profile_key(base_url, model), profile)
