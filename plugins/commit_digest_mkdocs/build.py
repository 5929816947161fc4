"""Run a MkDocs build of the digest site from Python, with the store chosen by the caller.

``commit-digest build`` and ``commit-digest demo`` call ``run_build``; they import this module
lazily, so importing the CLI never imports MkDocs.

A site in several languages is one MkDocs build per language into the same fresh folder: the
default language at its root, each other one under its code (en/).

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
from commit_digest.settings import PLUGIN_NAME, DigestSettings, Language, settings_from_mapping
from commit_digest.site.followed import site_last_fetch
from commit_digest.site.incremental import read_manifest
from commit_digest.site.languages import language_root
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
    language: Language | None = None,
) -> Path:
    """Builds the site described by ``config_file``; returns the folder written.

    ``cache_dir`` replaces the plugin's store (relative paths are taken from the current
    directory, as a command-line path is); ``site_dir`` replaces the output folder; ``language``
    builds the site in that one language instead of the plugin's ``language``/``languages``.
    A site in several languages is one build per language: the default at the root, each other
    under its code (en/), all published together.
    Unless ``full``, pages whose inputs did not change are taken from the published site, and
    when nothing changed at all only the status files are renewed.
    """
    if not config_file.is_file():
        raise InputError(f"config file {config_file} does not exist")
    overrides: dict[str, object] = {"strict": strict}
    if site_dir is not None:
        overrides["site_dir"] = str(site_dir.resolve())
    first = _load(config_file, overrides, cache_dir, language)
    target = Path(first.site_dir)
    languages = _site_languages(first)
    builds = [
        _LanguageBuild(
            code,
            first if code == languages[0] else _load(config_file, overrides, cache_dir, language),
            languages=languages,
            target=target,
        )
        for code in languages
    ]
    _remove_leftovers(target)
    if not full:
        # Nothing to render in any language: each renews its status (the footer's build time) only.
        renewals = [(build_of, facts) for build_of in builds if (facts := build_of.unchanged_status()) is not None]
        if len(renewals) == len(builds):
            for build_of, facts in renewals:
                build_of.renew_status(facts)
            logger.info("commit-digest: nothing changed since the build of %s; only its status is renewed", target)
            return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=_STAGING.format(name=target.name), dir=target.parent))
    try:
        # The default first: MkDocs empties its site_dir, and the others' live inside it.
        for build_of in builds:
            build_of.run(config_file, staging, full=full)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _publish(staging, target)
    return target


class _LanguageBuild:
    """One language's MkDocs build of the site: its configuration and where it is published.

    The page language, the site's languages (for the selector) and the URL are set on the
    configuration here, before any digest of it is taken, so this module and the plugin agree."""

    def __init__(self, code: Language, config: MkDocsConfig, *, languages: tuple[Language, ...], target: Path) -> None:
        self.code = code
        self.config = config
        plugin = config.plugins[PLUGIN_NAME]
        plugin.site_languages = languages
        if len(languages) > 1:
            plugin.config.language = code
            plugin.config.languages = [code, *(other for other in languages if other != code)]
        # Below the site's root: "" for the default language, "en/" for another.
        self.root = language_root(code, languages)
        if self.root and config.site_url:
            config.site_url += self.root
        self.published = target / self.root

    def unchanged_status(self) -> dict[str, object] | None:
        """The status facts to renew when the published build has the same shared inputs and
        store revision as this one would (nothing to render); None when it must be built."""
        manifest = read_manifest(self.published)
        if manifest is None or manifest.store_revision is None:
            return None
        try:
            settings = _settings(self.config)
            if not settings.cache_dir.is_dir():
                return None
            with AnalysisStore(settings.cache_dir) as store:
                revision = store.revision()
                last_fetch = site_last_fetch(store, settings)
        except CommitDigestError:
            return None  # the real build reports what is wrong
        if manifest.shared != shared_inputs_digest(self.config) or manifest.store_revision != revision:
            return None
        # A fetch that found nothing new changes no record, but the footer says when it ran.
        return {**manifest.status, **({"last_fetch": last_fetch.isoformat()} if last_fetch else {})}

    def renew_status(self, facts: dict[str, object]) -> None:
        settings = _settings(self.config)
        write_status(self.published, facts, built_at=datetime.now(settings.zone), language=settings.language)

    def run(self, config_file: Path, staging: Path, *, full: bool) -> None:
        self.config.site_dir = str(staging / self.root)
        plugin = self.config.plugins[PLUGIN_NAME]
        plugin.previous_site_dir = None if full or not self.published.is_dir() else self.published
        logger.info("building %s (%s) into %s", config_file, self.code, self.config.site_dir)
        try:
            build(self.config)
        except MkDocsException as error:  # strict-mode aborts included
            raise SiteBuildError(
                f"mkdocs build of {config_file} ({self.code}) failed: {error}; {self.published} is unchanged"
            ) from error


def _load(
    config_file: Path, overrides: dict[str, object], cache_dir: Path | None, language: Language | None
) -> MkDocsConfig:
    try:
        config = load_config(config_file=str(config_file), **overrides)
    except MkDocsException as error:
        raise SiteBuildError(f"cannot load {config_file}: {error}") from error
    if PLUGIN_NAME not in config.plugins:
        raise InputError(f"{config_file} does not enable the {PLUGIN_NAME} plugin under 'plugins:'")
    options = config.plugins[PLUGIN_NAME].config
    if cache_dir is not None:
        options.cache_dir = str(cache_dir.resolve())
    if language is not None:
        options.language, options.languages = language, None
    return config


def _site_languages(config: MkDocsConfig) -> tuple[Language, ...]:
    """The site's languages, the default first."""
    try:
        return _settings(config).languages
    except CommitDigestError:
        # One build, whose plugin reports the bad options in its own words.
        return (config.plugins[PLUGIN_NAME].config.language or "zh",)


def _settings(config: MkDocsConfig) -> DigestSettings:
    plugin = config.plugins[PLUGIN_NAME]
    base = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
    settings = settings_from_mapping(plugin.config.digest_options(), where=str(config.config_file_path))
    return settings.relative_to(base)


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
    unlinks; whatever an interrupted removal leaves, the next build removes in the background too."""
    doomed = folder.with_name(folder.name.replace(".old-", ".deleting-", 1))
    folder.rename(doomed)
    _remove_in_background(doomed)


def _remove_in_background(doomed: Path) -> None:
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
    for leftover in target.parent.glob(_STAGING.format(name=target.name) + "*"):
        shutil.rmtree(leftover, ignore_errors=True)
    # A previous site still being removed (the last build's background removal, or one cut
    # short): removed in the background again, never by the build waiting for it.
    for leftover in target.parent.glob(_DELETING.format(name=target.name) + "*"):
        _remove_in_background(leftover)
