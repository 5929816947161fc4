"""The product's words as data: a folder of ``<language>.yml`` files, read once and checked.

The site's labels, the offline analyzer's sentences and the fixed vocabularies' names each keep
their words beside the code that says them, one file per language, so a new language is new
files rather than new code. This module reads such a folder once per process and checks that
the languages agree (every key in every file, every value a string, each key with the same
placeholders everywhere): a damaged or half-translated file then stops the first command that
needs it with one line naming the file and the key, not with a KeyError deep inside a page.

A noun after a number takes the form that number asks for, written in the text beside its
placeholder: ``"{total} {total:commit|commits}"`` (the form for one, then the form for any other
count). A language whose nouns have one form (Chinese) writes the noun alone: ``"{total} 个提交"``.
``fill`` fills a text so; ``counted`` says a count the same way in the CLI's English lines.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from string import Formatter
from types import MappingProxyType

import yaml

from commit_digest.counting import counted as counted
from commit_digest.counting import is_one
from commit_digest.errors import InputError

# PyYAML's safe loader, in C when PyYAML was built with libyaml: the pure-Python one takes a
# tenth of a second for the site's words, once in every process that builds a page.
_SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _DuplicateKey(Exception):
    def __init__(self, key: object, line: int) -> None:
        super().__init__(key, line)
        self.key, self.line = key, line


class _WordsLoader(_SAFE_LOADER):  # type: ignore[valid-type,misc]
    """The safe loader, but a key written twice is an error: YAML keeps the last one silently, and
    a translator who adds a key that is already there would see their text ignored or win."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[object, object]:
        seen: set[object] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, str) and key in seen:
                raise _DuplicateKey(key, key_node.start_mark.line + 1)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


Words = Mapping[str, str]
"""One language's words: a key (what the code asks for) to its text (fill it with ``fill``)."""

# A placeholder's format spec that picks a noun's form: "{count:file|files}".
_FORMS = re.compile(r"^([^|{}]*)\|([^|{}]*)$")


class _NounForms(Formatter):
    """``str.format``, but a ``{name:one|other}`` field is the form ``name``'s count takes."""

    def format_field(self, value: object, format_spec: str) -> str:
        forms = _FORMS.match(format_spec)
        if forms is None:
            return str(super().format_field(value, format_spec))
        return forms[1] if is_one(value) else forms[2]


_NOUN_FORMS = _NounForms()


def fill(text: str, **values: object) -> str:
    """``text`` (a words file's value) with its placeholders filled and its nouns in the form their
    counts take. Most texts choose no form: those take ``str.format``'s quicker path."""
    if "|" not in text:
        return text.format(**values)
    return _NOUN_FORMS.vformat(text, (), values)


@functools.cache
def load_words(
    folder: Traversable | Path, languages: tuple[str, ...], required: frozenset[str] = frozenset()
) -> Mapping[str, Words]:
    """Each language's words from ``folder/<language>.yml``; read and checked once per process,
    as every caller asks for the same folder thousands of times in a build."""
    return read_words(folder, languages, required)


def read_words(
    folder: Traversable | Path, languages: Collection[str], required: Collection[str] = ()
) -> Mapping[str, Words]:
    """Each language's words from ``folder/<language>.yml``, checked against each other and
    against ``required`` (the keys the code looks up by a computed name, such as an enum's)."""
    files = {language: folder / f"{language}.yml" for language in languages}
    words = {language: _read_file(file) for language, file in files.items()}
    keys = dict.fromkeys(key for texts in words.values() for key in texts) | dict.fromkeys(required)
    for key in keys:
        _check_key(key, files, words)
    return MappingProxyType({language: MappingProxyType(texts) for language, texts in words.items()})


def _check_key(key: str, files: Mapping[str, Traversable | Path], words: Mapping[str, Words]) -> None:
    """``key`` is in every language's words, with the same placeholders as in the first's."""
    for language, texts in words.items():
        if key not in texts:
            holder = next((f"{files[other]} has it" for other in words if key in words[other]), "the code asks for it")
            raise InputError(f"{files[language]}: {key}: missing ({holder})")
    first = next(iter(words))
    expected = _placeholders(files[first], key, words[first][key])
    for language, texts in words.items():
        found = _placeholders(files[language], key, texts[key])
        if found != expected:
            raise InputError(
                f"{files[language]}: {key}: the placeholders are {_listed(found)} but {_listed(expected)} "
                f"in {files[first]}"
            )


def _read_file(file: Traversable | Path) -> dict[str, str]:
    try:
        data = yaml.load(file.read_text(encoding="utf-8"), Loader=_WordsLoader)
    except _DuplicateKey as error:
        raise InputError(f"{file}, line {error.line}: {error.key}: written twice (keep one)") from error
    except FileNotFoundError as error:
        raise InputError(f"{file}: no such file") from error
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{file}: cannot be read: {error}") from error
    except yaml.MarkedYAMLError as error:
        where = f", line {error.problem_mark.line + 1}" if error.problem_mark else ""
        raise InputError(f"{file}{where}: not valid YAML: {error.problem}") from error
    except yaml.YAMLError as error:
        raise InputError(f"{file}: not valid YAML: {' '.join(str(error).split())}") from error
    if not isinstance(data, dict):
        raise InputError(f"{file}: expected a mapping of keys to texts, found {_kind(data)}")
    for key, value in data.items():
        if not isinstance(key, str):
            raise InputError(f"{file}: {key!r}: a key must be a word, found {_kind(key)}")
        if not isinstance(value, str):
            raise InputError(f"{file}: {key}: expected a text, found {_kind(value)} (quote it)")
    return data


def _placeholders(file: Traversable | Path, key: str, text: str) -> set[str]:
    """The names of the values ``text`` shows, as ``fill`` will fill them. A format spec may only
    pick a noun's form (``{count:file|files}``; the values are texts by then), and a count that
    only picks one is not shown: a language whose nouns have one form need not name it
    ("part {parts}" beside "{count:part|parts} {parts}")."""
    try:
        fields = [(name, spec) for _, name, spec, _ in Formatter().parse(text) if name is not None]
    except ValueError as error:  # a lone brace: write {{ or }} for a brace shown as is
        raise InputError(f"{file}: {key}: {error}") from error
    for name, spec in fields:
        if spec and not _FORMS.match(spec):
            raise InputError(
                f"{file}: {key}: {{{name}:{spec}}} is not a noun's two forms: write {{{name}:one|other}}, "
                f"such as {{{name}:file|files}}"
            )
    return {name for name, spec in fields if not spec}


def _listed(names: set[str]) -> str:
    return ", ".join(f"{{{name}}}" for name in sorted(names)) or "none"


def _kind(value: object) -> str:
    """What a YAML value turned out to be, in the words of someone who wrote the file."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"the truth value {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
