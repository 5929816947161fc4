"""Options every subcommand shares, and turning them into settings and a store."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path
from typing import Any

from rich.console import Console

from commit_digest.commands.terminal import for_terminal
from commit_digest.errors import InputError, StoreError
from commit_digest.settings import DigestSettings, load_settings, plugin_options_in
from commit_digest.store.analysis_store import AnalysisStore

DEFAULT_CONFIG = Path("mkdocs.yml")
# The flag of each option a command can set, by option path, so that a bad value is reported
# with the flag it was given with. A command that sets one of these must use this flag for it.
OPTION_FLAGS: Mapping[str, str] = {
    "cache_dir": "--cache",
    "repository": "--repo",
    "timezone": "--tz",
    "language": "--language",
    "llm.model": "--model",
    "llm.concurrency": "--concurrency",
    "llm.timeout_seconds": "--timeout",
    "llm.output_mode": "--output-mode",
    "llm.renegotiate": "--renegotiate",
    "github.branch": "--branch",
    "github.api_url": "--github-url",
}


def add_common_options(parser: argparse.ArgumentParser, *, repository: bool = False) -> None:
    parser.add_argument(
        "-f",
        "--config-file",
        type=Path,
        default=None,
        metavar="MKDOCS_YML",
        help="read settings from this mkdocs.yml (default: ./mkdocs.yml when it exists)",
    )
    parser.add_argument("--cache", type=Path, default=None, metavar="DIR", help="the analysis store (default: cache/)")
    if repository:
        parser.add_argument(
            "--repo", default=None, metavar="OWNER/NAME", help="the repository (default: from settings)"
        )


def day_argument(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date like 2026-01-08") from error


def add_llm_options(parser: argparse.ArgumentParser, *, what: str, unit: str = "commits") -> None:
    """The options of the commands that send LLM requests (``what`` they do to at most K ``unit``)."""
    parser.add_argument("--model", default=None, help="model name (default: llm.model in mkdocs.yml)")
    parser.add_argument(
        "--output-mode",
        choices=("auto", "json_schema", "json_object", "text"),
        default=None,
        help="structured output: auto (default: negotiated with the server and remembered), or one form",
    )
    parser.add_argument("--concurrency", type=int, default=None, metavar="N", help="requests in flight (default 8)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="per request (default 120)")
    parser.add_argument(
        "--renegotiate",
        action="store_true",
        help="forget the reply form and message layout the server was found to read, and find them out again",
    )
    parser.add_argument("--limit", type=int, default=None, metavar="K", help=f"{what} at most K {unit}, newest first")
    for flag, which in (("--since", "first"), ("--until", "last")):
        help_text = f"{which} day (site time zone)"
        parser.add_argument(flag, type=day_argument, default=None, metavar="YYYY-MM-DD", help=help_text)


def llm_overrides(args: argparse.Namespace) -> dict[str, Any] | None:
    """The llm settings given by ``add_llm_options``' flags (None when none was given)."""
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    given = {
        "model": args.model,
        "concurrency": args.concurrency,
        "timeout_seconds": args.timeout,
        "output_mode": args.output_mode,
        "renegotiate": args.renegotiate or None,
    }
    return {key: value for key, value in given.items() if value is not None} or None


def add_durable_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--durable-dir",
        type=Path,
        default=Path("data"),
        metavar="DIR",
        help="the durable JSON Lines form (the data branch's worktree; default: data/)",
    )


def site_settings_from_args(args: argparse.Namespace, **overrides: Any) -> DigestSettings:
    """The settings of the whole site (every repository, the site-wide taxonomy): what the site's
    pages are made from."""
    config_file = args.config_file if args.config_file is not None else DEFAULT_CONFIG
    if args.config_file is not None and not args.config_file.exists():
        raise InputError(f"config file {args.config_file} does not exist")
    # Paths given on the command line are relative to where the command runs.
    values: dict[str, Any] = {"cache_dir": args.cache.resolve() if args.cache else None}
    if getattr(args, "repo", None):
        values["repository"] = args.repo
    values.update(overrides)
    return load_settings(config_file, values, flags=OPTION_FLAGS)


def settings_from_args(args: argparse.Namespace, **overrides: Any) -> DigestSettings:
    """The settings of one repository's run: --repo's (or the site's first) with its own branch and
    taxonomy overrides."""
    settings = site_settings_from_args(args, **overrides)
    if len(settings.repositories) == 1 and not settings.repositories[0].taxonomy:
        return settings
    # One repository of several: its taxonomy overrides and branch (a --branch given wins).
    one = settings.for_repository(settings.repository)
    branch = (overrides.get("github") or {}).get("branch")
    return one.model_copy(update={"github": one.github.model_copy(update={"branch": branch})}) if branch else one


def repository_runs(args: argparse.Namespace) -> list[argparse.Namespace]:
    """The arguments of one run per repository: --repo's, or each repository of the site's
    settings in turn (a site of one repository: one run, as before)."""
    if getattr(args, "repo", None):
        return [args]
    names = _configured_repositories(args)
    return [argparse.Namespace(**{**vars(args), "repo": name}) for name in names] if len(names) > 1 else [args]


def _configured_repositories(args: argparse.Namespace) -> list[str]:
    """The names under ``repositories:`` in the config file, read without validating the rest:
    each run validates its settings and reports a problem where it belongs (after the flags')."""
    config_file = args.config_file if args.config_file is not None else DEFAULT_CONFIG
    if not config_file.exists():
        return []
    listed = plugin_options_in(config_file).get("repositories") or []
    if not isinstance(listed, list):
        return []
    names = [
        item if isinstance(item, str) else item.get("name") if isinstance(item, Mapping) else None for item in listed
    ]
    return [name for name in names if isinstance(name, str)]


def run_each_repository(
    runs: list[argparse.Namespace], run_one: Callable[[argparse.Namespace], int], console: Console | None = None
) -> int:
    """``run_one`` for each of ``repository_runs``; the worst exit code."""
    codes = []
    for one in runs:
        if len(runs) > 1 and console is not None:
            print_lines(console, [f"== {one.repo}"])
        codes.append(run_one(one))
    return max(codes)


def print_lines(console: Console, lines: list[str]) -> None:
    """Report lines as written: commit text and paths in them are never read as rich markup, and
    what a server put in them (an error text) is shown, not obeyed (``commands.terminal``)."""
    for line in lines:
        # soft_wrap: a report line stays one line in a log, whatever width rich guesses for it.
        console.print(for_terminal(line, keep_lines=True), markup=False, highlight=False, soft_wrap=True)


def open_store(settings: DigestSettings) -> AnalysisStore:
    folder = settings.cache_dir
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        what = "is not a folder" if isinstance(error, FileExistsError | NotADirectoryError) else error.strerror
        raise StoreError(
            f"the cache folder {folder} cannot be used: {what}; point --cache (cache_dir in mkdocs.yml) at a folder"
        ) from error
    return AnalysisStore(folder)


def unwritable_reason(folder: Path) -> str | None:
    """Why ``folder`` cannot be written or made where it would be (``X is not a folder``, ``X is
    read-only``, naming ``folder`` or its nearest existing part), None when it can: checked before
    anything is written or paid for."""
    folder = Path(os.path.abspath(folder))  # noqa: PTH100 - as given: symbolic links kept
    existing = folder
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is read-only"
    return None
