"""The words the generated pages show, in Chinese (the default) and English, as HTML.

The words themselves are data, one file per language in ``words/`` beside this module (read once
per process and checked by ``commit_digest.words``); this module turns a language's words into
the labels the templates and views ask for.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from types import MappingProxyType
from typing import get_args

from markupsafe import Markup, escape

from commit_digest.meaning.vocabulary import change_type_name
from commit_digest.settings import Language
from commit_digest.site.rendering.escape import html_text
from commit_digest.words import fill, load_words

LANGUAGES: tuple[str, ...] = get_args(Language)
_WORDS = resources.files("commit_digest.site.rendering").joinpath("words")


class Texts:
    """The labels of one language as HTML; values are trusted Markup (they come from the words files only)."""

    def __init__(self, language: str) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r}: expected one of {', '.join(LANGUAGES)}")
        self.language = language
        self._text: Mapping[str, str] = load_words(_WORDS, LANGUAGES)[language]
        # A label without values is asked for thousands of times per build (a colon, a heading's word).
        self._markup: Mapping[str, Markup] = MappingProxyType({key: Markup(text) for key, text in self._text.items()})
        self._change_types: dict[str, Markup] = {}

    def __call__(self, key: str, **values: object) -> Markup:
        """A label with ``values`` filled in (a noun after a count in the form the count takes);
        values that are not Markup go through the escaping path."""
        if not values:
            return self._markup[key]
        template = self._text[key]
        safe = {name: value if isinstance(value, Markup) else html_text(value) for name, value in values.items()}
        return Markup(fill(template, **safe))

    def has(self, key: str) -> bool:
        return key in self._text

    def change_type(self, value: str) -> Markup:
        # Remembered: a change type (an enum's value, a handful) is named on every listing line.
        if value not in self._change_types:
            self._change_types[value] = escape(change_type_name(value, self.language))
        return self._change_types[value]
