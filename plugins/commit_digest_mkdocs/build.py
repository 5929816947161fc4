"""Run a MkDocs build of the digest site from Python, with the store chosen by the caller.

``commit-digest build`` and ``commit-digest demo`` call ``run_build``; they import this module
lazily, so importing the CLI never imports MkDocs.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from commit_digest.errors import CommitDigestError, InputError
from commit_digest.settings import PLUGIN_NAME

logger = logging.getLogger("mkdocs.plugins.commit_digest.build")


class SiteBuildError(CommitDigestError):
    """MkDocs could not build the site (configuration, plugin or strict-mode warnings)."""


def run_build(
    config_file: Path,
    *,
    cache_dir: Path | None = None,
    site_dir: Path | None = None,
    strict: bool = False,
) -> Path:
    """Builds the site described by ``config_file``; returns the folder written.

    ``cache_dir`` replaces the plugin's store (relative paths are taken from the current
    directory, as a command-line path is); ``site_dir`` replaces the output folder.
    """
    if not config_file.is_file():
        raise InputError(f"config file {config_file} does not exist")
    overrides: dict[str, object] = {"strict": strict}
    if site_dir is not None:
        overrides["site_dir"] = str(site_dir.resolve())
    try:
        config = load_config(config_file=str(config_file), **overrides)
        if PLUGIN_NAME not in config.plugins:
            raise InputError(f"{config_file} does not enable the {PLUGIN_NAME} plugin under 'plugins:'")
        if cache_dir is not None:
            config.plugins[PLUGIN_NAME].config.cache_dir = str(cache_dir.resolve())
        logger.info("building %s into %s", config_file, config.site_dir)
        build(config)
    except MkDocsException as error:
        raise SiteBuildError(f"mkdocs build of {config_file} failed: {error}") from error
    return Path(config.site_dir)
