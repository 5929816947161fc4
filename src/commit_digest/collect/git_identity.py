"""Who a local clone is, without running git: the repository a remote URL names, and where the
store remembers a repository's root commits. ``GitSource`` runs git and applies these."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

from commit_digest.errors import StoreError

# git's own rule: "scheme://" is a URL; otherwise a colon before any slash is scp-like
# ssh ("[user@]host:path"); anything else is a path on disk.
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SCP_LIKE = re.compile(r"^(?:[^@/:]+@)?(?P<host>[^/:]+):(?P<path>.*)$")
_LOCAL_SCHEMES = frozenset({"file"})
# The user-info of a URL: everything up to the last "@" before the path.
_CREDENTIALS = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/]*@")


@dataclass(frozen=True)
class Remote:
    name: str
    url: str


class RootMemory(Protocol):
    """Where the root commits seen at a repository's first fetch are kept (the store's metadata)."""

    def get_meta(self, name: str) -> object | None: ...

    def set_meta(self, name: str, value: object) -> None: ...


def roots_key(repository: str) -> str:
    # Lower case: GitHub names are case-insensitive, so --repo A/B and a/b share one record.
    return f"git-roots/{repository.lower()}"


def recorded_roots(value: object, key: str) -> list[str] | None:
    """The root commits the store holds under ``key`` (sorted), None when none are recorded."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(sha, str) for sha in value):
        raise StoreError(f"the store's {key} is not a list of commit shas: {value!r}")
    return sorted(value)


def repository_of_url(url: str) -> str | None:
    """The ``OWNER/NAME`` path (as written) a remote URL names on its host, without a trailing
    ``.git`` or ``/``; None when the URL is a path on disk (a clone of a clone names no repository).

    Any host is accepted, so GitHub Enterprise URLs work like github.com ones.
    """
    text = url.strip()
    if _SCHEME.match(text):
        try:
            parts = urlsplit(text)
            host = parts.hostname
        except ValueError:  # a malformed URL (an unclosed "[" of an IPv6 host) names nothing
            return None
        if parts.scheme.lower() in _LOCAL_SCHEMES or not host:
            return None
        path = parts.path
    else:
        scp = _SCP_LIKE.match(text)
        # A one-letter "host" is a Windows drive (C:\clones\vllm), not a machine.
        if scp is None or len(scp["host"]) == 1:
            return None
        path = scp["path"]
    path = path.strip("/")
    if path.lower().endswith(".git"):
        path = path[: -len(".git")].rstrip("/")
    return path or None


def same_repository(found: str, expected: str) -> bool:
    return found.lower() == expected.lower()


def named_remotes(remotes: Sequence[Remote]) -> list[tuple[Remote, str]]:
    """The remotes whose URL names a repository, with it; ``origin`` first, as it is the one a
    clone was made from."""
    named = [(remote, found) for remote in remotes if (found := repository_of_url(remote.url)) is not None]
    return sorted(named, key=lambda pair: pair[0].name != "origin")


def display_url(url: str) -> str:
    """The URL without credentials (``https://TOKEN@host/...`` happens), safe to print."""
    return _CREDENTIALS.sub(r"\1", url.strip())
