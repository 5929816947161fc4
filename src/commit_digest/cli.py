"""The ``commit-digest`` command: argument parsing and exit codes only.

Each subcommand lives in ``commands/<name>.py`` with a ``register(subparsers)`` function;
domain errors become one line on stderr and exit status 2, never a traceback. A stop signal
(SIGTERM, SIGINT) becomes one line and exit status 130 or 143 (see ``stopping``).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import re
import sys
import time
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path

from commit_digest import __version__, stopping
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
EXIT_BROKEN_PIPE = 141  # what a shell reports for a writer killed by SIGPIPE
# The commands whose work is requests (paid, or posted once): a stop signal lets the requests in
# flight finish and store their answers. The others are cut at once, as a build is: nothing paid
# is lost by cutting them.
COOPERATIVE_COMMANDS = frozenset({"fetch", "analyze", "translate", "narrate", "nightly", "notify"})


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
    words = sys.argv[1:] if argv is None else list(argv)
    command = next((word for word in words if not word.startswith("-")), "")
    command = command if command.replace("-", "").isascii() and command.replace("-", "").isalpha() else ""
    # First of all: a signal during the imports of start-up is a stop like any other.
    with stopping.handling("commit-digest" + (f" {command}" if command else "")):
        try:
            status = _run(words, argv)
            # The signal itself, not stop_requested(): that is what the request loops ask (and
            # what a test of one may replace).
            stopped = stopping.stop_signal() is not None
        except KeyboardInterrupt:  # a stop asked before a block that is cut (stopping.interruptible)
            status, stopped = EXIT_ERROR, True
        if stopped:
            print(stopping.stop_line(), file=sys.stderr)
            status = stopping.exit_status()
        if stopping.abandoned():
            # Worker threads still wait for answers given up on: the interpreter would join them.
            _flush()
            os._exit(status)
        return status


_URL_CREDENTIALS = re.compile(r"(?i)\b(https?://)[^/\s@]+@")


def _without_url_credentials(record: logging.LogRecord) -> bool:
    """Every line leaves out what a URL carries before its host (``https://user:key@gateway``):
    the HTTP client logs each request's URL as it was given."""
    message = record.getMessage()
    if "@" in message:
        record.msg, record.args = _URL_CREDENTIALS.sub(r"\1", message), None
    return True


def _run(words: Sequence[str], argv: Sequence[str] | None) -> int:
    unreadable_zone = _drop_unreadable_local_zone()
    args = build_parser(words).parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.INFO
    logging.basicConfig(level=level, format="%(levelname)s %(message)s", stream=sys.stderr)
    # Libraries that set their own loggers to DEBUG (jieba) must not flood the output.
    for handler in logging.getLogger().handlers:
        handler.setLevel(level)
        handler.addFilter(_without_url_credentials)
    if unreadable_zone is not None:
        logging.getLogger("mkdocs.plugins.commit_digest").warning(
            "TZ=%s cannot be read as a time zone; ignored (commit-digest uses no local time: "
            "the timezone setting places commits on days)",
            unreadable_zone if len(unreadable_zone) <= 80 else unreadable_zone[:80] + "…",
        )
    if args.command in COOPERATIVE_COMMANDS:
        stopping.cooperate()
    try:
        status = int(args.handler(args))
        # Inside the try: with `| head` the last buffered output fails here, not in the handler.
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader has gone (`commit-digest export | head -1`): that is not an error to report.
        # Python's recipe: stdout becomes /dev/null, so the flush at interpreter exit cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except CommitDigestError as error:
        # After a stop to the process group, an error is a child (git) the signal ended: the stop says why.
        if stopping.stop_signal() is None:
            print(f"commit-digest {args.command}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    return status


def _drop_unreadable_local_zone() -> str | None:
    """The TZ value, when Babel (under MkDocs) would fail on it at import (a file that is not a
    zone, TZ=/dev/null; a folder; a name too long for a path), after taking it out of the
    environment: nothing of commit-digest depends on local time. None when TZ is unset or usable."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    value = os.environ.get("TZ", "")
    name = value[1:] if value.startswith(":") else value
    if not name:
        return None
    try:
        path = Path(name)
        if path.exists():
            with path.open("rb") as file:
                ZoneInfo.from_file(file)
        else:
            with suppress(ZoneInfoNotFoundError, ValueError):  # not a zone: Babel falls back on its own
                ZoneInfo(name)
    except (OSError, ValueError):
        del os.environ["TZ"]
        time.tzset()
        return value
    return None


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # a closed or broken stream: nothing more can be said on it
            stream.flush()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
