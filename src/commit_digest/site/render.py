"""The Jinja2 environment that turns page data into Markdown.

Every ``{{ value }}`` goes through ``finalize``: Markup (built by code or the i18n table) passes,
numbers print as they are, anything else is untrusted text and goes through ``escape.inline_text``.
Autoescape stays on as a second line: whatever ``finalize`` returns is Markup already.
"""

from __future__ import annotations

from functools import cache

import jinja2
from markupsafe import Markup

from commit_digest.site.escape import block_text, inline_text


def _finalize(value: object) -> Markup:
    if isinstance(value, Markup):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return Markup(str(value))
    return inline_text(value)


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("commit_digest.site", "templates"),
        autoescape=True,
        finalize=_finalize,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["block"] = block_text
    env.filters["inline"] = inline_text
    return env


def render(template: str, **context: object) -> str:
    text = environment().get_template(template).render(**context)
    # Blank-line runs left by skipped sections carry no meaning in Markdown.
    lines: list[str] = []
    for line in text.splitlines():
        if line.strip() or (lines and lines[-1].strip()):
            lines.append(line.rstrip() if not line.strip() else line)
    return "\n".join(lines).strip() + "\n"
