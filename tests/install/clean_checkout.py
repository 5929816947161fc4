"""The project as its users get it: a fresh checkout's files, a venv with nothing in it, and pip
reading only the wheelhouse that scripts/ensure-wheelhouse.sh fills (so no test reaches an index).

Other tests import these helpers (the nightly workflow's rehearsal installs from them too).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
PACKAGES = {"commit_digest": Path("src/commit_digest"), "commit_digest_mkdocs": Path("plugins/commit_digest_mkdocs")}
WHEELHOUSE = Path(os.environ.get("COMMIT_DIGEST_WHEELHOUSE", Path.home() / ".cache" / "commit-digest" / "wheelhouse"))
# Written last by scripts/ensure-wheelhouse.sh: a wheelhouse without it is missing or half-filled.
WHEELHOUSE_COMPLETE = WHEELHOUSE / ".complete"
MISSING_WHEELHOUSE = (
    f"the offline wheelhouse {WHEELHOUSE} is missing or incomplete: "
    "run `bash scripts/ensure-wheelhouse.sh` (make test runs it)"
)

# Git with no user or system configuration, and a committer of its own.
_GIT_ENVIRONMENT = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "commit-digest tests",
    "GIT_AUTHOR_EMAIL": "tests@example.com",
    "GIT_COMMITTER_NAME": "commit-digest tests",
    "GIT_COMMITTER_EMAIL": "tests@example.com",
}


def checkout_copy(destination: Path) -> Path:
    """A copy of the project as a fresh checkout has it, made into a git repository of one commit.

    The files are those git would commit now (tracked, plus untracked ones not ignored) as they are
    in the working tree; ones deleted there are left out. Nothing ignored comes along: no .venv,
    egg-info, cache or site.
    """
    listed = subprocess.run(
        ["git", "-C", str(PROJECT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
    ).stdout.decode()
    destination.mkdir(parents=True, exist_ok=True)
    for name in sorted(set(filter(None, listed.split("\0")))):
        source = PROJECT / name
        if not source.exists() and not source.is_symlink():
            continue
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    environment = {**os.environ, **_GIT_ENVIRONMENT}
    for arguments in (
        ("init", "--quiet", "--initial-branch", "main"),
        ("add", "--all"),
        ("commit", "--quiet", "--no-verify", "--message", "checkout copy"),
    ):
        subprocess.run(["git", "-C", str(destination), *arguments], env=environment, check=True, capture_output=True)
    return destination


def offline_pip_environment(base: Mapping[str, str]) -> dict[str, str]:
    """``base`` with pip reading only the wheelhouse: no configuration file (this machine's sets
    find-links, extra index URLs and a constraint file), no index, and none of the machine's PIP_*
    variables. A wheel missing from the wheelhouse makes pip fail, never reach for the network.

    PYTHONPATH and PYTHONHOME go too: a clean venv must not see the project's sources through them.
    """
    environment = {
        key: value
        for key, value in base.items()
        if not key.startswith("PIP_") and key not in ("PYTHONPATH", "PYTHONHOME")
    }
    environment |= {
        "PIP_CONFIG_FILE": os.devnull,  # pip then reads no configuration file at all
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(WHEELHOUSE),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INPUT": "1",
    }
    return environment


def clean_venv(path: Path, environ: Mapping[str, str]) -> Path:
    """A new venv at ``path`` from the Python running the tests (3.11), without the system's site
    packages; its ``bin`` folder."""
    subprocess.run(
        [sys.executable, "-m", "venv", str(path)], env=dict(environ), check=True, capture_output=True, text=True
    )
    return path / "bin"


# Imports every module of the installed packages; prints one line per module imported and one
# "FAILED name: error" line per failure. Run by the venv's Python, outside the checkout.
IMPORT_EVERY_MODULE = """
import importlib, pkgutil, sys
failures = []
for name in sys.argv[1:]:
    package = importlib.import_module(name)
    if not package.__file__.startswith(sys.prefix):
        failures.append(f"{name}: imported from {package.__file__}, not from the venv {sys.prefix}")
    print(name)
    found = pkgutil.walk_packages(package.__path__, name + ".", onerror=lambda failed: failures.append(
        f"{failed}: {sys.exc_info()[1]!r}"))
    for module in found:
        try:
            importlib.import_module(module.name)
        except Exception as error:
            failures.append(f"{module.name}: {error!r}")
        else:
            print(module.name)
for failure in failures:
    print("FAILED", failure)
sys.exit(1 if failures else 0)
"""

# Every command's --help through the installed console script's own entry point, in one process.
# The commands are the names the parser registers: a module of COMMAND_MODULES may register
# several (commands/records.py registers import, export and show; there is no `records` command).
EVERY_COMMAND_HELP = """
import argparse, contextlib, io
from importlib.metadata import entry_points
from commit_digest.cli import build_parser
(script,) = entry_points(group="console_scripts", name="commit-digest")
main = script.load()
(commands,) = [action for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction)]
for command in commands.choices:
    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        try:
            status = main([command, "--help"])
        except SystemExit as exit:
            status = exit.code
    usage = f"usage: commit-digest {command}" in " ".join(output.getvalue().split())
    print(command, status or 0, "usage" if usage else "NO USAGE: " + output.getvalue()[-2000:])
"""


def modules_in(checkout: Path) -> set[str]:
    """The modules of our packages in a checkout: every .py file under a regular package (folders
    with an ``__init__.py`` up to the top; data files such as the demo site's gen-files script are
    not modules)."""
    names = set()
    for package, folder in PACKAGES.items():
        top = checkout / folder
        for path in top.rglob("*.py"):
            folders = path.relative_to(top).parents
            if all((top / parent / "__init__.py").is_file() for parent in folders):
                parts = path.relative_to(top).with_suffix("").parts
                names.add(".".join((package, *(parts[:-1] if parts[-1] == "__init__" else parts))))
    return names
