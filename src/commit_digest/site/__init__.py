"""The digest website as data: records in, Markdown pages out. Imports nothing from MkDocs."""

from commit_digest.site.model import SiteIndex, build_index
from commit_digest.site.options import SiteOptions, split_options
from commit_digest.site.pages import PageSpec, generate_pages
from commit_digest.site.sanitize import sanitize_html

__all__ = [
    "PageSpec",
    "SiteIndex",
    "SiteOptions",
    "build_index",
    "generate_pages",
    "sanitize_html",
    "split_options",
]
