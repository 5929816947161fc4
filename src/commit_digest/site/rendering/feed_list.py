"""The feeds a site has: one per listing (all, high importance, operator impact, each platform,
subsystem and repository), where each lives, which page announces it, which commits it holds.

What pages need to link and announce feeds, apart from the Atom documents themselves
(``views/feeds.py`` writes those).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import Importance
from commit_digest.site import paths
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.index import SiteIndex
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.i18n import Texts

FEEDS_DIR = "feeds"
FEED_SIZE = 50  # entries per feed: the newest commits
FEED_KINDS = ("all", "high", "impact", "platforms", "subsystems", "repositories")
LABEL_TERMS = {"platforms": "platform", "subsystems": "subsystem", "repositories": "repository"}


@dataclass(frozen=True)
class Feed:
    """One feed of the site. Its path (and so its URL) is built from label ids and repository
    names only, and never changes while the label or repository exists."""

    path: str  # under the site's root: "feeds/platforms/cuda.xml"
    kind: str  # one of FEED_KINDS
    label_id: str | None  # the platform or subsystem id, the repository's owner/name; None for all/high
    page: str  # source path of the page that announces it (paths.HOME, paths.label_page(...))
    name: str  # plain text, in the site's language: "全部提交", "CUDA", "vLLM Ascend"

    def url(self, site_url: str | None) -> str:
        """The feed's address (absolute with a ``site_url``)."""
        return site_base(site_url) + self.path

    def title(self, site_name: str) -> str:
        """The feed's <title>: the site's name, then what the feed holds (plain text)."""
        return site_name if self.kind == "all" else f"{site_name} · {self.name}"


def site_base(site_url: str | None) -> str:
    """The base every feed URL starts with: ``site_url`` ending in "/", or "/" without one."""
    if not site_url:
        return "/"
    return site_url if site_url.endswith("/") else site_url + "/"


def feed_path(kind: str, label_id: str | None = None) -> str:
    """Where a feed lives under the site's root; ``label_id`` for platforms, subsystems and repositories."""
    if kind in ("all", "high", "impact"):
        return f"{FEEDS_DIR}/{kind}.xml"
    if kind not in LABEL_TERMS or not label_id:
        raise ValueError(f"no feed of kind {kind!r} for {label_id!r}")
    return f"{FEEDS_DIR}/{kind}/{label_id}.xml"


def listing_of(index: SiteIndex, kind: str) -> dict[str, tuple[SiteCommit, ...]]:
    return {"platforms": index.by_platform, "subsystems": index.by_subsystem, "repositories": index.by_repository}[kind]


def label_kinds_of(index: SiteIndex) -> tuple[str, ...]:
    return ("platforms", "subsystems", "repositories") if index.several_repositories else ("platforms", "subsystems")


def plain_label_name(index: SiteIndex, taxonomy: Taxonomy, language: str, kind: str, label_id: str) -> str:
    if kind == "repositories":
        return next((item.title for item in index.repositories if item.name == label_id), label_id)
    rule = taxonomy.platform(label_id) if kind == "platforms" else taxonomy.subsystem(label_id)
    return rule.name.in_language(language) if rule else label_id


def site_feeds(index: SiteIndex, taxonomy: Taxonomy, options: SiteOptions) -> list[Feed]:
    """Every feed the site has: all, high, then one per platform and subsystem the site has a
    page for (a label without commits too: readers may subscribe before its first commit) and,
    on a site of several repositories, one per repository."""
    texts = Texts(options.language)
    feeds = [
        Feed(feed_path("all"), "all", None, paths.HOME, texts("feed_all").unescape()),
        Feed(feed_path("high"), "high", None, paths.HOME, texts("feed_high").unescape()),
        Feed(feed_path("impact"), "impact", None, paths.IMPACT_INDEX, texts("impact_feed").unescape()),
    ]
    for kind in label_kinds_of(index):
        for label_id in listing_of(index, kind):
            name = plain_label_name(index, taxonomy, options.language, kind, label_id)
            feeds.append(Feed(feed_path(kind, label_id), kind, label_id, paths.label_page(kind, label_id), name))
    return feeds


def feeds_of_page(feeds: Iterable[Feed], src_uri: str) -> list[Feed]:
    """The feeds a page announces (<link rel="alternate" type="application/atom+xml">)."""
    return [feed for feed in feeds if feed.page == src_uri]


def _newest(index: SiteIndex) -> Iterator[SiteCommit]:
    for day in index.days:  # newest first
        yield from reversed(day.commits)


def feed_commits(index: SiteIndex, feed: Feed) -> list[SiteCommit]:
    """The feed's entries, newest first: at most FEED_SIZE, read from the front of the index's
    newest-first lists only (cheap however large the site)."""
    if feed.kind == "all":
        found: Iterable[SiteCommit] = _newest(index)
    elif feed.kind == "high":
        found = (item for item in _newest(index) if item.group == Importance.HIGH.value)
    elif feed.kind == "impact":
        found = (item for item in _newest(index) if index.facts.impact(item).changes)
    else:
        found = listing_of(index, feed.kind).get(feed.label_id or "", ())
    return list(islice(found, FEED_SIZE))


def feed_head_links(feeds: Iterable[Feed], site_url: str | None, site_name: str) -> str:
    """The <link rel="alternate feed"> tags a page announces its feeds with (escaped attributes).

    "alternate feed", not "alternate" alone: material's script takes every link[rel=alternate]
    for a language version of the site and downloads sitemap.xml beside it on each page view
    (feeds/sitemap.xml, a 404 on the site's host); feed readers look for the "alternate" token
    with the Atom type, and "feed" is HTML's own keyword for a syndication feed."""
    return "".join(
        f'<link rel="alternate feed" type="application/atom+xml" title="{html.escape(feed.title(site_name))}" '
        f'href="{html.escape(feed.url(site_url))}">'
        for feed in feeds
    )
