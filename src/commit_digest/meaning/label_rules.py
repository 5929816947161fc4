"""One label of the taxonomy file (a platform or a subsystem) and what earns it: the pydantic
schema of a label's rules (tags, paths, path tokens, words, exclusions, search synonyms) with the
tests each rule makes of a commit's tags, changed paths and texts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property
from typing import Annotated

import pathspec
from pydantic import BaseModel, ConfigDict, StringConstraints

from commit_digest.fields import LABEL_ID_PATTERN
from commit_digest.meaning.label_words import Text, Words, compile_words

_PATH_TOKEN_SPLIT = re.compile(r"[/_.\-\s]+")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DisplayName(_Frozen):
    zh: str
    en: str

    def in_language(self, language: str) -> str:
        return self.en if language == "en" else self.zh


class LabelRule(_Frozen):
    id: Annotated[str, StringConstraints(pattern=LABEL_ID_PATTERN)]
    name: DisplayName
    description: DisplayName | None = None
    tags: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    path_tokens: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    words_exact: tuple[str, ...] = ()
    exclude_paths: tuple[str, ...] = ()
    # Search only: words that mean the label, in any language. A query holding one also finds
    # the others and every commit with the label.
    synonyms: tuple[str, ...] = ()
    # Search only: kinds of the label ("eagle" for speculative decoding). The label's synonyms
    # find them; they do not find the whole label, as a reader asking for one kind wants that kind.
    narrower: tuple[str, ...] = ()

    model_config = ConfigDict(extra="forbid", frozen=True, ignored_types=(cached_property,))

    @cached_property
    def _tag_set(self) -> frozenset[str]:
        return frozenset(normalize_tag(tag) for tag in self.tags)

    @cached_property
    def _path_spec(self) -> pathspec.PathSpec:
        return pathspec.GitIgnoreSpec.from_lines(self.paths)

    @cached_property
    def _exclude_spec(self) -> pathspec.PathSpec:
        return pathspec.GitIgnoreSpec.from_lines(self.exclude_paths)

    @cached_property
    def _token_set(self) -> frozenset[str]:
        return frozenset(token.lower() for token in self.path_tokens)

    @cached_property
    def _word_patterns(self) -> tuple[Words, ...]:
        """One alternation per case rule (a few regex scans per text instead of one per word)."""
        return tuple(
            compile_words(words, ignore_case=ignore_case)
            for words, ignore_case in ((self.words, True), (self.words_exact, False))
            if words
        )

    @cached_property
    def _triggers(self) -> frozenset[str] | None:
        """What a commit's tags and ASCII word runs must hold for this rule to find a tag or a
        word in it: its tags and its words' anchors (None: it has words looked for anywhere)."""
        if any(words.loose is not None for words in self._word_patterns):
            return None
        return self._tag_set.union(*(words.anchors for words in self._word_patterns))

    def may_concern(self, keys: frozenset[str] | None) -> bool:
        """Whether a commit with these tags and runs (``commit_keys``) may have a tag or a word of this
        rule: most rules are passed over with one set test."""
        triggers = self._triggers
        return keys is None or triggers is None or not triggers.isdisjoint(keys)

    def counts_path(self, path: str) -> bool:
        """Whether a changed path earns this label (``Taxonomy`` remembers the answer per path)."""
        if self.exclude_paths and self._exclude_spec.match_file(path):
            return False
        return bool(
            (self.paths and self._path_spec.match_file(path))
            or (self._token_set and self._token_set.intersection(path_tokens(path)))
        )

    def reasons(self, tags: Sequence[str], texts: Sequence[Text], paths: Sequence[str]) -> list[str]:
        """Why this label fits: the title's tags it has, the ``paths`` that count for it (as
        ``Taxonomy.path_match`` tells), the words it finds in each text, in that order."""
        found = [f"tag [{tag}]" for tag in tags if tag in self._tag_set]
        found.extend([f"path {path}" for path in paths])
        for text in texts:
            for words in self._word_patterns:
                for match in words.matches(text):
                    found.append(f"word “{words.canonical_of(match.group(0))}” in {text.field}")
        return list(dict.fromkeys(found)) if found else found


def normalize_tag(tag: str) -> str:
    return " ".join(tag.strip().lower().split())


def path_tokens(path: str) -> set[str]:
    return {token.lower() for token in _PATH_TOKEN_SPLIT.split(path) if token}
