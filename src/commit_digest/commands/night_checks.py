"""What ``nightly`` checks before it fetches or pays for anything, and which repositories it runs.

A night that could never finish must not spend first: the whole configuration is read as the
build will read it (mkdocs.yml with MkDocs' own checks and the digest's), the folders it writes
are checked, and so are the addresses it will call. A problem ends the night at once with one
line (an ``InputError``), before the store is touched.

The repositories are mkdocs.yml's: the site is built from it, so a night fetches nothing that the
site does not show. ``--repo`` and the ``DIGEST_REPOSITORY`` variable narrow a site of several
repositories to one; a variable naming a repository the site does not follow is said in one
line and set aside (``--repo``, typed on purpose, is refused).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from commit_digest import environment
from commit_digest.commands.build import site_folder
from commit_digest.commands.common import DEFAULT_CONFIG, unwritable_reason
from commit_digest.errors import InputError
from commit_digest.settings import DigestSettings


@dataclass(frozen=True)
class RepositoryChoice:
    """The repository a night is narrowed to (None: every repository of mkdocs.yml), and the
    line that says why, when there is something to say."""

    narrowed_to: str | None
    line: str | None


def choose_repository(args: argparse.Namespace, site: DigestSettings, environ: Mapping[str, str]) -> RepositoryChoice:
    followed = site.repository_names
    listed = ", ".join(followed)
    wanted = getattr(args, "repo", None)
    if wanted:
        if wanted not in followed:
            raise InputError(
                f"--repo {wanted} is not a repository of this site (mkdocs.yml follows {listed}): the site "
                "is built from mkdocs.yml, so set repository (or repositories) there to follow it"
            )
        return RepositoryChoice(wanted, None)
    variable = environment.value(environment.DIGEST_REPOSITORY, environ)
    if variable is None:
        return RepositoryChoice(None, None)
    if variable not in followed:
        return RepositoryChoice(
            None,
            f"nightly: DIGEST_REPOSITORY names {variable}, mkdocs.yml names {listed}: using {listed}, because "
            "the site is built from mkdocs.yml (set repository there to follow another; clear the variable "
            "to silence this line)",
        )
    if len(followed) == 1:
        return RepositoryChoice(variable, None)
    return RepositoryChoice(
        variable,
        f"nightly: DIGEST_REPOSITORY narrows this night to {variable}, one of mkdocs.yml's {len(followed)} "
        f"repositories ({listed}); the others are not fetched or analysed tonight",
    )


def check_night(args: argparse.Namespace, environ: Mapping[str, str]) -> DigestSettings:
    """The site's settings, once everything the night needs is known to be in order."""
    from commit_digest_mkdocs.build import check_site_config  # MkDocs only for commands that build

    config_file = args.config_file if args.config_file is not None else DEFAULT_CONFIG
    if not config_file.is_file():
        what = "is not a file" if config_file.exists() else "does not exist"
        raise InputError(
            f"config file {config_file} {what}: nightly builds the site from it (run it in the site's folder, "
            "or pass -f PATH)"
        )
    _names_a_repository(config_file)
    site = check_site_config(config_file, site_dir=args.site_dir)
    _writable_folder(site_folder(args.config_file, args.site_dir), "the site folder", "--site-dir")
    _writable_folder(args.durable_dir.resolve(), "the durable folder", "--durable-dir")
    cache = args.cache.resolve() if args.cache is not None else site.cache_dir
    _writable_folder(cache, "the cache folder", "--cache (cache_dir in mkdocs.yml)")
    if args.git_dir is not None and not args.git_dir.expanduser().is_dir():
        raise InputError(f"--git-dir {args.git_dir} is not a folder: point it at a clone of the repository")
    github = args.github_url or environment.value(environment.GITHUB_API_URL, environ) or site.github.api_url
    if github is not None and args.git_dir is None:
        _http_url(github, "--github-url" if args.github_url else _where_github(environ))
    if not args.offline and environment.value(environment.OPENAI_API_KEY, environ) is not None:
        if not site.llm.model.strip():
            raise InputError(f"{config_file}: plugins.commit-digest.llm.model is empty: name the model to ask")
        if site.llm.base_url is not None:
            _http_url(site.llm.base_url, f"{config_file}: plugins.commit-digest.llm.base_url")
        elif (base_url := environment.value(environment.OPENAI_BASE_URL, environ)) is not None:
            _http_url(base_url, "OPENAI_BASE_URL")
    return site


def _names_a_repository(config_file: Path) -> None:
    """mkdocs.yml must name what the site follows: a silent default would fetch, pay for and publish
    another project's commits."""
    from commit_digest.settings import plugin_options_in

    options = plugin_options_in(config_file)
    if not options.get("repository") and not options.get("repositories"):
        raise InputError(
            f"{config_file}: plugins.commit-digest names no repository: set repository: OWNER/NAME (or "
            "repositories:) to the repository the site follows"
        )


def _writable_folder(folder: Path, what: str, option: str) -> None:
    """``folder`` is a folder the night can write, or can be made where it would be."""
    reason = unwritable_reason(folder)
    if reason is not None:
        said = reason if reason.startswith(f"{folder} ") else f"{folder}: {reason}"
        raise InputError(f"{what} {said}; point {option} at a folder this run can write")


def _http_url(value: str, where: str) -> None:
    parts = urlsplit(value)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        shown = value if len(value) <= 80 else value[:80] + "…"
        # Never the whole value when it may carry credentials: the scheme and host are enough.
        if "@" in shown:
            shown = "(an address with credentials)"
        raise InputError(f"{where}: {shown!r} is not an http(s) address such as https://api.example.com/v1")


def _where_github(environ: Mapping[str, str]) -> str:
    if environment.value(environment.GITHUB_API_URL, environ) is not None:
        return "GITHUB_API_URL"
    return "github.api_url"
