"""The ``commit-digest`` plugin's options in mkdocs.yml.

The first group maps one to one onto ``commit_digest.settings.DigestSettings`` (the CLI reads
the same block); the second group only shapes the website.
"""

from __future__ import annotations

from mkdocs.config import config_options as opt
from mkdocs.config.base import Config


class PluginConfig(Config):
    repository = opt.Optional(opt.Type(str))
    """The GitHub repository (owner/name) whose commits the site shows (default vllm-project/vllm)."""

    repositories = opt.Optional(opt.Type(list))
    """Several repositories in one site, each ``{name, platforms, taxonomy, branch, title}`` or
    just ``owner/name``; ``repository`` is the shorthand for one."""

    platforms = opt.Optional(opt.ListOfItems(opt.Type(str)))
    """With ``repository`` alone: every commit of it is on these platforms (a hardware plugin's
    repository: ``[ascend]``), as a ``repositories`` item's own ``platforms`` say."""

    cache_dir = opt.Type(str, default="cache")
    """The analysis store, relative to the folder of mkdocs.yml."""

    language = opt.Optional(opt.Choice(("zh", "en")))
    """Language of every generated text and label, and of the theme (zh or en; default zh)."""

    languages = opt.Optional(opt.ListOfItems(opt.Choice(("zh", "en"))))
    """The site's languages, the first at the root and the other under its code (en/ or zh/)."""

    timezone = opt.Type(str, default="UTC")
    """IANA time zone in which commits are assigned to days."""

    taxonomy = opt.Optional(opt.Type(dict))
    """Overrides of the built-in platform/subsystem rules (label id -> rule fields, or null to drop)."""

    taxonomy_file = opt.Optional(opt.Type(str))
    """A taxonomy file replacing the built-in one, relative to the folder of mkdocs.yml."""

    llm = opt.Type(dict, default={})
    """LLM settings for the CLI's analyse step; the site build never calls an LLM."""

    github = opt.Type(dict, default={})
    """GitHub settings for the CLI's collect step; the site build never calls GitHub."""

    site_size_limit = opt.Optional(opt.Type((int, float, str)))
    """The published site's size past which ``commit-digest build``/``nightly`` do not publish it
    (``1GB``, ``800 MB``, ``1.5 GiB`` or bytes; default 1 GB, GitHub Pages'); they warn past 80%."""

    stop_grace_seconds = opt.Optional(opt.Type((int, float)))
    """After SIGTERM or SIGINT, how long the CLI lets requests in flight land (default 10 s)."""

    notify = opt.Type(list, default=[])
    """Channels ``commit-digest notify`` sends each new day to (read by the CLI; the build only checks them)."""

    site_name = opt.Optional(opt.Type(dict))
    """The site's name in a language ({en: ...}) where it is not the top-level ``site_name``; a
    language this mapping does not name takes the top-level one."""

    site_description = opt.Optional(opt.Type(dict))
    """The site's description in a language where it is not the top-level ``site_description``;
    a language this mapping does not name takes the top-level one."""

    days_on_home = opt.Type(int, default=7)
    """How many of the latest days the home page shows."""

    page_size = opt.Type(int, default=100)
    """Commits per page of a platform or subsystem month (a longer month continues in parts)."""

    workers = opt.Type(int, default=0)
    """Processes that render the generated pages (0: one per core the build may use)."""

    def digest_options(self) -> dict[str, object]:
        """The options that ``DigestSettings`` validates (unset optional ones left out)."""
        names = (
            "repository",
            "repositories",
            "platforms",
            "cache_dir",
            "language",
            "languages",
            "timezone",
            "taxonomy",
            "taxonomy_file",
            "llm",
            "github",
            "site_size_limit",
            "stop_grace_seconds",
            "notify",
        )
        return {name: self[name] for name in names if self[name] is not None}
