"""What `narrate` and `brief` share: a site-wide pass an LLM writes (week narratives, day briefs),
run with the site's settings and the CLI's LLM options, refused without a key (the pages show what
they show without one), its summary and the client's suspect replies printed at the end."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from rich.console import Console

from commit_digest import environment, stopping
from commit_digest.commands.common import llm_overrides, open_store, print_lines, site_settings_from_args
from commit_digest.errors import InputError
from commit_digest.settings import DigestSettings
from commit_digest.store.analysis_store import AnalysisStore

if TYPE_CHECKING:
    from commit_digest.analysis.llm_client import LlmClient
    from commit_digest.analysis.pipeline import PassSummary

RequestT = TypeVar("RequestT")
# The pass: with a client, the site's settings, the store, the console and the request, its summary.
WrittenPass = Callable[["LlmClient", DigestSettings, AnalysisStore, Console, RequestT], "PassSummary"]


def run_written(
    args: argparse.Namespace, *, what: str, without: str, plan: Callable[[], RequestT], run: WrittenPass[RequestT]
) -> int:
    """Runs ``run`` on what ``plan`` makes of the flags (a week's or day's request) once it is sound
    and a key is set. ``what`` names the texts ("narratives"), ``without`` what the pages show instead.

    Exit status 0 when every text selected was stored (or there was nothing to write), 1 when some
    failed or were refused (nothing is stored for them; the next run asks again)."""
    settings = site_settings_from_args(args, llm=llm_overrides(args))
    stopping.set_grace(settings.stop_grace_seconds)
    request = plan()
    if not environment.value(environment.OPENAI_API_KEY):
        raise InputError(
            f"OPENAI_API_KEY is not set: {what} are written by an LLM (set it, and OPENAI_BASE_URL or "
            f"llm.base_url for a server other than api.openai.com); {without} without one"
        )
    console = Console(stderr=True)
    # The openai SDK takes a third of a second to import: only the commands that call it pay.
    from commit_digest.analysis.llm_client import LlmClient

    client = LlmClient(settings.llm)
    try:
        with open_store(settings) as store:
            summary = run(client, settings, store, console, request)
    finally:
        client.close()
    print_lines(console, [*summary.lines(), *client.suspect_lines()])
    return 0 if summary.all_ok else 1
