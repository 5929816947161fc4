"""What every generated page shares, as one digest: if it changes, nothing is reused.

Computed from the loaded MkDocs configuration before any plugin changes it, so ``run_build``
(deciding whether anything changed at all) and the plugin (deciding per page) agree.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig

import commit_digest
import commit_digest_mkdocs
from commit_digest.errors import CommitDigestError
from commit_digest.settings import PLUGIN_NAME
from commit_digest.site.build.incremental import shared_digest
from commit_digest.site.fingerprint import digest, package_digest, text_digest, tree_digest, versions_digest
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.sample_note import SAMPLE_META

# Config keys that do not change what a page looks like (or are hashed by content instead).
_NOT_OUTPUT = frozenset({"site_dir", "docs_dir", "config_file_path", "strict", "watch", "dev_addr", "plugins", "theme"})
# Plugin options that say where things are, not what they are.
_PLUGIN_LOCATIONS = frozenset({"cache_dir"})
_DISTRIBUTIONS = (
    "commit-digest",
    "mkdocs",
    "mkdocs-material",
    "mkdocs-gen-files",
    "markdown",
    "pymdown-extensions",
    "jinja2",
    "markdown-it-py",
    "nh3",
    "pydantic",
)


def config_digest(config: MkDocsConfig) -> str:
    values: dict[str, Any] = {key: value for key, value in config.items() if key not in _NOT_OUTPUT}
    theme = config.theme
    values["theme"] = {"name": theme.name, **dict(theme.items())}
    values["plugins"] = {
        name: {key: value for key, value in plugin.config.items() if key not in _PLUGIN_LOCATIONS}
        for name, plugin in config.plugins.items()
    }
    return digest(values)


def _sample_note_text(cache_dir: Path) -> str:
    if not cache_dir.is_dir():
        return ""
    try:
        with AnalysisStore(cache_dir) as store:
            return str(store.get_meta(SAMPLE_META) or "")
    except CommitDigestError:
        return ""  # the build itself says what is wrong with the store


def shared_inputs_digest(config: MkDocsConfig) -> str:
    """Configuration, our code, library versions, hand-written docs, theme overrides, taxonomy file."""
    installed = Path(sysconfig.get_paths()["purelib"]).resolve()
    trees = [tree_digest(Path(config.docs_dir))]
    for folder in config.theme.dirs:
        # A packaged theme is covered by its version; an override folder by its content.
        if not Path(folder).resolve().is_relative_to(installed):
            trees.append(tree_digest(Path(folder)))
    plugin = config.plugins.get(PLUGIN_NAME)
    base = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
    taxonomy_file = plugin.config.get("taxonomy_file") if plugin is not None else None
    if plugin is not None and plugin.config.get("cache_dir"):
        # Every page says when it shows sample data: a store that gains or loses the note is
        # a change of every page.
        trees.append(_sample_note_text(base / plugin.config["cache_dir"]))
    if taxonomy_file:
        path = base / taxonomy_file
        trees.append(text_digest(path.read_text(encoding="utf-8")) if path.is_file() else f"missing {path}")
    code = [
        package_digest(str(Path(commit_digest.__file__).parent)),
        package_digest(str(Path(commit_digest_mkdocs.__file__).parent)),
    ]
    versions = versions_digest(*_DISTRIBUTIONS)
    return shared_digest(config=config_digest(config), code=code, versions=versions, trees=trees)
