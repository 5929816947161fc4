"""The ``commit-digest`` command: argument parsing and exit codes only.

Each subcommand lives in ``commands/<name>.py`` with a ``register(subparsers)`` function;
domain errors become one line on stderr and exit status 2, never a traceback. A stop signal
(SIGTERM, SIGINT) becomes one line and exit status 130 or 143 (see ``stopping``).

The options every command takes (``-f/--config-file``, ``--cache``, ``-v/--verbose``) go before
or after the command's name: ``commit-digest -f x.yml fetch`` is ``commit-digest fetch -f x.yml``.
Given in both places, the one after the command wins, as the command's own options are read last.
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

from commit_digest import __version__, environment, stopping
from commit_digest.commands.terminal import for_terminal
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
    "brief",
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
COOPERATIVE_COMMANDS = frozenset({"fetch", "analyze", "translate", "narrate", "brief", "nightly", "notify"})


# The options of every command that may also come before its name (by their dest), and the
# long spellings of those that take a value: the word after one is its value, not the command.
SHARED_OPTIONS = ("config_file", "cache", "verbose")
LONG_VALUE_OPTIONS = ("--config-file", "--cache")
# Where a command's parser leaves its own defaults of SHARED_OPTIONS for the main parser.
_COMMAND_DEFAULTS = "_command_defaults"


class _MainParser(argparse.ArgumentParser):
    """The main parser: an option of SHARED_OPTIONS is read before the command (here) and after
    it (by the command's parser, whose copy has no default, so it replaces only what it was
    given); one given in neither place takes the command's own default."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, rest = super().parse_known_args(args, namespace)
        for dest, value in vars(parsed).pop(_COMMAND_DEFAULTS, {}).items():
            if not hasattr(parsed, dest):
                setattr(parsed, dest, value)
        return parsed, rest


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; of the one ``argv`` names when it names one, so a
    nightly ``build`` does not import the LLM client's and the fetchers' libraries."""
    parser = _MainParser(
        prog="commit-digest",
        description="Collect, analyse and publish the commits of a repository as a daily digest site.",
        epilog="-f, --cache and -v go before or after COMMAND; given in both places, the one after COMMAND wins.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    parser.add_argument(
        "-f",
        "--config-file",
        type=Path,
        default=argparse.SUPPRESS,
        metavar="MKDOCS_YML",
        help="read settings from this mkdocs.yml (default: ./mkdocs.yml)",
    )
    parser.add_argument(
        "--cache", type=Path, default=argparse.SUPPRESS, metavar="DIR", help="the analysis store (default: cache/)"
    )
    # The commands' parsers are plain ones: only the main parser fills in defaults afterwards.
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=argparse.ArgumentParser
    )
    chosen = None if argv is None else _chosen_module(argv)
    for name in COMMAND_MODULES if chosen is None else (chosen,):
        importlib.import_module(f"commit_digest.commands.{name}").register(subparsers)
    for command_parser in {id(one): one for one in subparsers.choices.values()}.values():
        _share_options(command_parser)
    return parser


def _share_options(command_parser: argparse.ArgumentParser) -> None:
    """The command's copies of SHARED_OPTIONS set only what is given after the command; their
    defaults are handed to the main parser, which applies them when neither place gave one."""
    if not any("-v" in action.option_strings for action in command_parser._actions):
        command_parser.add_argument(
            "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="log debug messages"
        )
    defaults = {}
    # argparse has no public way to change one action's default alone (set_defaults would also
    # store SUPPRESS as a value of the namespace): the actions are read as argparse keeps them.
    for action in command_parser._actions:
        if action.dest in SHARED_OPTIONS and action.default is not argparse.SUPPRESS:
            defaults[action.dest] = action.default
            action.default = argparse.SUPPRESS
    command_parser.set_defaults(**{_COMMAND_DEFAULTS: defaults})


def _command_word(argv: Sequence[str]) -> str | None:
    """The command's name: the first word that is neither an option nor the value of one."""
    words = iter(argv)
    for word in words:
        if _takes_value(word):
            next(words, None)
        elif word == "--":
            return next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def _takes_value(word: str) -> bool:
    """Whether ``word`` is an option of the main parser whose value is the next word: ``-f``
    (also after other short flags, ``-vf``), ``--cache`` or an abbreviation argparse accepts."""
    if re.fullmatch(r"-v*f", word):
        return True
    return word.startswith("--") and len(word) > 2 and any(option.startswith(word) for option in LONG_VALUE_OPTIONS)


def _chosen_module(argv: Sequence[str]) -> str | None:
    """The command module the command's name names, if it names one."""
    word = _command_word(argv)
    if word is None:
        return None
    name = word.replace("-", "_")
    return name if name in COMMAND_MODULES else None


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    command = _command_word(words) or ""
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


def _as_text(record: logging.LogRecord) -> bool:
    """Every line is text, not terminal control: what a server said (an error, a refusal) has its
    escape sequences shown escaped and its lines cut (``commands.terminal``)."""
    message = record.getMessage()
    safe = for_terminal(message, keep_lines=True)
    if safe != message:
        record.msg, record.args = safe, None
    return True


def _run(words: Sequence[str], argv: Sequence[str] | None) -> int:
    unreadable_zone = _drop_unreadable_local_zone()
    # Before any library reads them: an empty variable (an unset Actions secret) is no variable.
    environment.drop_blank()
    args = build_parser(words).parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.INFO
    logging.basicConfig(level=level, format="%(levelname)s %(message)s", stream=sys.stderr)
    # Libraries that set their own loggers to DEBUG (jieba) must not flood the output.
    for handler in logging.getLogger().handlers:
        handler.setLevel(level)
        handler.addFilter(_without_url_credentials)
        handler.addFilter(_as_text)
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
            print(f"commit-digest {args.command}: error: {for_terminal(str(error), keep_lines=True)}", file=sys.stderr)
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
