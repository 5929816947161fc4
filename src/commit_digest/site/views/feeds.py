"""Atom feeds (RFC 4287): the whole site, high importance only, each platform, each subsystem and,
on a site of several repositories, each repository; one entry per commit, the newest 50. The
whole site's feed and each platform's also hold an entry per day and per week of those commits
with a brief or a narrative (``rendering.feed_digests``), among them by the time it was written.

Pure: the site index in, ``(path, bytes)`` out; the build writes them, and each feed's page
announces it (``rendering.feed_list``). The subscribe page lists them all. Documents are built
with ``xml.etree.ElementTree``, which escapes every text and attribute: commit titles, author
names and LLM output reach a feed only as text (never as markup), with the characters XML 1.0
cannot hold removed. The same index gives the same bytes:
no build time is written. An entry's ``updated`` is its commit's time, or its analysis's (or
translation's) when later, so readers refresh an entry once its commit is analysed; a feed's is
the latest of its entries'.

URLs are absolute, from ``site_url``. Without one they are root-relative ("/commits/abc/"):
feed readers resolve them against the feed's own address, but ids are then not the absolute
IRIs RFC 4287 asks for; a site that publishes feeds sets ``site_url``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.site import paths
from commit_digest.site.model.commit import UNANALYSED, SiteCommit
from commit_digest.site.model.index import SiteIndex
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.escape import plain_name, plain_text, title_plain
from commit_digest.site.rendering.feed_digests import DigestEntries, DigestEntry
from commit_digest.site.rendering.feed_list import (
    FEED_SIZE,
    LABEL_TERMS,
    Feed,
    feed_commits,
    label_kinds_of,
    plain_label_name,
    site_base,
    site_feeds,
)
from commit_digest.site.rendering.i18n import Texts
from commit_digest.site.rendering.impact_view import ENTRY_IMPACT_LINES, change_text
from commit_digest.site.rendering.render import render
from commit_digest.site.views.base import PageSpec, SiteFile, View, plain

GENERATOR = "commit-digest"
_ATOM = "http://www.w3.org/2005/Atom"
# A feed without entries still needs an <updated>: a fixed instant keeps its bytes stable.
_NEVER = "1970-01-01T00:00:00Z"
# Characters XML 1.0 cannot hold (most C0 controls, lone surrogates, U+FFFE/U+FFFF).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(value: object) -> str:
    return _NOT_XML.sub("", str(value))


def _time(moment: datetime) -> str:
    """RFC 3339, to the second."""
    text = moment.replace(microsecond=0).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


class _Writer:
    """Writes the feeds of one site build (one language)."""

    def __init__(
        self,
        index: SiteIndex,
        taxonomy: Taxonomy,
        options: SiteOptions,
        *,
        site_url: str | None,
        site_name: str | None,
    ) -> None:
        self.index = index
        self.taxonomy = taxonomy
        self.options = options
        self.language = options.language
        self.texts = Texts(options.language)
        self.base = site_base(site_url)
        self.site_name = _xml_text(site_name or self.texts("site_title").unescape())
        self.titles = {item.name: item.title for item in index.repositories}
        self.digests = DigestEntries(
            index,
            self.texts,
            self._page_url,
            lambda label_id: self._label_name("platforms", label_id),
            taxonomy.platform_ids,
            ZoneInfo(options.timezone),
        )

    def _text(self, key: str, **values: object) -> str:
        return self.texts(key, **values).unescape()

    def _page_url(self, src_uri: str) -> str:
        return self.base + paths.url(src_uri, self.options.directory_urls)

    def _commit_url(self, item: SiteCommit) -> str:
        repository = item.repository if self.index.several_repositories else None
        return self._page_url(paths.commit_page(item.sha, repository))

    def document(self, feed: Feed, commits: list[SiteCommit]) -> bytes:
        root = ET.Element("feed", {"xmlns": _ATOM, "xml:lang": self.texts("language_tag").unescape()})
        feed_url = self.base + feed.path
        ET.SubElement(root, "id").text = feed_url
        ET.SubElement(root, "title").text = _xml_text(feed.title(self.site_name))
        digests = self.digests.of(feed, commits)
        subtitle = self._text("feed_subtitle_briefs" if digests else "feed_subtitle", name=feed.name, count=FEED_SIZE)
        ET.SubElement(root, "subtitle").text = _xml_text(subtitle)
        ET.SubElement(root, "link", {"rel": "self", "type": "application/atom+xml", "href": feed_url})
        ET.SubElement(root, "link", {"rel": "alternate", "type": "text/html", "href": self._page_url(feed.page)})
        updates = [self._updated(item) for item in commits]
        moments = updates + [entry.moment for entry in digests]
        ET.SubElement(root, "updated").text = _time(max(moments)) if moments else _NEVER
        # An entry without an author name (an empty one in the store) takes the feed's.
        ET.SubElement(ET.SubElement(root, "author"), "name").text = self.site_name
        ET.SubElement(root, "generator").text = GENERATOR
        for item, updated in zip(commits, updates, strict=True):
            # A day's or week's entry goes before the first commit published before it was written.
            while digests and digests[0].moment >= item.local_time:
                root.append(self._digest_entry(digests.pop(0)))
            root.append(self._entry(item, updated))
        for entry in digests:
            root.append(self._digest_entry(entry))
        ET.indent(root)
        return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"

    def _updated(self, item: SiteCommit) -> datetime:
        """When the entry last changed: its commit, or a later analysis or translation of it (so
        readers refresh an entry once a pending commit is analysed)."""
        moments = [item.committed_at]
        analysis = item.record.analysis
        if analysis is not None:
            moments.append(analysis.provenance.created_at)
            translation = analysis.translations.get(self.language)
            if translation is not None and translation.provenance is not None:
                moments.append(translation.provenance.created_at)
        return max(moments).astimezone(item.local_time.tzinfo)

    def _entry(self, item: SiteCommit, updated: datetime) -> ET.Element:
        commit = item.record.commit
        entry = ET.Element("entry")
        url = self._commit_url(item)
        title = title_plain(commit.title)
        if self.index.several_repositories:
            title = f"[{self.titles.get(item.repository, item.repository)}] {title}"
        ET.SubElement(entry, "id").text = url
        ET.SubElement(entry, "title", {"type": "text"}).text = _xml_text(title)
        ET.SubElement(entry, "link", {"rel": "alternate", "type": "text/html", "href": url})
        if self.index.sample is None or self.index.sample.links_commit(commit.sha):  # never a made-up sha
            ET.SubElement(entry, "link", {"rel": "related", "type": "text/html", "href": commit.web_url})
        ET.SubElement(entry, "published").text = _time(item.local_time)
        ET.SubElement(entry, "updated").text = _time(updated)
        author = plain_name(_xml_text(commit.author_name))  # one line, no direction control
        if author:
            ET.SubElement(ET.SubElement(entry, "author"), "name").text = _xml_text(author)
        for term, label in self._categories(item):
            ET.SubElement(entry, "category", {"term": term, "label": _xml_text(label)})
        ET.SubElement(entry, "summary", {"type": "text"}).text = _xml_text(self._summary(item))
        return entry

    def _digest_entry(self, found: DigestEntry) -> ET.Element:
        entry = ET.Element("entry")
        ET.SubElement(entry, "id").text = found.id
        ET.SubElement(entry, "title", {"type": "text"}).text = _xml_text(found.title)
        ET.SubElement(entry, "link", {"rel": "alternate", "type": "text/html", "href": found.link})
        ET.SubElement(entry, "published").text = _time(found.moment)
        ET.SubElement(entry, "updated").text = _time(found.moment)
        ET.SubElement(entry, "summary", {"type": "text"}).text = _xml_text(found.summary)
        return entry

    def _label_name(self, kind: str, label_id: str) -> str:
        return plain_label_name(self.index, self.taxonomy, self.language, kind, label_id)

    def _importance(self, item: SiteCommit) -> str:
        return self._text("importance_none" if item.group == UNANALYSED else f"importance_{item.group}")

    def _categories(self, item: SiteCommit) -> Iterator[tuple[str, str]]:
        yield f"importance:{item.group}", self._importance(item)
        if item.change_type:
            yield f"type:{item.change_type}", self.texts.change_type(item.change_type).unescape()
        for kind in label_kinds_of(self.index):
            for label in item.labels(kind):
                yield f"{LABEL_TERMS[kind]}:{label.id}", self._label_name(kind, label.id)

    def _facts(self, item: SiteCommit) -> str:
        separator = self._text("feed_list_separator")
        facts = [(self._text("feed_importance"), self._importance(item))]
        if item.change_type:
            facts.append((self._text("feed_type"), self.texts.change_type(item.change_type).unescape()))
        for kind in ("platforms", "subsystems"):
            names = [self._label_name(kind, label.id) for label in item.labels(kind)]
            if names:
                facts.append((self._text(f"feed_{kind}"), separator.join(names)))
        return " · ".join(self._text("feed_fact", name=name, value=value) for name, value in facts)

    def _summary(self, item: SiteCommit) -> str:
        """Plain text: the facts line, then the analysis's summary paragraphs (in the site's
        language, or marked with the language they were written in), or why there is none."""
        parts = [self._facts(item)]
        changes = self.index.facts.impact(item).changes
        if changes:
            # As a listing shows them: the first few, then how many more the commit's page lists.
            lines = ["• " + change_text(change, self.texts) for change in changes[:ENTRY_IMPACT_LINES]]
            if len(changes) > ENTRY_IMPACT_LINES:
                lines.append(self._text("impact_more", count=len(changes) - ENTRY_IMPACT_LINES))
            parts.append("\n".join(lines))
        analysis = item.analysis
        if analysis is None or not analysis.ok:
            status = item.status.value
            if analysis is None or status == "pending":
                parts.append(self._text("feed_not_analysed"))
            else:
                parts.append(self._text("feed_not_ok", status=self._text(f"status_{status}")))
        else:
            if item.original_language:
                parts.append(self._text(f"original_{item.original_language}"))
            parts.extend(plain_text(paragraph.replace("\r\n", "\n")).strip() for paragraph in analysis.summary)
        return "\n\n".join(part for part in parts if part)


def feed_document(
    index: SiteIndex,
    taxonomy: Taxonomy,
    options: SiteOptions,
    feed: Feed,
    *,
    site_url: str | None,
    site_name: str | None = None,
) -> bytes:
    """One feed's Atom document (UTF-8). ``site_name`` defaults to the i18n table's."""
    writer = _Writer(index, taxonomy, options, site_url=site_url, site_name=site_name)
    return writer.document(feed, feed_commits(index, feed))


def feed_documents(
    index: SiteIndex,
    taxonomy: Taxonomy,
    options: SiteOptions,
    *,
    site_url: str | None,
    site_name: str | None = None,
) -> Iterator[tuple[str, bytes]]:
    """Every feed of the site as (path under the site's root, Atom document): what to write."""
    writer = _Writer(index, taxonomy, options, site_url=site_url, site_name=site_name)
    for feed in site_feeds(index, taxonomy, options):
        yield feed.path, writer.document(feed, feed_commits(index, feed))


def subscribe_page(context: SiteContext) -> PageSpec:
    """Every feed of the site, grouped as the navigation is, each with its address to copy."""
    groups: dict[str, list[Feed]] = {}
    for feed in context.feeds:
        groups.setdefault("site" if feed.kind in ("all", "high", "impact") else feed.kind, []).append(feed)
    counts = {
        (kind, label_id): len(commits)
        for kind, listing in (
            ("platforms", context.index.by_platform),
            ("subsystems", context.index.by_subsystem),
            ("repositories", context.index.by_repository),
        )
        for label_id, commits in listing.items()
    }
    return PageSpec(
        paths.SUBSCRIBE,
        plain(context.texts("subscribe_title")),
        lambda: render(
            "subscribe.html.j2",
            **context.for_page(paths.SUBSCRIBE, groups=list(groups.items()), counts=counts, feed_size=FEED_SIZE),
        ),
    )


class FeedsView(View):
    """The Atom feeds, and the page that lists them to subscribe to."""

    def pages(self, context: SiteContext) -> Iterator[PageSpec]:
        yield subscribe_page(context)

    def files(self, context: SiteContext) -> Iterator[SiteFile]:
        options = context.options
        documents = feed_documents(
            context.index, context.taxonomy, options, site_url=options.site_url, site_name=options.site_name
        )
        for path, content in documents:
            yield SiteFile(path, content)
