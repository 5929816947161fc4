"""The digest of our own code: a change to the source changes it, Python's bytecode caches don't
(they appear at any depth whenever a changed module is first imported, and made the first build
after an edit think the code had changed again)."""

from __future__ import annotations

from pathlib import Path

from commit_digest.site.fingerprint import tree_digest


def test_bytecode_caches_at_any_depth_do_not_change_the_code_digest(tmp_path: Path) -> None:
    package = tmp_path / "package"
    (package / "site").mkdir(parents=True)
    (package / "site" / "pages.py").write_text("X = 1\n", encoding="utf-8")
    before = tree_digest(package, skip_compiled=True)
    for folder in (package / "__pycache__", package / "site" / "__pycache__"):
        folder.mkdir()
        (folder / "pages.cpython-311.pyc").write_bytes(b"\x00compiled")
    assert tree_digest(package, skip_compiled=True) == before
    assert tree_digest(package) != before  # docs/ and overrides keep every file
    (package / "site" / "pages.py").write_text("X = 2\n", encoding="utf-8")
    assert tree_digest(package, skip_compiled=True) != before
