"""Installed as users install it (issue 44): a fresh checkout, an empty venv, no extras.

The wheel ``pip wheel`` builds, installed on its own in a checkout copy's clean venv. pip reads
only the wheelhouse of scripts/ensure-wheelhouse.sh, so nothing reaches an index and a dependency
pip would have to fetch fails the install. It must import every module, answer every ``--help``,
run ``demo`` (in the checkout and from an empty folder) and ``build``. The other install,
``python -m pip install .`` as the nightly workflow's Install step runs it, is checked the same
way in tests/deploy/test_nightly_rehearsal.py, on the venv that step installed into: one install
serves both.
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
    EVERY_COMMAND_HELP,
    IMPORT_EVERY_MODULE,
    MISSING_WHEELHOUSE,
    PACKAGES,
    WHEELHOUSE_COMPLETE,
    checkout_copy,
    clean_venv,
    modules_in,
    offline_pip_environment,
)

pytestmark = pytest.mark.slow

WHEEL = "wheel"
SECRETS = ("OPENAI_API_KEY", "GITHUB_TOKEN", "OPENAI_BASE_URL", "GITHUB_API_URL")

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


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, offline_environ: dict[str, str]) -> Iterator[Installed]:
    folder = tmp_path_factory.mktemp("wheel")
    checkout = checkout_copy(folder / "checkout")
    bin_folder = clean_venv(folder / "venv", offline_environ)
    # As an activated venv has it: its programs first on PATH.
    environ = offline_environ | {
        "PATH": f"{bin_folder}{os.pathsep}{offline_environ.get('PATH', '')}",
        "VIRTUAL_ENV": str(bin_folder.parent),
    }
    python = str(bin_folder / "python")
    run([python, "-m", "pip", "wheel", "--no-deps", "-w", "dist", "."], checkout, environ, timeout=600)
    (wheel,) = (checkout / "dist").glob("*.whl")
    # --no-compile: the byte-compiling of every dependency (a third of the install's time)
    # proves nothing the imports below do not.
    run([python, "-m", "pip", "install", "--no-compile", str(wheel)], checkout, environ, timeout=600)
    yield Installed(WHEEL, checkout, bin_folder, environ)
    # About 250 MB a venv and its checkout: gone with the module, not left to pytest's rotation.
    shutil.rmtree(folder, ignore_errors=True)


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
    MkDocs' own command, which finds the plugin through its entry point. Outside it: the demo
    site shipped as package data, which only an install has."""
    demo_site = tmp_path / "demo-site"
    installed.run("commit-digest", "demo", "--site-dir", str(demo_site))
    assert (demo_site / "index.html").is_file()
    installed.run("commit-digest", "build", "--site-dir", str(tmp_path / "site"))
    assert (tmp_path / "site" / "days").is_dir(), "no day pages: the build found no store in cache/"
    installed.run("mkdocs", "build", "--site-dir", str(tmp_path / "mkdocs-site"))
    assert (tmp_path / "mkdocs-site" / "days").is_dir(), "no day pages: the commit-digest plugin did not run"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    installed.run("commit-digest", "demo", cwd=elsewhere)
    assert (elsewhere / "site" / "index.html").is_file()
