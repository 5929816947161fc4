"""``commit-digest build``: the MkDocs build of the site from any store, without editing mkdocs.yml."""

from __future__ import annotations

import argparse
from pathlib import Path

from commit_digest.commands.common import DEFAULT_CONFIG
from commit_digest.settings import Language


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "build",
        help="build the digest website (mkdocs build) from a store",
        description="Runs the MkDocs build of the site, its commit-digest plugin reading the given store.",
    )
    parser.add_argument(
        "-f",
        "--config-file",
        type=Path,
        default=DEFAULT_CONFIG,
        metavar="MKDOCS_YML",
        help="the site's mkdocs.yml (default: ./mkdocs.yml)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        metavar="DIR",
        help="the analysis store to publish (default: cache_dir of mkdocs.yml)",
    )
    parser.add_argument(
        "--site-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where to write the site (default: site_dir of mkdocs.yml)",
    )
    parser.add_argument("--strict", action="store_true", help="fail on any MkDocs warning")
    parser.add_argument(
        "--full", action="store_true", help="render every page (default: reuse pages whose inputs did not change)"
    )
    parser.set_defaults(handler=run)


def build_site(
    config_file: Path | None,
    *,
    cache_dir: Path | None,
    site_dir: Path | None,
    strict: bool,
    full: bool = False,
    language: Language | None = None,
) -> Path:
    """Builds the site (``demo`` calls this too); returns the folder written. ``language`` builds
    it in that one language instead of the languages of mkdocs.yml."""
    # MkDocs is imported only when a build runs: the rest of the CLI never loads it.
    from commit_digest_mkdocs.build import run_build

    return run_build(
        config_file or DEFAULT_CONFIG,
        cache_dir=cache_dir,
        site_dir=site_dir,
        strict=strict,
        full=full,
        language=language,
    )


def run(args: argparse.Namespace) -> int:
    site = build_site(
        args.config_file, cache_dir=args.cache, site_dir=args.site_dir, strict=args.strict, full=args.full
    )
    print(f"site written to {site}")
    return 0
