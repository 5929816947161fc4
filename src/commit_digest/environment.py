"""The environment variables commit-digest reads, where an empty value means unset.

GitHub Actions gives a secret or variable that was never set as an empty string
(``OPENAI_BASE_URL: ${{ secrets.OPENAI_BASE_URL }}``), and a shell ``export X=`` does the same.
Libraries read some of these themselves and take ``''`` at its word: the openai SDK then
sends every request to the base URL ``''``. So an empty or blank value is the same as no
value, for us and for them: ``value`` reads one that way, and ``drop_blank`` takes blank
ones out of the process environment at start-up, before any library looks.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Final

OPENAI_API_KEY: Final = "OPENAI_API_KEY"
OPENAI_BASE_URL: Final = "OPENAI_BASE_URL"
GITHUB_TOKEN: Final = "GITHUB_TOKEN"
GITHUB_API_URL: Final = "GITHUB_API_URL"
# The repository of one night (the nightly workflow's variable): one of mkdocs.yml's.
DIGEST_REPOSITORY: Final = "DIGEST_REPOSITORY"
# The published address, read by mkdocs.yml's ``site_url: !ENV [SITE_URL, …]``.
SITE_URL: Final = "SITE_URL"

# Every variable commit-digest or a library under it reads by a fixed name. The notification
# channels' variables are named in mkdocs.yml (``url_env: …``) and read through ``value`` too.
PRODUCT_VARIABLES: Final = (
    OPENAI_API_KEY,
    OPENAI_BASE_URL,
    # The openai SDK reads these as well, and sends a header for an empty one.
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    GITHUB_TOKEN,
    GITHUB_API_URL,
    DIGEST_REPOSITORY,
    SITE_URL,
)


def value(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The variable's value without surrounding blanks; None when it is absent, empty or blank."""
    found = (os.environ if environ is None else environ).get(name)
    if found is None:
        return None
    return found.strip() or None


def drop_blank(names: Iterable[str] = PRODUCT_VARIABLES, environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Removes each of ``names`` whose value is empty or blank; returns the names removed."""
    target = os.environ if environ is None else environ
    removed = [name for name in names if name in target and not target[name].strip()]
    for name in removed:
        del target[name]
    return removed
