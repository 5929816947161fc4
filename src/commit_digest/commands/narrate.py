"""`narrate`: a short LLM narrative of each completed week per platform, in every language of the site,
stored the moment it arrives; a second run sends nothing, a stored narrative is rewritten only with
--rewrite.

Exit status 0 when every selected narrative was stored (or there was nothing to write), 1 when some
failed or were refused (nothing is stored for them; the next run asks again), 2 on errors.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from commit_digest.commands.common import (
    add_common_options,
    add_llm_options,
)
from commit_digest.commands.written import run_written
from commit_digest.errors import InputError

if TYPE_CHECKING:
    from rich.console import Console

    from commit_digest.analysis.llm_client import LlmClient
    from commit_digest.analysis.pipeline import PassSummary
    from commit_digest.plans.weeks import WeekRequest
    from commit_digest.settings import DigestSettings
    from commit_digest.store.analysis_store import AnalysisStore


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "narrate",
        help="write a short narrative of each week per platform with an LLM (OPENAI_API_KEY, OPENAI_BASE_URL)",
        description="Writes, for each completed ISO week (in the site's time zone) and each platform with at "
        "least 3 analysed commits that week, a narrative of a few sentences in every language of the site: "
        "one request each, stored as it arrives. By default the last 8 completed weeks; --since/--until "
        "take the weeks of those days. A week that has a narrative keeps it unless --rewrite is given.",
    )
    add_common_options(parser)
    add_llm_options(parser, what="write", unit="narratives")
    parser.add_argument(
        "--week",
        action="append",
        default=None,
        metavar="YYYY-Www",
        help="this completed ISO week only, e.g. 2026-W03 (repeatable)",
    )
    parser.add_argument(
        "--weeks",
        type=int,
        default=None,
        metavar="N",
        help="the last N completed weeks (default 8) when no week or day is given",
    )
    parser.add_argument("--rewrite", action="store_true", help="replace the stored narratives of the weeks asked for")
    parser.set_defaults(handler=run_narrate)


def week_request(args: argparse.Namespace) -> WeekRequest:
    from commit_digest.plans.weeks import DEFAULT_WEEKS, WeekRequest
    from commit_digest.site.model.calendar import IsoWeek

    if args.week and (args.since is not None or args.until is not None or args.weeks is not None):
        raise InputError("--week names the weeks: it does not go with --since, --until or --weeks")
    if args.weeks is not None and (args.since is not None or args.until is not None):
        raise InputError("--weeks counts back from the last completed week: it does not go with --since or --until")
    if args.weeks is not None and args.weeks < 1:
        raise InputError("--weeks must be at least 1")
    weeks = []
    for text in args.week or ():
        try:
            weeks.append(IsoWeek.parse(text))
        except ValueError as error:
            raise InputError(f"--week: {error}") from None
    return WeekRequest(
        weeks=tuple(weeks),
        since=args.since,
        until=args.until,
        count=args.weeks if args.weeks is not None else DEFAULT_WEEKS,
    )


def run_narrate(args: argparse.Namespace) -> int:
    def run(
        client: LlmClient, settings: DigestSettings, store: AnalysisStore, console: Console, request: WeekRequest
    ) -> PassSummary:
        from commit_digest.analysis.narration import NarrativeWriter
        from commit_digest.plans.weeks import narrate_site

        writer = NarrativeWriter(client, settings)
        return narrate_site(
            store, writer, settings, request, rewrite=args.rewrite, limit=args.limit, console=console
        )

    return run_written(
        args,
        what="narratives",
        without="the week pages show the analyses",
        plan=lambda: week_request(args),
        run=run,
    )
