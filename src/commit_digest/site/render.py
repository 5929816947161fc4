"""The Jinja2 environment that turns page data into the HTML of a page's content.

Every ``{{ value }}`` goes through ``finalize`` (``escape.html_value``): Markup (built by code or the
i18n table) passes, numbers print as they are, anything else is untrusted text and goes through
``escape.html_text``. Autoescape stays on as a second line: whatever ``finalize`` returns is Markup
already. Fragments built in Python (``fragments.py``) put values in HTML through the same function.
"""

from __future__ import annotations

from functools import cache

import jinja2

from commit_digest.site.escape import html_paragraphs, html_value, title_html


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("commit_digest.site", "templates"),
        autoescape=True,
        finalize=html_value,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["paragraphs"] = html_paragraphs
    env.filters["title_html"] = title_html
    return env


def render(template: str, **context: object) -> str:
    return environment().get_template(template).render(**context)
