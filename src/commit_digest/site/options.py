"""The commit-digest block of mkdocs.yml holds the library's settings plus a few site-only options.

``split_options`` separates them, so the CLI (which reads the same block) and the plugin agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from commit_digest.settings import SITE_ONLY_OPTIONS, DigestSettings


@dataclass(frozen=True)
class SiteOptions:
    language: str = "zh"
    timezone: str = "UTC"
    days_on_home: int = 7  # days shown on the home page
    page_size: int = 100  # commits per page of a platform/subsystem month
    directory_urls: bool = True  # MkDocs' use_directory_urls: the form of links between pages
    site_url: str | None = None  # where this language's site is published (feeds' absolute URLs)
    site_name: str | None = None  # the name this language's build shows (feeds' titles)

    @classmethod
    def from_settings(cls, settings: DigestSettings, site_options: Mapping[str, Any]) -> SiteOptions:
        values = {
            key: site_options[key]
            for key in ("days_on_home", "page_size", "directory_urls")
            if site_options.get(key) is not None
        }
        return cls(language=settings.language, timezone=settings.timezone, **values)


def split_options(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(settings options, site-only options) of a commit-digest plugin block."""
    digest = {key: value for key, value in options.items() if key not in SITE_ONLY_OPTIONS}
    site = {key: value for key, value in options.items() if key in SITE_ONLY_OPTIONS}
    return digest, site
