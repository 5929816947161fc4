"""Run a MkDocs build of the digest site from Python, with the store chosen by the caller.

``commit-digest build`` and ``commit-digest demo`` call ``run_build``; they import this module
lazily, so importing the CLI never imports MkDocs.

A site in several languages is one MkDocs build per language into the same fresh folder: the
default language at its root, each other one under its code (en/).

The build writes into a fresh folder beside the site and publishes it only when it succeeded,
so a failed strict build, a full disk, or a crash or a kill while building, never changes the
published site. A first build, a full one, or one whose shared inputs changed is swapped in whole
(one exchange of the two folders; ``site.build.swap``). Any other build wrote only what changed:
it is moved into the published site, and what the build no longer makes is deleted, after a
journal beside the site says so — a publication cut short is finished by the next build. A
night's publication so costs what changed (a few hundred renames), not a copy of the archive's
pages. A site folder that is a mount point is never renamed: the build is staged inside it and
moved in entry by entry. What is about to be published is measured first: a site past
``site_size_limit`` is not published at all (``site.build.size_guard``).

One build at a time per site folder (``site.build.builder_lock``): only the holder of the lock
touches the folders beside the site, so a build never removes another's staging folder. A store
that is missing, or holds far fewer commits than the published site shows, is refused before
anything is built (``site.build.shrink_guard``).
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import tempfile
from collections import Counter
from datetime import date, datetime
from functools import cached_property, partial
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import MkDocsException

from commit_digest.api import Digest
from commit_digest.errors import CommitDigestError, InputError
from commit_digest.settings import PLUGIN_NAME, DigestSettings, Language, settings_from_mapping
from commit_digest.site.build.builder_lock import holding, site_lock, site_workspace
from commit_digest.site.build.incremental import BuildManifest, read_manifest
from commit_digest.site.build.output import write_status
from commit_digest.site.build.publication import JOURNAL, Changes, publish, publish_in_place, remove_leftovers
from commit_digest.site.build.shrink_guard import check_store, published_commits
from commit_digest.site.build.size_guard import check_site_size, site_size
from commit_digest.site.build.swap import STAGING
from commit_digest.site.languages import language_root
from commit_digest.site.model.followed import site_last_fetch
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest_mkdocs.fingerprint import shared_inputs_digest

logger = logging.getLogger("mkdocs.plugins.commit_digest.build")



class SiteBuildError(CommitDigestError):
    """MkDocs could not build the site (configuration, plugin or strict-mode warnings), or the
    site could not be written (a full disk)."""


def run_build(
    config_file: Path,
    *,
    cache_dir: Path | None = None,
    site_dir: Path | None = None,
    strict: bool = False,
    full: bool = False,
    language: Language | None = None,
    allow_shrink: bool = False,
    wait: float = 0.0,
) -> Path:
    """Builds the site described by ``config_file``; returns the folder written.

    ``cache_dir`` replaces the plugin's store (relative paths are taken from the current
    directory, as a command-line path is); ``site_dir`` replaces the output folder; ``language``
    builds the site in that one language instead of the plugin's ``language``/``languages``.
    A site in several languages is one build per language: the default at the root, each other
    under its code (en/), all published together.
    Unless ``full``, pages whose inputs did not change are taken from the published site, and
    when nothing changed at all only the status files are renewed.
    A store that is missing or holds far fewer commits than the published site shows is refused
    unless ``allow_shrink``; another build of the same site folder is waited for up to ``wait``
    seconds, then refused.
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
    _check_site_folder(target)
    with holding([site_lock(target)], wait=wait):
        remove_leftovers(target)
        builds[0].check_store(target, allow_shrink=allow_shrink)
        try:
            return _build_and_publish(config_file, builds, target, full=full)
        except OSError as error:  # a full disk, a folder that cannot be written: one line
            raise SiteBuildError(_write_fault(error, target)) from error


