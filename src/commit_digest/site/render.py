"""The Jinja2 environment that turns page data into the HTML of a page's content.

Every ``{{ value }}`` goes through ``finalize``: Markup (built by code or the i18n table) passes,
numbers print as they are, anything else is untrusted text and goes through ``escape.html_text``.
Autoescape stays on as a second line: whatever ``finalize`` returns is Markup already.
"""

from __future__ import annotations

from functools import cache

import jinja2
from markupsafe import Markup

from commit_digest.site.escape import html_paragraphs, html_text, title_html


def _finalize(value: object) -> Markup:
    if isinstance(value, Markup):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return Markup(str(value))
    return html_text(value)


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("commit_digest.site", "templates"),
        autoescape=True,
        finalize=_finalize,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["paragraphs"] = html_paragraphs
    env.filters["title_html"] = title_html
    return env


def render(template: str, **context: object) -> str:
    return environment().get_template(template).render(**context)
