"""Publishing a finished build: swapped in whole, or moved in place of the previous one with a
journal, and what a killed build left beside the site cleaned up by the next one.

Plain file work with no MkDocs in it. Only the holder of the site's lock (``builder_lock``)
calls these: no other build is running meanwhile.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

from commit_digest.site.build.builder_lock import site_workspace
from commit_digest.site.build.size_guard import size_after_publication
from commit_digest.site.build.swap import DELETING, RETIRED, STAGING, doomed, publish_whole

logger = logging.getLogger("mkdocs.plugins.commit_digest.build")

JOURNAL = ".{name}.publishing.json"


@dataclass
class Changes:
    """What an in-place publication does besides moving the staged files in (paths below the site)."""

    delete_files: list[str] = field(default_factory=list)
    delete_folders: list[str] = field(default_factory=list)
    replace_folders: list[str] = field(default_factory=list)  # search partitions built anew: moved whole

    @classmethod
    def merged(cls, changes: list[Changes]) -> Changes:
        return cls(
            [path for change in changes for path in change.delete_files],
            [path for change in changes for path in change.delete_folders],
            [path for change in changes for path in change.replace_folders],
        )

    def size_after(self, staging: Path, target: Path) -> int:
        """The size of ``target`` once ``staging`` is published in place with these changes."""
        folders = [*self.delete_folders, *self.replace_folders]
        return size_after_publication(target, staging, deleted_files=self.delete_files, deleted_folders=folders)


def publish_in_place(staging: Path, target: Path, changes: Changes) -> None:
    """Moves the staged files into the published site and deletes what the build no longer
    makes. A journal beside the site is written first: a publication cut short (a kill, a
    crash) is finished by the next build before anything else (``remove_leftovers``)."""
    journal = site_workspace(target) / JOURNAL.format(name=target.name)
    document = {"staging": staging.name, **dataclasses.asdict(changes)}
    partial = journal.with_name(journal.name + ".partial")
    try:
        partial.write_text(json.dumps(document), encoding="utf-8")
        partial.replace(journal)
    except OSError:  # a full disk: nothing is published, and the staged build makes room again
        partial.unlink(missing_ok=True)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finish_publication(target, journal)


def finish_publication(target: Path, journal: Path) -> None:
    """Does (or finishes) what the journal says; every step may be done twice."""
    document = json.loads(journal.read_text(encoding="utf-8"))
    staging = journal.parent / document["staging"]
    for relative in document["replace_folders"]:
        source, destination = staging / relative, target / relative
        if source.is_dir():
            shutil.rmtree(destination, ignore_errors=True)
            destination.parent.mkdir(parents=True, exist_ok=True)
            source.rename(destination)
    for folder, _folders, files in os.walk(staging):
        source = Path(folder)
        destination = target / source.relative_to(staging)
        if files:
            destination.mkdir(parents=True, exist_ok=True)
        for name in files:
            (source / name).replace(destination / name)
    for relative in document["delete_files"]:
        path = target / relative
        path.unlink(missing_ok=True)
        _remove_empty_parents(path.parent, target)
    for relative in document["delete_folders"]:
        shutil.rmtree(target / relative, ignore_errors=True)
    shutil.rmtree(staging, ignore_errors=True)
    journal.unlink()


def _remove_empty_parents(folder: Path, root: Path) -> None:
    """A deleted page's folder (commits/<sha>/), and its parents while empty, up to ``root``."""
    while folder != root and folder.is_relative_to(root):
        try:
            folder.rmdir()
        except OSError:  # not empty, or already gone
            return
        folder = folder.parent


def publish(staging: Path, target: Path) -> None:
    """Swaps the finished build in whole (``site.build.swap``: ``target`` is never absent, never
    half written) and removes the previous site in the background."""
    previous = publish_whole(staging, target)
    if previous is not None:
        remove_in_background(previous)


def remove_in_background(doomed: Path) -> None:
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


def remove_leftovers(target: Path) -> None:
    """Folders a killed build left behind; a retired site is restored if the swap was cut short,
    a publication in place that was cut short is finished. Called with the site's lock held:
    no other build is running, so whatever is staged belongs to one that is gone."""
    workspace = site_workspace(target)
    if not workspace.is_dir():
        return
    journal = workspace / JOURNAL.format(name=target.name)
    if journal.is_file() and target.is_dir():
        logger.info("commit-digest: finishing the publication of %s that was cut short", target)
        finish_publication(target, journal)
    for leftover in sorted(workspace.glob(RETIRED.format(name=target.name) + "*")):
        if not target.exists():
            leftover.rename(target)
        else:
            shutil.rmtree(leftover, ignore_errors=True)
    # A killed build's output, or the previous site when a kill came right after the exchange:
    # either may be a whole site. Removed in the background as a retired one is.
    for leftover in workspace.glob(STAGING.format(name=target.name) + "*"):
        doomed(leftover, target)
    # A previous site still being removed (the last build's background removal, or one cut
    # short): removed in the background again, never by the build waiting for it.
    for leftover in workspace.glob(DELETING.format(name=target.name) + "*"):
        remove_in_background(leftover)
