"""`translate`: every stored ok analysis (LLM or legacy) that lacks one of the site's languages gets
that wording from the LLM, stored at once; a second run sends nothing.

Exit status 0 when every selected translation was stored (or, for ``--batch submit``, sent),
1 when some failed or were refused (nothing is stored for them; the next run asks again),
2 on errors.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console

from commit_digest import stopping
from commit_digest.analysis.selection import Selection
from commit_digest.commands.common import (
    add_common_options,
    add_llm_options,
    llm_overrides,
    open_store,
    print_lines,
    settings_from_args,
)
from commit_digest.models import LANGUAGE_CODES, AnalysisStatus


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "translate",
        help="word stored analyses in the site's other languages with an LLM (OPENAI_API_KEY, OPENAI_BASE_URL)",
        description="Translates the wording of every stored ok analysis (LLM or legacy; the site words "
        "offline ones itself) that lacks one of the site's languages (languages in mkdocs.yml), one "
        "request per commit and language, and stores each translation as it arrives. A second run "
        "sends nothing.",
    )
    add_common_options(parser, repository=True)
    parser.add_argument(
        "--language",
        choices=LANGUAGE_CODES,
        default=None,
        help="translate into this language only (default: every language of the site)",
    )
    add_llm_options(parser, what="translate the analyses of")
    parser.add_argument(
        "--batch",
        choices=("submit", "collect"),
        default=None,
        help="use the Batch API: submit the translations, or collect finished batches",
    )
    parser.set_defaults(handler=run_translate)


def run_translate(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, llm=llm_overrides(args))
    stopping.set_grace(settings.stop_grace_seconds)
    languages = (args.language,) if args.language else settings.languages
    selection = Selection(
        zone=settings.zone, repository=settings.repository, since=args.since, until=args.until, limit=args.limit
    )
    console = Console(stderr=True)
    # The openai SDK takes a third of a second to import: only the commands that call it pay.
    from commit_digest.analysis import batches
    from commit_digest.analysis.llm_client import LlmClient
    from commit_digest.analysis.translate_pass import (
        TranslateTask,
        translate_all,
        translation_jobs,
        translations_in_open_batches,
    )
    from commit_digest.analysis.translation import Translator

    client = LlmClient(settings.llm)
    try:
        translator = Translator(client, settings)
        with open_store(settings) as store:
            if args.batch == "collect":
                report = batches.collect(store, TranslateTask(translator), client)
                print_lines(console, [*report.lines(), *client.suspect_lines()])
                return 0 if set(report.by_status) <= {AnalysisStatus.OK} else 1
            jobs = translation_jobs(
                store.records(settings.repository),
                languages,
                selection,
                exclude=translations_in_open_batches(store),
            )
            if args.batch == "submit":
                print_lines(console, batches.submit(store, TranslateTask(translator), client, jobs).lines())
                return 0
            summary = translate_all(store, translator, jobs, settings.llm, console=console)
    finally:
        client.close()
    print_lines(console, [*summary.lines(), *client.suspect_lines()])
    return 0 if summary.all_ok else 1

