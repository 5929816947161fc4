"""`brief`: the day's brief per platform, written by an LLM in every language of the site: for each
completed day, the whole day's and each platform's with analysed commits, a few sentences each
citing the commits they rest on, stored the moment they arrive. A brief is asked again only when its
day's analyses change (or a language is missing, or --rewrite); a second run sends nothing.

Exit status 0 when every selected brief was stored (or there was nothing to write), 1 when some
failed or were refused (nothing is stored for them; the pages keep the rule-based morning read and
the next run asks again), 2 on errors.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from commit_digest.commands.common import (
    add_common_options,
    add_llm_options,
    day_argument,
)
from commit_digest.commands.written import run_written
from commit_digest.errors import InputError

if TYPE_CHECKING:
    from rich.console import Console

    from commit_digest.analysis.llm_client import LlmClient
    from commit_digest.analysis.pipeline import PassSummary
    from commit_digest.plans.days import DayRequest
    from commit_digest.settings import DigestSettings
    from commit_digest.store.analysis_store import AnalysisStore


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "brief",
        help="write the day's brief per platform with an LLM (OPENAI_API_KEY, OPENAI_BASE_URL)",
        description="Writes, for each completed day (in the site's time zone), the whole day's brief and one "
        "per platform with analysed commits that day: three to six sentences in every language of the site, "
        "each citing the commits it rests on, one request each, stored as it arrives. By default the last 3 "
        "completed days; --since/--until take a range. A brief is asked again only when its day's analyses "
        "changed since it was written, or with --rewrite.",
    )
    add_common_options(parser)
    add_llm_options(parser, what="write", unit="briefs")
    parser.add_argument(
        "--day",
        action="append",
        default=None,
        type=day_argument,
        metavar="YYYY-MM-DD",
        help="this completed day only (repeatable)",
    )
    parser.add_argument(
        "--days",
        type=int,
        default=None,
        metavar="N",
        help="the last N completed days (default 3) when no day or range is given",
    )
    parser.add_argument("--rewrite", action="store_true", help="replace the stored briefs of the days asked for")
    parser.set_defaults(handler=run_brief)


def day_request(args: argparse.Namespace) -> DayRequest:
    from commit_digest.plans.days import DEFAULT_DAYS, DayRequest

    if args.day and (args.since is not None or args.until is not None or args.days is not None):
        raise InputError("--day names the days: it does not go with --since, --until or --days")
    if args.days is not None and (args.since is not None or args.until is not None):
        raise InputError("--days counts back from yesterday: it does not go with --since or --until")
    if args.days is not None and args.days < 1:
        raise InputError("--days must be at least 1")
    return DayRequest(
        days=tuple(args.day or ()),
        since=args.since,
        until=args.until,
        count=args.days if args.days is not None else DEFAULT_DAYS,
    )


def run_brief(args: argparse.Namespace) -> int:
    def run(
        client: LlmClient, settings: DigestSettings, store: AnalysisStore, console: Console, request: DayRequest
    ) -> PassSummary:
        from commit_digest.analysis.briefing import BriefWriter
        from commit_digest.plans.days import brief_site

        writer = BriefWriter(client, settings)
        return brief_site(store, writer, settings, request, rewrite=args.rewrite, limit=args.limit, console=console)

    return run_written(
        args,
        what="briefs",
        without="the day pages show the rule-based morning read",
        plan=lambda: day_request(args),
        run=run,
    )
