"""Options every subcommand shares, and turning them into settings and a store."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from commit_digest.errors import InputError
from commit_digest.settings import DigestSettings, load_settings
from commit_digest.store import AnalysisStore

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


def add_durable_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--durable-dir",
        type=Path,
        default=Path("data"),
        metavar="DIR",
        help="the durable JSON Lines form (the data branch's worktree; default: data/)",
    )


def settings_from_args(args: argparse.Namespace, **overrides: Any) -> DigestSettings:
    config_file = args.config_file if args.config_file is not None else DEFAULT_CONFIG
    if args.config_file is not None and not args.config_file.exists():
        raise InputError(f"config file {args.config_file} does not exist")
    # Paths given on the command line are relative to where the command runs.
    values: dict[str, Any] = {"cache_dir": args.cache.resolve() if args.cache else None}
    if getattr(args, "repo", None):
        values["repository"] = args.repo
    values.update(overrides)
    return load_settings(config_file, values, flags=OPTION_FLAGS)


def open_store(settings: DigestSettings) -> AnalysisStore:
    settings.cache_dir.mkdir(parents=True, exist_ok=True)
    return AnalysisStore(settings.cache_dir)
