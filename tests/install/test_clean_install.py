"""Installed as users install it (issue 44): a fresh checkout, an empty venv, no extras.

Two installs, each in its own checkout copy and venv: ``python -m pip install .`` (the nightly
workflow's step), and the wheel ``pip wheel`` builds, installed on its own. pip reads only the
wheelhouse of scripts/ensure-wheelhouse.sh, so nothing reaches an index and a dependency pip
would have to fetch fails the install. Each install must import every module, answer every
``--help``, run ``demo`` and ``build``, and (the first) serve MkDocs its plugin.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.install.clean_checkout import (
    MISSING_WHEELHOUSE,
    WHEELHOUSE_COMPLETE,
    checkout_copy,
    clean_venv,
    offline_pip_environment,
)

pytestmark = pytest.mark.slow

SOURCE = "pip install ."
WHEEL = "wheel"
SECRETS = ("OPENAI_API_KEY", "GITHUB_TOKEN", "OPENAI_BASE_URL", "GITHUB_API_URL")
PACKAGES = {"commit_digest": Path("src/commit_digest"), "commit_digest_mkdocs": Path("plugins/commit_digest_mkdocs")}

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


@dataclass(frozen=True)
class Installed:
    how: str
    checkout: Path
    bin: Path
    environ: dict[str, str]

    def run(self, *arguments: str, cwd: Path | None = None, timeout: float = 300) -> str:
        """A program of the venv (``commit-digest``, ``python``...), run in the checkout; its output."""
        return run([str(self.bin / arguments[0]), *arguments[1:]], cwd or self.checkout, self.environ, timeout)


def run(command: list[str], cwd: Path, environ: dict[str, str], timeout: float) -> str:
    done = subprocess.run(command, cwd=cwd, env=environ, capture_output=True, text=True, timeout=timeout, check=False)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        hint = f"\n({MISSING_WHEELHOUSE})" if "matching distribution" in output else ""
        pytest.fail(f"{' '.join(command)} (in {cwd}) exited {done.returncode}:\n{output[-6000:]}{hint}")
    return done.stdout


@pytest.fixture(scope="module")
def offline_environ() -> dict[str, str]:
    if not WHEELHOUSE_COMPLETE.is_file():
        pytest.fail(MISSING_WHEELHOUSE)
    return offline_pip_environment({key: value for key, value in os.environ.items() if key not in SECRETS})


@pytest.fixture(scope="module", params=[SOURCE, WHEEL])
def installed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, offline_environ: dict[str, str]
) -> Iterator[Installed]:
    folder = tmp_path_factory.mktemp("wheel" if request.param == WHEEL else "source")
    checkout = checkout_copy(folder / "checkout")
    bin_folder = clean_venv(folder / "venv", offline_environ)
    # As an activated venv has it: its programs first on PATH.
    environ = offline_environ | {
        "PATH": f"{bin_folder}{os.pathsep}{offline_environ.get('PATH', '')}",
        "VIRTUAL_ENV": str(bin_folder.parent),
    }
    python = str(bin_folder / "python")
    if request.param == SOURCE:
        run([python, "-m", "pip", "install", "."], checkout, environ, timeout=600)
    else:
        run([python, "-m", "pip", "wheel", "--no-deps", "-w", "dist", "."], checkout, environ, timeout=600)
        (wheel,) = (checkout / "dist").glob("*.whl")
        # --no-compile: the byte-compiling of every dependency (a third of the install's time)
        # proves nothing the imports below do not.
        run([python, "-m", "pip", "install", "--no-compile", str(wheel)], checkout, environ, timeout=600)
    yield Installed(request.param, checkout, bin_folder, environ)
    # About 250 MB a venv and its checkout: gone with the module, not left to pytest's rotation.
    shutil.rmtree(folder, ignore_errors=True)


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


def test_every_module_imports(installed: Installed, tmp_path: Path) -> None:
    """Every module of both packages imports from the venv, and the install holds every module the
    checkout has (none left out of the packages)."""
    output = installed.run("python", "-c", IMPORT_EVERY_MODULE, *PACKAGES, cwd=tmp_path)
    assert set(output.split()) == modules_in(installed.checkout)


def test_every_command_answers_help(installed: Installed) -> None:
    usage = installed.run("commit-digest", "--help")
    assert usage.startswith("usage: commit-digest")
    answers = installed.run("python", "-c", EVERY_COMMAND_HELP).splitlines()
    assert {"demo 0 usage", "build 0 usage", "import 0 usage"} <= set(answers)
    assert [answer for answer in answers if not answer.endswith(" 0 usage")] == []


def test_demo_build_and_mkdocs_build(installed: Installed, tmp_path: Path) -> None:
    """In the checkout: the README's demo, then a build from the store it left in cache/, then
    (the first install) MkDocs' own command, which finds the plugin through its entry point.
    Outside it (the second): the demo site shipped as package data, which only an install has."""
    demo_site = tmp_path / "demo-site"
    installed.run("commit-digest", "demo", "--site-dir", str(demo_site))
    assert (demo_site / "index.html").is_file()
    installed.run("commit-digest", "build", "--site-dir", str(tmp_path / "site"))
    assert (tmp_path / "site" / "days").is_dir(), "no day pages: the build found no store in cache/"
    if installed.how == SOURCE:
        installed.run("mkdocs", "build", "--site-dir", str(tmp_path / "mkdocs-site"))
        assert (tmp_path / "mkdocs-site" / "days").is_dir(), "no day pages: the commit-digest plugin did not run"
    else:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        installed.run("commit-digest", "demo", cwd=elsewhere)
        assert (elsewhere / "site" / "index.html").is_file()
