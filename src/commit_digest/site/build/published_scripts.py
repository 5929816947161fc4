"""A script as the site publishes it: minified by rjsmin (the only importer of rjsmin).

The scripts' comments and layout are for their readers here; a phone downloads and parses every
byte a page loads. rjsmin reads JavaScript's strings, regular expressions and comments as the
language does, so a comment marker inside a string or a regular expression stays what it is.
"""

from __future__ import annotations

import rjsmin


def published_script(source: str) -> str:
    return str(rjsmin.jsmin(source))
