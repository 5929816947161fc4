"""Incremental builds: what the previous build made from which inputs, and what can be reused.

Each build writes a manifest into the site it publishes: the digest of the inputs every page
shares (code, versions, configuration, theme overrides, hand-written pages, taxonomy), the
store's revision, and per generated page and per search partition the digest of its own
inputs and where its output lies. The next build reuses an output only when the shared
digest and the output's own digest are both unchanged; anything else is rendered again.
"""

from __future__ import annotations

import gzip
import logging
import os
import shutil
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from commit_digest.site import paths
from commit_digest.site.fingerprint import digest

logger = logging.getLogger("mkdocs.plugins.commit_digest.incremental")

MANIFEST_PATH = f"{paths.STATE_DIR}/build.json"
MANIFEST_FORMAT = 1


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _inside_the_site(path: str) -> str:
    """A path the manifest gives relative to its site must stay inside it: the next build copies,
    moves over and deletes what the manifest names, and the manifest is read from the published
    site, which a build does not write alone."""
    parts = PurePosixPath(path).parts
    if not parts or path.startswith("/") or "\\" in path or "\0" in path or ".." in parts:
        raise ValueError(f"not a path inside the site: {path!r}")
    return path


SitePath = Annotated[str, AfterValidator(_inside_the_site)]


class OutputRecord(_Strict):
    digest: str
    output: SitePath  # relative to the site: a file (page) or a folder (search partition)
    details: dict[str, object] = {}


class BuildManifest(_Strict):
    format: int = MANIFEST_FORMAT
    shared: str
    store_revision: str | None = None
    pages: dict[str, OutputRecord] = {}
    search: dict[str, OutputRecord] = {}
    status: dict[str, object] = {}
    # Every file this build wrote, relative to its site (pages and partitions it reused are in
    # ``pages`` and ``search``). None from a build that did not say: the next one cannot tell
    # which of its files are gone, so it builds a whole new site instead of updating this one.
    written: list[SitePath] | None = None

    def files(self) -> set[str]:
        """The files of the site this build published, but those of its search partitions."""
        partitions = tuple(record.output + "/" for record in self.search.values())
        found = {path for path in self.written or () if not path.startswith(partitions)}
        found.update(record.output for record in self.pages.values())
        return found

    def partition_folders(self) -> set[str]:
        return {record.output for record in self.search.values()}


def read_manifest(site_dir: Path) -> BuildManifest | None:
    """The manifest of a previous build, or None (no site, a site by another tool, a bad file)."""
    path = site_dir / MANIFEST_PATH
    if not path.is_file():
        return None
    try:
        manifest = BuildManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError, UnicodeDecodeError) as error:
        logger.info("commit-digest: ignoring the previous build's manifest %s: %s", path, error)
        return None
    return manifest if manifest.format == MANIFEST_FORMAT else None


def write_manifest(site_dir: Path, manifest: BuildManifest) -> None:
    path = site_dir / MANIFEST_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(manifest.model_dump_json(indent=0) + "\n", encoding="utf-8")


def written_files(site_dir: Path, *, skip: Iterable[str] = ()) -> list[str]:
    """Every file below ``site_dir`` (relative, sorted), but below the top folders in ``skip``."""
    skipped = set(skip)
    found: list[str] = []
    for folder, folders, files in os.walk(site_dir):
        relative = Path(folder).relative_to(site_dir).as_posix()
        prefix = "" if relative == "." else relative + "/"
        if not prefix:
            folders[:] = [name for name in folders if name not in skipped]
        found.extend(prefix + name for name in files)
    return sorted(found)


def shared_digest(*, config: str, code: Iterable[str], versions: str, trees: Iterable[str]) -> str:
    """Inputs every page shares: when this changes, nothing of the previous build is reused."""
    return digest("shared", MANIFEST_FORMAT, config, sorted(code), versions, list(trees))


class PreviousBuild:
    """The previous site and its manifest, answering "may this output be reused?"."""

    def __init__(self, site_dir: Path | None, manifest: BuildManifest | None, shared: str) -> None:
        usable = site_dir is not None and manifest is not None and manifest.shared == shared
        self.site_dir = site_dir if usable else None
        self.manifest = manifest if usable else None
        self.reused_pages = 0
        self.reused_partitions = 0

    @property
    def usable(self) -> bool:
        return self.manifest is not None

    def page(self, src_uri: str, page_digest: str) -> Path | None:
        """The previous output file of a page whose inputs are unchanged."""
        if self.site_dir is None or self.manifest is None:
            return None
        record = self.manifest.pages.get(src_uri)
        if record is None or record.digest != page_digest:
            return None
        # Asked for every page of the archive: a string path and one stat, no Path made first.
        found = os.path.join(self.site_dir, record.output)  # noqa: PTH118
        if not os.path.isfile(found):  # noqa: PTH113
            return None
        self.reused_pages += 1
        return Path(found)

    def partition(self, part_id: str, part_digest: str) -> tuple[Path, dict[str, object]] | None:
        """The previous folder and manifest details of a search partition whose inputs are unchanged."""
        records = self.manifest.search if self.manifest else {}
        found = self._match(records, part_id, part_digest)
        if found is not None and found.is_dir():
            self.reused_partitions += 1
            return found, records[part_id].details
        return None

    def _match(self, records: dict[str, OutputRecord], key: str, wanted: str) -> Path | None:
        if self.site_dir is None:
            return None
        record = records.get(key)
        if record is None or record.digest != wanted:
            return None
        return self.site_dir / record.output


def copy_folder(source: Path, target: Path) -> None:
    """A previous output folder into the new site (hard links where the file system allows:
    outputs are never written in place, so old and new sites cannot affect each other)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copytree(source, target, copy_function=link_or_copy)
    except FileExistsError:
        shutil.rmtree(target)
        shutil.copytree(source, target, copy_function=link_or_copy)


def link_or_copy(source: str | Path, target: str | Path) -> None:
    """A hard link where the file system allows, else a copy: outputs are never written in
    place, so a link shares bytes safely between the old site and the new one."""
    try:
        Path(target).hardlink_to(source)
    except OSError:
        shutil.copy2(source, target)


def sitemap(urls: Iterable[str]) -> tuple[bytes, bytes]:
    """sitemap.xml and its gzip, the same bytes for the same pages (no dates, no time stamps)."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for url in sorted(set(urls)):
        escaped = url.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        lines.append(f"    <url>\n         <loc>{escaped}</loc>\n    </url>")
    lines.append("</urlset>")
    xml = ("\n".join(lines) + "\n").encode("utf-8")
    return xml, gzip.compress(xml, mtime=0)
