"""``commit-digest build``: the MkDocs build of the site from any store, without editing mkdocs.yml."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from commit_digest.commands.common import DEFAULT_CONFIG
from commit_digest.settings import Language, read_mkdocs_yml


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
    add_build_guard_options(parser)
    parser.set_defaults(handler=run)


def add_build_guard_options(parser: argparse.ArgumentParser) -> None:
    """--allow-shrink and --wait, which `build` and `nightly` share."""
    parser.add_argument(
        "--allow-shrink",
        action="store_true",
        help="publish even from a store that is missing or holds under half the commits the published site shows",
    )
    parser.add_argument(
        "--wait",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="wait this long for another build of the same site folder (or night of the same store) to end "
        "(default: 0, end at once with one line)",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    return value


def site_folder(config_file: Path | None, site_dir: Path | None) -> Path:
    """The folder a build of ``config_file`` publishes: ``site_dir`` (from where the command
    runs), else site_dir of mkdocs.yml (from the file's folder), as MkDocs resolves them."""
    if site_dir is not None:
        return site_dir.resolve()
    config = config_file or DEFAULT_CONFIG
    value = read_mkdocs_yml(config).get("site_dir") if config.is_file() else None
    folder = config.resolve().parent / (value if isinstance(value, str) else "site")
    return Path(os.path.abspath(folder))  # noqa: PTH100 - as MkDocs makes it: symbolic links kept


def build_site(
    config_file: Path | None,
    *,
    cache_dir: Path | None,
    site_dir: Path | None,
    strict: bool,
    full: bool = False,
    language: Language | None = None,
    allow_shrink: bool = False,
    wait: float = 0.0,
) -> Path:
    """Builds the site (``demo`` calls this too); returns the folder written. ``language`` builds
    it in that one language instead of the languages of mkdocs.yml; ``allow_shrink`` publishes
    from a store far smaller than the published site; ``wait`` is how long another build of the
    same site folder is waited for."""
    # MkDocs is imported only when a build runs: the rest of the CLI never loads it.
    from commit_digest_mkdocs.build import run_build

    return run_build(
        config_file or DEFAULT_CONFIG,
        cache_dir=cache_dir,
        site_dir=site_dir,
        strict=strict,
        full=full,
        language=language,
        allow_shrink=allow_shrink,
        wait=wait,
    )


def run(args: argparse.Namespace) -> int:
    site = build_site(
        args.config_file,
        cache_dir=args.cache,
        site_dir=args.site_dir,
        strict=args.strict,
        full=args.full,
        allow_shrink=args.allow_shrink,
        wait=args.wait,
    )
    print(f"site written to {site}")
    return 0
