"""The ``commit-digest`` command: argument parsing and exit codes only.

Each subcommand lives in ``commands/<name>.py`` with a ``register(subparsers)`` function;
domain errors become one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from commit_digest import __version__
from commit_digest.errors import CommitDigestError

# Modules under commit_digest.commands, in the order `--help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "demo",
    "build",
    "records",
    "classify",
    "fetch",
    "analyze",
    "translate",
    "narrate",
    "stats",
    "import_legacy",
    "nightly",
    "notify",
    "restore",
)

EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # what a shell reports for a writer killed by SIGPIPE


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; of the one ``argv`` names when it names one, so a
    nightly ``build`` does not import the LLM client's and the fetchers' libraries."""
    parser = argparse.ArgumentParser(
        prog="commit-digest",
        description="Collect, analyse and publish the commits of a repository as a daily digest site.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = None if argv is None else _chosen_module(argv)
    for name in COMMAND_MODULES if chosen is None else (chosen,):
        importlib.import_module(f"commit_digest.commands.{name}").register(subparsers)
    return parser


def _chosen_module(argv: Sequence[str]) -> str | None:
    """The command module the first word that is not an option names, if it names one."""
    for word in argv:
        if word.startswith("-"):
            continue
        name = word.replace("-", "_")
        return name if name in COMMAND_MODULES else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.INFO
    logging.basicConfig(level=level, format="%(levelname)s %(message)s", stream=sys.stderr)
    # Libraries that set their own loggers to DEBUG (jieba) must not flood the output.
    for handler in logging.getLogger().handlers:
        handler.setLevel(level)
    try:
        status = int(args.handler(args))
        # Inside the try: with `| head` the last buffered output fails here, not in the handler.
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # The reader has gone (`commit-digest export | head -1`): that is not an error to report.
        # Python's recipe: stdout becomes /dev/null, so the flush at interpreter exit cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except CommitDigestError as error:
        print(f"commit-digest {args.command}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"commit-digest {args.command}: interrupted; everything stored so far is kept", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
