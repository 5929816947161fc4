"""Run a MkDocs build of the digest site from Python, with the store chosen by the caller.

``commit-digest build`` and ``commit-digest demo`` call ``run_build``; they import this module
lazily, so importing the CLI never imports MkDocs.

The build writes into a fresh folder beside the site and swaps it in only when it succeeded,
so a crash, a kill or a failed strict build never leaves a published site that mixes old and
new pages: readers see the old site until the new one is complete.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import tempfile
import threading
from datetime import datetime
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import MkDocsException

from commit_digest.errors import CommitDigestError, InputError
from commit_digest.fetch import last_fetch_time
from commit_digest.settings import PLUGIN_NAME, settings_from_mapping
from commit_digest.site.incremental import read_manifest
from commit_digest.site.output import write_status
from commit_digest.store import AnalysisStore
from commit_digest_mkdocs.fingerprint import shared_inputs_digest

logger = logging.getLogger("mkdocs.plugins.commit_digest.build")

_STAGING = ".{name}.building-"
_RETIRED = ".{name}.old-"
_DELETING = ".{name}.deleting-"


class SiteBuildError(CommitDigestError):
    """MkDocs could not build the site (configuration, plugin or strict-mode warnings)."""


def run_build(
    config_file: Path,
    *,
    cache_dir: Path | None = None,
    site_dir: Path | None = None,
    strict: bool = False,
    full: bool = False,
) -> Path:
    """Builds the site described by ``config_file``; returns the folder written.

    ``cache_dir`` replaces the plugin's store (relative paths are taken from the current
    directory, as a command-line path is); ``site_dir`` replaces the output folder.
    Unless ``full``, pages whose inputs did not change are taken from the published site, and
    when nothing changed at all only the status file is renewed.
    """
    if not config_file.is_file():
        raise InputError(f"config file {config_file} does not exist")
    overrides: dict[str, object] = {"strict": strict}
    if site_dir is not None:
        overrides["site_dir"] = str(site_dir.resolve())
    try:
        config = load_config(config_file=str(config_file), **overrides)
    except MkDocsException as error:
        raise SiteBuildError(f"cannot load {config_file}: {error}") from error
    if PLUGIN_NAME not in config.plugins:
        raise InputError(f"{config_file} does not enable the {PLUGIN_NAME} plugin under 'plugins:'")
    if cache_dir is not None:
        config.plugins[PLUGIN_NAME].config.cache_dir = str(cache_dir.resolve())
    target = Path(config.site_dir)
    _remove_leftovers(target)
    plugin = config.plugins[PLUGIN_NAME]
    if not full and _nothing_changed(config, target):
        logger.info("commit-digest: nothing changed since the build of %s; only its status is renewed", target)
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=_STAGING.format(name=target.name), dir=target.parent))
    config.site_dir = str(staging)
    plugin.previous_site_dir = None if full or not target.is_dir() else target
    logger.info("building %s into %s (published at %s when complete)", config_file, staging, target)
    try:
        build(config)
    except MkDocsException as error:  # strict-mode aborts included
        shutil.rmtree(staging, ignore_errors=True)
        raise SiteBuildError(f"mkdocs build of {config_file} failed: {error}; {target} is unchanged") from error
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _publish(staging, target)
    return target


def _nothing_changed(config: MkDocsConfig, target: Path) -> bool:
    """Same shared inputs and same store revision as the published build: renew its status only."""
    manifest = read_manifest(target)
    if manifest is None or manifest.store_revision is None:
        return False
    plugin = config.plugins[PLUGIN_NAME]
    base = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
    try:
        settings = settings_from_mapping(plugin.config.digest_options(), where=str(config.config_file_path))
        settings = settings.relative_to(base)
        if not settings.cache_dir.is_dir():
            return False
        with AnalysisStore(settings.cache_dir) as store:
            revision = store.revision()
            last_fetch = last_fetch_time(store, settings.repository)
    except CommitDigestError:
        return False  # the real build reports what is wrong
    if manifest.shared != shared_inputs_digest(config) or manifest.store_revision != revision:
        return False
    # A fetch that found nothing new changes no record, but the footer says when it ran.
    facts = {**manifest.status, **({"last_fetch": last_fetch.isoformat()} if last_fetch else {})}
    write_status(target, facts, built_at=datetime.now(settings.zone), language=settings.language)
    return True


def _publish(staging: Path, target: Path) -> None:
    """Swaps the finished build in: two renames, never a half-written folder at ``target``."""
    retired = None
    if target.exists():
        retired = Path(tempfile.mkdtemp(prefix=_RETIRED.format(name=target.name), dir=target.parent))
        retired.rmdir()
        target.rename(retired)
    staging.rename(target)
    if retired is not None:
        _delete_in_background(retired)


def _delete_in_background(folder: Path) -> None:
    """Removes the previous site without making the build wait for tens of thousands of
    unlinks; whatever an interrupted removal leaves, the next build removes first."""
    doomed = folder.with_name(folder.name.replace(".old-", ".deleting-", 1))
    folder.rename(doomed)
    remover = shutil.which("rm")
    if remover is None:
        shutil.rmtree(doomed, ignore_errors=True)
        return
    process = subprocess.Popen(
        [remover, "-rf", "--", str(doomed)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # it finishes even when this process exits first
    )
    # Reaped by a daemon thread: a long-lived caller keeps no zombie, a short one does not wait.
    threading.Thread(target=process.wait, name="remove-previous-site", daemon=True).start()


def _remove_leftovers(target: Path) -> None:
    """Folders a killed build left behind; a retired site is restored if the swap was cut short."""
    if not target.parent.is_dir():
        return
    for leftover in sorted(target.parent.glob(_RETIRED.format(name=target.name) + "*")):
        if not target.exists():
            leftover.rename(target)
        else:
            shutil.rmtree(leftover, ignore_errors=True)
    for pattern in (_STAGING, _DELETING):
        for leftover in target.parent.glob(pattern.format(name=target.name) + "*"):
            shutil.rmtree(leftover, ignore_errors=True)
