"""Fingerprints: short digests that say "this input is the same as last time".

A page is reused from the previous build only when its own inputs and every shared input
(code, theme, configuration, hand-written pages, versions) have the same fingerprint, so
what counts as an input is decided here, by code, not by whoever edits a template.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from pathlib import Path

DIGEST_BYTES = 16


def digest(*parts: object) -> str:
    """A stable digest of JSON-able parts (order matters)."""
    text = json.dumps(parts, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=DIGEST_BYTES).hexdigest()


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=DIGEST_BYTES).hexdigest()


def tree_digest(root: Path, *, skip: Iterable[Path] = (), skip_compiled: bool = False) -> str:
    """Every file below ``root`` (names and bytes); an absent folder has a digest too.
    ``skip_compiled``: leave out Python's bytecode caches, which appear whenever a module is first
    imported after a change and say nothing about what a page shows."""
    skipped = [path.resolve() for path in skip]
    hasher = hashlib.blake2b(digest_size=DIGEST_BYTES)
    if root.is_dir():
        for path in sorted(root.rglob("*")):
            if not path.is_file() or any(path.resolve().is_relative_to(folder) for folder in skipped):
                continue
            if skip_compiled and ("__pycache__" in path.parts or path.suffix == ".pyc"):
                continue
            hasher.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
            hasher.update(hashlib.blake2b(path.read_bytes(), digest_size=DIGEST_BYTES).digest())
    return hasher.hexdigest()


@cache
def package_digest(package_dir: str) -> str:
    """The source of an installed package of ours (code, templates, data): a change to any file
    of it means pages may render differently, even without a version bump."""
    return tree_digest(Path(package_dir), skip_compiled=True)


@cache
def versions_digest(*distributions: str) -> str:
    found = []
    for name in distributions:
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            found.append((name, None))
    return digest(found)
