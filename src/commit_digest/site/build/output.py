"""The files a build writes beside the pages: the search index, the status, the sitemap, the
manifest; and the pages an incremental build takes from the previous site.

Plain file writing with no MkDocs in it, so another site generator could drive the same steps.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.search import search_names
from commit_digest.search.documents import search_document
from commit_digest.search.index import PartitionInfo, SearchNames, bucket_files, build_partition, partitions_of
from commit_digest.search.index import manifest as search_manifest
from commit_digest.search.titles import TITLES_FILE, title_files
from commit_digest.site import paths
from commit_digest.site.build.incremental import (
    BuildManifest,
    OutputRecord,
    PreviousBuild,
    copy_folder,
    link_or_copy,
    sitemap,
)
from commit_digest.site.build.status import STATUS_FILE, status_document
from commit_digest.site.fingerprint import digest
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.index import SiteIndex
from commit_digest.site.parallel import Started
from commit_digest.words import counted

logger = logging.getLogger("mkdocs.plugins.commit_digest.output")


def link_reused_pages(site_dir: Path, reused: Iterable[tuple[Path, str]]) -> None:
    """Pages whose inputs did not change, from the previous site: (its file, path in the new site)."""
    for previous, output in reused:
        target = site_dir / output
        target.parent.mkdir(parents=True, exist_ok=True)
        link_or_copy(previous, target)


def write_status(site_dir: Path, facts: dict[str, object], *, built_at: datetime, language: str) -> None:
    """status.json, replaced in one step (a no-change build rewrites only this file)."""
    document = status_document(facts, built_at=built_at, language=language)
    temporary = site_dir / (STATUS_FILE + ".partial")
    temporary.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    temporary.replace(site_dir / STATUS_FILE)


def write_sitemap(site_dir: Path, urls: Iterable[str]) -> None:
    xml, compressed = sitemap(urls)
    (site_dir / "sitemap.xml").write_bytes(xml)
    (site_dir / "sitemap.xml.gz").write_bytes(compressed)


def write_files(target: Path, files: Iterable[tuple[str, bytes]]) -> int:
    """Writes (path under ``target``, content) pairs, making each folder once; returns how many."""
    folders: set[Path] = set()
    written = 0
    for relative, content in files:
        path = target / relative
        if path.parent not in folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            folders.add(path.parent)
        path.write_bytes(content)
        written += 1
    return written


def search_partitions(index: SiteIndex) -> Iterator[tuple[str, list[SiteCommit]]]:
    """The commits of each search partition, newest first (the order the index numbers them in)."""
    newest_first = (item for day in index.days for item in day.newest_first)
    return partitions_of(newest_first, lambda item: item.day)


def start_search_index(
    site_dir: Path,
    index: SiteIndex,
    taxonomy: Taxonomy,
    *,
    language: str,
    directory_urls: bool,
    previous: PreviousBuild,
    manifest: BuildManifest,
    workers: int = 1,
    in_place: bool = False,
) -> PendingSearchIndex:
    """Starts the sharded search index under search/ and returns what finishes it: a partition
    whose commits are unchanged is taken from the previous build (copied, unless the new site is
    published ``in_place`` of the previous one, where it already is), the others are built by
    ``workers`` processes, which start now, so the caller can write other files meanwhile.
    Its ``finish`` waits for them, writes the filters and the manifest, and records each
    partition in ``manifest``; its ``cancel`` stops them."""
    target = site_dir / "search"
    several = index.several_repositories
    commit_page = paths.commit_page("{sha}", "{repo}" if several else None)
    commit_url = commit_page[: -len(".md")] + ("/" if directory_urls else ".html")
    found: list[tuple[str, str, PartitionInfo | None]] = []  # (id, digest, info when reused)
    folders: dict[str, Path] = {}  # where each partition's files are
    to_build: list[tuple[int, str, list[SiteCommit]]] = []
    for part_id, items in search_partitions(index):
        part_digest = digest(manifest.shared, "search", part_id, commit_url, [item.fingerprint for item in items])
        reusable = previous.partition(part_id, part_digest)
        if reusable is not None:
            folder, details = reusable
            if in_place:
                folders[part_id] = folder
            else:
                copy_folder(folder, target / part_id)
            found.append((part_id, part_digest, PartitionInfo(**details)))  # type: ignore[arg-type]
        else:
            to_build.append((len(found), part_id, items))
            found.append((part_id, part_digest, None))

    def build_batch(number: int) -> list[tuple[int, PartitionInfo, int]]:
        built = []
        for position in batches[number]:
            slot, part_id, items = to_build[position]
            documents = (search_document(item, taxonomy, several_repositories=several) for item in items)
            files, info = build_partition(part_id, documents)
            built.append((slot, info, write_files(target, files)))
        return built

    # Partitions are built (the index's costliest part and, with a quarter's grams, its largest)
    # in worker processes, one per batch: the parent never holds a partition.
    batches = [range(position, position + 1) for position in range(len(to_build))]
    started = Started(build_batch, len(batches), workers=workers, isolated=True)
    followed = tuple((item.name, item.title) for item in index.repositories) if several else ()
    names = search_names(taxonomy, language, directory_urls=directory_urls, repositories=followed)
    return PendingSearchIndex(started, found, folders, target, manifest, names, commit_url)


@dataclass
class PendingSearchIndex:
    """A search index whose changed partitions are being built: what finishes it."""

    started: Started[list[tuple[int, PartitionInfo, int]]]
    found: list[tuple[str, str, PartitionInfo | None]]  # every partition: (id, digest, info when reused)
    folders: dict[str, Path]  # where each reused partition's files are, when not in ``target``
    target: Path
    manifest: BuildManifest
    names: SearchNames
    commit_url: str

    def cancel(self) -> None:
        self.started.cancel()

    def finish(self) -> None:
        found, folders, target, manifest = self.found, self.folders, self.target, self.manifest
        built_infos: dict[int, PartitionInfo] = {}
        written = 0
        for batch in self.started.results():
            for slot, info, count in batch:
                built_infos[slot] = info
                written += count
        partitions: list[PartitionInfo] = []
        for slot, (part_id, part_digest, reused) in enumerate(found):
            info = reused if reused is not None else built_infos[slot]
            partitions.append(info)
            manifest.search[part_id] = OutputRecord(
                digest=part_digest, output=f"search/{part_id}", details=dataclasses.asdict(info)
            )
        target.mkdir(parents=True, exist_ok=True)
        # The bucket files hold a block of every partition, so they are rewritten each build, from
        # the partitions' own filters (a reused partition keeps its filter.bin).
        filters = [
            ((folders.get(info.id, target / info.id) / "filter.bin").read_bytes(), info.filter_bytes)
            for info in partitions
        ]
        (target / "filter").mkdir(exist_ok=True)
        for relative, content in bucket_files(filters):
            (target / relative).write_bytes(content)
        # The title shards are every partition's titles merged; their count follows the archive.
        shutil.rmtree(target / "titles", ignore_errors=True)
        titles, title_shards = title_files(
            ((folders.get(info.id, target / info.id) / TITLES_FILE).read_bytes(), info.docs) for info in partitions
        )
        write_files(target, titles)
        document = search_manifest(partitions, self.names, commit_url=self.commit_url, title_shards=title_shards)
        (target / "manifest.json").write_bytes(document)
        logger.info(
            "commit-digest: search index: %s, %s written",
            counted(len(partitions), "partition", "partitions"),
            counted(written, "file", "files"),
        )
