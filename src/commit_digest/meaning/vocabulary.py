"""How the fixed vocabularies read in each output language: one place for the site, the search,
the offline analyzer and anything else that names a change type or an importance.

The names are data, one file per language in ``words/`` beside this module, read once per
process and checked (``commit_digest.words``): each names every value of ``ChangeType`` and
``Importance`` as ``change_type_<value>`` and ``importance_<value>``, and ``not_analysed``.
"""

from __future__ import annotations

from importlib import resources
from typing import get_args

from commit_digest.models import ChangeType, Importance
from commit_digest.settings import Language
from commit_digest.words import Words, load_words

_WORDS = resources.files("commit_digest.meaning").joinpath("words")
_KEYS = frozenset(
    [f"change_type_{kind.value}" for kind in ChangeType]
    + [f"importance_{level.value}" for level in Importance]
    + ["not_analysed"]
)


def _names(language: str) -> Words:
    return load_words(_WORDS, get_args(Language), _KEYS)[language]


def change_type_name(change_type: ChangeType | str, language: str) -> str:
    """A change type's name in ``language``; a value that is no change type is shown as it is."""
    names = _names(language)
    try:
        return names[f"change_type_{ChangeType(change_type).value}"]
    except ValueError:
        return str(change_type)


def importance_name(importance: Importance | str, language: str) -> str:
    return _names(language)[f"importance_{Importance(importance).value}"]


def not_analysed_name(language: str) -> str:
    """What a commit with no analysis is called where importances are named (the search)."""
    return _names(language)["not_analysed"]
