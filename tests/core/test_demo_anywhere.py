"""`commit-digest demo` runs from any folder: without mkdocs.yml and -f it builds the demo site
shipped inside the package, and writes only the folders its output names."""

from __future__ import annotations

import fnmatch
import tempfile
import tomllib
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.commands.demo import DEMO_SITE

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "commit_digest"


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder temporary stores are made in, watched by the test."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def only_line_with(text: str, start: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith(start)]
    return line


@pytest.mark.slow
def test_demo_from_an_empty_folder_writes_the_site_and_nothing_else(
    temporary: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    here = Path.cwd()
    assert list(here.iterdir()) == []
    assert main(["demo", "--site-dir", "out"]) == 0
    out = capsys.readouterr().out
    assert (here / "out" / "index.html").is_file()
    assert (here / "out" / "deprecations" / "index.html").is_file()  # the shipped gen-files script ran
    assert [path.name for path in here.iterdir()] == ["out"]
    # The store was a temporary folder, named, and removed.
    store = only_line_with(out, "store: a temporary folder, removed when the demo ends: ").rpartition(": ")[2]
    assert Path(store).parent == temporary
    assert f"sample: 172 commits (172 new) over 4 days (2026-01-07 … 2026-01-15) in {store}" in out
    assert f"site built into {here / 'out'} in " in out
    assert out.endswith(f"removed the temporary store {store}\n")
    assert list(temporary.iterdir()) == []


@pytest.mark.slow
def test_demo_without_site_dir_builds_into_site_and_keeps_a_given_store(
    temporary: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    here = Path.cwd()
    assert main(["--cache", "store", "demo", "--language", "en"]) == 0
    out = capsys.readouterr().out
    assert sorted(path.name for path in here.iterdir()) == ["site", "store"]
    assert 'lang="en"' in (here / "site" / "index.html").read_text(encoding="utf-8")
    assert f"in {here / 'store'}\n" in out
    assert f"site built into {here / 'site'} in " in out
    assert "temporary" not in out
    assert list(temporary.iterdir()) == []


@pytest.mark.parametrize("flag", ["--site-dir", "--cache"])
def test_a_folder_demo_cannot_write_is_one_line_and_nothing_is_written(
    temporary: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    Path("a-file").write_text("", encoding="utf-8")
    assert main(["demo", flag, "a-file/inside"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"commit-digest demo: error: {flag} a-file/inside: {Path.cwd() / 'a-file'} is not a folder; "
        f"choose another {flag}\n"
    )
    assert [path.name for path in Path.cwd().iterdir()] == ["a-file"]
    assert list(temporary.iterdir()) == []


def test_in_a_checkout_demo_uses_its_mkdocs_yml(capsys: pytest.CaptureFixture[str]) -> None:
    Path("mkdocs.yml").write_text(
        "site_name: x\nplugins:\n  - commit-digest:\n      cache_dir: mine\n", encoding="utf-8"
    )
    assert main(["demo", "--no-build"]) == 0
    out = capsys.readouterr().out
    assert "shipped" not in out
    assert f"in {Path.cwd() / 'mine'}\n" in out
    assert sorted(path.name for path in Path.cwd().iterdir()) == ["mine", "mkdocs.yml"]


def test_the_checkouts_theme_overrides_and_scripts_are_the_shipped_ones() -> None:
    """One copy of what docs/ gives the build besides hand-written pages (the theme overrides and
    the gen-files script): the checkout's docs/ links to the package's, so they cannot drift."""
    shipped = PACKAGE / DEMO_SITE / "docs"
    for name in ("overrides", "scripts"):
        link = ROOT / "docs" / name
        assert link.is_symlink() and link.resolve() == (shipped / name).resolve(), name
    assert (ROOT / "docs" / "overrides" / "404.html").is_file()
    assert (ROOT / "docs" / "scripts" / "deprecations.py").is_file()


def test_the_shipped_demo_mkdocs_yml_is_the_checkouts_under_its_header() -> None:
    """The demo built anywhere is the demo built in a checkout: change both together."""
    shipped = (PACKAGE / DEMO_SITE / "mkdocs.yml").read_text(encoding="utf-8").splitlines(keepends=True)
    body = "".join(shipped[next(index for index, line in enumerate(shipped) if not line.startswith("#")) :])
    assert body == (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_every_shipped_demo_file_is_package_data() -> None:
    """A wheel (`pip install .`) holds only what [tool.setuptools.package-data] lists."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"
    ]["commit_digest"]
    shipped = [path.relative_to(PACKAGE).as_posix() for path in (PACKAGE / DEMO_SITE).rglob("*") if path.is_file()]
    assert "data/demo_site/mkdocs.yml" in shipped
    # setuptools globs: `*` stays within one folder.
    missing = [
        name
        for name in shipped
        if not any(fnmatch.fnmatch(name, pattern) and name.count("/") == pattern.count("/") for pattern in patterns)
    ]
    assert missing == []