def check_site_config(config_file: Path, *, site_dir: Path | None = None) -> DigestSettings:
    """The site's whole configuration read and checked as a build would read it, building nothing:
    MkDocs' own settings (theme, folders, extensions, every plugin's options) and the digest's.
    A problem is one ``InputError`` naming the file and the setting. Returns the site's settings.

    ``nightly`` calls this before it fetches or pays for anything, so that a night whose build
    could never run stops before it spends."""
    if not config_file.is_file():
        raise InputError(f"config file {config_file} does not exist")
    overrides: dict[str, object] = {}
    if site_dir is not None:
        overrides["site_dir"] = str(site_dir.resolve())
    errors = _FirstRecord(logging.ERROR)
    mkdocs_logger = logging.getLogger("mkdocs")
    mkdocs_logger.addHandler(errors)
    try:
        config = _load(config_file, overrides, None, None)
    except SiteBuildError as error:
        raise InputError(f"{config_file}: {errors.first}" if errors.first else str(error)) from error
    finally:
        mkdocs_logger.removeHandler(errors)
    _check_site_folder(Path(config.site_dir))
    return _settings(config)


def _build_and_publish(config_file: Path, builds: list[_LanguageBuild], target: Path, *, full: bool) -> Path:
    if not full:
        # Nothing to render in any language: each renews its status (the footer's build time) only.
        renewals = [(build_of, facts) for build_of in builds if (facts := build_of.unchanged_status()) is not None]
        if len(renewals) == len(builds):
            builds[0].check_size(site_size(target), target, built=False)
            for build_of, facts in renewals:
                build_of.renew_status(facts)
            logger.info("commit-digest: nothing changed since the build of %s; only its status is renewed", target)
            return target
    workspace = site_workspace(target)
    workspace.mkdir(parents=True, exist_ok=True)
    # A site whose every language's build said what it wrote is updated in place: the build
    # writes only what changed, and publishing moves that in (work in proportion to the change,
    # not to the archive). Any other is replaced whole.
    in_place = not full and target.is_dir() and all(build_of.previous_written() for build_of in builds)
    staging = Path(tempfile.mkdtemp(prefix=STAGING.format(name=target.name), dir=workspace))
    try:
        # mkdtemp makes it 0700: published as it is, a web server running as another user answers 403.
        staging.chmod(0o777 & ~_umask())
        # The default first: MkDocs empties its site_dir, and the others' live inside it.
        for build_of in builds:
            build_of.run(config_file, staging, full=full, in_place=in_place)
        changes = Changes.merged([build_of.changes(staging) for build_of in builds]) if in_place else None
        # Measured before anything is published: a site too large leaves the published one as it was.
        size = site_size(staging) if changes is None else changes.size_after(staging, target)
        builds[0].check_size(size, target, built=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if changes is not None:
        publish_in_place(staging, target, changes)
    else:
        publish(staging, target)
    return target


def _check_site_folder(target: Path) -> None:
    """A site path that is a file (or anything else but a folder) is never deleted to make room."""
    if os.path.lexists(target) and not target.is_dir():
        raise InputError(f"the site folder {target} is not a folder: not built, and left as it is; choose --site-dir")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_fault(error: OSError, target: Path) -> str:
    """One line for a write that failed: what, where, and that the published site is intact
    (or, cut short in its publication, finished by the next build)."""
    where = f" ({error.filename})" if error.filename else ""
    journal = site_workspace(target) / JOURNAL.format(name=target.name)
    state = (
        f"the publication of {target} was cut short; the next build finishes it"
        if journal.exists()
        else f"{target} is unchanged"
    )
    full = error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
    remedy = "; free space on its disk and build again" if full else ""
    return f"cannot write the site: {error.strerror or error}{where}; {state}{remedy}"


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

    @cached_property
    def _previous(self) -> BuildManifest | None:
        """The published build's manifest (read once: at 15,000 commits it is 2 MB of JSON)."""
        return read_manifest(self.published) if self.published.is_dir() else None

    @cached_property
    def _shared(self) -> str:
        return shared_inputs_digest(self.config)

    def unchanged_status(self) -> dict[str, object] | None:
        """The status facts to renew when the published build has the same shared inputs and
        store revision as this one would (nothing to render); None when it must be built."""
        manifest = self._previous
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
        if manifest.shared != self._shared or manifest.store_revision != revision:
            return None
        # A fetch that found nothing new changes no record, but the footer says when it ran.
        return {**manifest.status, **({"last_fetch": last_fetch.isoformat()} if last_fetch else {})}

    def check_store(self, target: Path, *, allow_shrink: bool) -> None:
        """Refuses a store that is missing or holds far fewer commits than the published site
        shows (``site.build.shrink_guard``); bad options are left to the build to report."""
        try:
            store_dir = _settings(self.config).cache_dir
        except CommitDigestError:
            return
        stored = None
        if store_dir.is_dir():
            with AnalysisStore(store_dir) as store:
                stored = len(store)
        published = published_commits(target, self._previous.status if self._previous else None)
        check_store(store_dir, stored, published, target, allow_shrink=allow_shrink)

    def check_size(self, size: int, target: Path, *, built: bool) -> None:
        """Reports the site's size; warns near ``site_size_limit``, refuses a site past it."""
        settings = _settings(self.config)
        by_day = partial(self._commits_by_day, settings, built=built)
        today = datetime.now(settings.zone).date()
        check_site_size(size, settings.site_size_limit, by_day, today=today, published=target)

    def _commits_by_day(self, settings: DigestSettings, *, built: bool) -> dict[date, int]:
        """From this build's own index, else (nothing was built) from the store."""
        if built:  # the index's days, not its records: those are read from the store, now closed
            return {day.date: len(day.commits) for day in self.config.plugins[PLUGIN_NAME].digest().days()}
        with AnalysisStore(settings.cache_dir) as store:
            records = Digest(store, settings).records()
            return dict(Counter(record.commit.committed_at.astimezone(settings.zone).date() for record in records))

    def renew_status(self, facts: dict[str, object]) -> None:
        settings = _settings(self.config)
        write_status(self.published, facts, built_at=datetime.now(settings.zone), language=settings.language)

    def previous_written(self) -> bool:
        """Whether the published build of this language listed the files it wrote and shares
        this one's inputs (else nearly every page changes: the site is replaced whole, at once)."""
        return (
            self._previous is not None and self._previous.written is not None and self._previous.shared == self._shared
        )

    def changes(self, staging: Path) -> Changes:
        """What publishing this build in place of the previous one deletes and replaces."""
        built = self.config.plugins[PLUGIN_NAME].written_manifest
        assert built is not None and self._previous is not None  # written by the plugin; checked before
        folders = built.partition_folders()
        kept_partitions = tuple(folder + "/" for folder in folders)
        # Never a file of a partition this build keeps (it was listed when that was built).
        gone = [path for path in self._previous.files() - built.files() if not path.startswith(kept_partitions)]
        return Changes(
            delete_files=[self.root + path for path in sorted(gone)],
            delete_folders=[self.root + path for path in sorted(self._previous.partition_folders() - folders)],
            replace_folders=[self.root + path for path in sorted(folders) if (staging / self.root / path).is_dir()],
        )

    def run(self, config_file: Path, staging: Path, *, full: bool, in_place: bool = False) -> None:
        self.config.site_dir = str(staging / self.root)
        plugin = self.config.plugins[PLUGIN_NAME]
        plugin.previous_site_dir = None if full or not self.published.is_dir() else self.published
        plugin.previous_manifest = None if plugin.previous_site_dir is None else self._previous
        plugin.publish_in_place = in_place
        logger.info("building %s (%s) into %s", config_file, self.code, self.config.site_dir)
        warnings = _FirstRecord()
        mkdocs_logger = logging.getLogger("mkdocs")
        mkdocs_logger.addHandler(warnings)
        try:
            build(self.config)
        except MkDocsException as error:  # strict-mode aborts included
            raise SiteBuildError(
                f"mkdocs build of {config_file} ({self.code}) failed: {_cause(error, warnings.first)}; "
                f"{self.published} is unchanged"
            ) from error
        finally:
            mkdocs_logger.removeHandler(warnings)


class _FirstRecord(logging.Handler):
    """The first record of ``level`` or above, its first line: what a strict build that aborts was
    aborted for, or the configuration error MkDocs logged before its "Aborted with N errors"."""

    def __init__(self, level: int = logging.WARNING) -> None:
        super().__init__(level)
        self.first: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.first is None:
            self.first = record.getMessage().splitlines()[0] if record.getMessage() else None


def _cause(error: MkDocsException, first_warning: str | None) -> str:
    """What failed, not MkDocs' "Aborted with a BuildError!" (the cause is the error it replaced)
    or its bare count of strict-mode warnings (the first of them is named)."""
    cause = error.__context__ if isinstance(error.__context__, MkDocsException) else error
    text = str(cause.message if hasattr(cause, "message") else cause).strip()
    if "in strict mode" in text and first_warning:
        text += f" (the first: {first_warning})"
    return text


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
