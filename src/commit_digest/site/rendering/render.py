"""The Jinja2 environment that turns page data into the HTML of a page's content.

Every ``{{ value }}`` goes through ``finalize`` (``escape.html_value``): Markup (built by code or the
i18n table) passes, numbers print as they are, anything else is untrusted text and goes through
``escape.html_text``. Autoescape stays on as a second line: whatever ``finalize`` returns is Markup
already. Fragments built in Python (``fragments.py``) put values in HTML through the same function.

A label without values, ``{{ t("key") }}``, is the same words on every page of a language: each
language has its environment, whose templates are compiled with those words in them as text (the
i18n table's trusted HTML, exactly as ``t`` returns it), not as a call made on every render.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from functools import cache
from typing import Any

import jinja2
from jinja2.ext import Extension
from jinja2.lexer import TOKEN_DATA, Token, TokenStream

from commit_digest.site.rendering.escape import html_paragraphs, html_value, name_html, title_html
from commit_digest.site.rendering.i18n import Texts

# The tokens of {{ t("key") }}: what a label without values is written as.
_LABEL_TOKENS = ("variable_begin", "name", "lparen", "string", "rparen", "variable_end")


class _LabelsAsText(Extension):
    """Compiles ``{{ t("key") }}`` into the template as the label's text in the environment's language."""

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        texts: Texts = self.environment.digest_texts  # type: ignore[attr-defined]
        tokens = list(stream)
        position = 0
        while position < len(tokens):
            window = tokens[position : position + len(_LABEL_TOKENS)]
            if _is_label(window, texts):
                yield Token(window[0].lineno, TOKEN_DATA, str(texts(window[3].value)))
                position += len(window)
            else:
                yield tokens[position]
                position += 1


def _is_label(window: list[Token], texts: Texts) -> bool:
    return (
        tuple(token.type for token in window) == _LABEL_TOKENS and window[1].value == "t" and texts.has(window[3].value)
    )


class _Environment(jinja2.Environment):
    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as one plain dict, not Jinja's ChainMap over the environment's:
        every render copies them into its context, and iterating a ChainMap (Python code) cost
        a few microseconds per render. Nothing changes the environment's globals once made."""
        return {**self.globals, **(d or {})}


@cache
def environment(language: str) -> jinja2.Environment:
    env = _Environment(
        loader=jinja2.PackageLoader("commit_digest.site.rendering", "templates"),
        autoescape=True,
        finalize=html_value,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[_LabelsAsText],
    )
    env.extend(digest_texts=Texts(language))
    env.filters["paragraphs"] = html_paragraphs
    env.filters["title_html"] = title_html
    env.filters["name_html"] = name_html
    return env


def render(template: str, **context: object) -> str:
    """``template`` rendered with ``context``; its words (``t``) choose the language's templates."""
    texts = context["t"]
    assert isinstance(texts, Texts)
    return environment(texts.language).get_template(template).render(context)
