"""Platforms and subsystems: the rules are data (``data/taxonomy.yml``), this module applies them.

``classify`` is a pure function of a commit's title, message and changed paths; every label
it gives carries the reasons (which tag, path or word matched), so a reader can judge it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any

import pathspec
import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from commit_digest.errors import TaxonomyError
from commit_digest.fields import LABEL_ID_PATTERN
from commit_digest.meaning.pr_template import described_message
from commit_digest.models import Label, LabelSource

MAX_REASONS_PER_LABEL = 3
_TAG_RUN = re.compile(r"^\s*((?:\[[^\]\n]{1,60}\]\s*:?\s*)+)")
_TAG = re.compile(r"\[([^\]\n]{1,60})\]")
_CONVENTIONAL = re.compile(r"^\s*([A-Za-z]+)(?:\(([^)\n]{1,40})\))?!?:\s")
_PATH_TOKEN_SPLIT = re.compile(r"[/_.\-\s]+")
# Paths that only test or document: they alone never earn a platform.
_TEST_OR_DOC = pathspec.GitIgnoreSpec.from_lines(
    ["tests/", "test/", "docs/", "*.md", "*.rst", "examples/", "test_*.py", "*_test.py"]
)
# The word characters of a word rule's boundaries, as written there (without IGNORECASE).
_ASCII_WORD = re.compile(r"[A-Za-z0-9_]+")
# The four letters besides ASCII's that IGNORECASE makes equal to an ASCII letter (İ ı → i, ſ → s,
# Kelvin K → k; see the re docs): a text holding one is scanned by every rule, unfiltered.
_ASCII_CASE_TWINS = re.compile("[\u0130\u0131\u017f\u212a]")
_MAX_REMEMBERED_PATHS = 200_000  # bounded, whatever the archive


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
    def _word_patterns(self) -> tuple[_Words, ...]:
        """One alternation per case rule (a few regex scans per text instead of one per word)."""
        return tuple(
            _words(words, ignore_case=ignore_case)
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
        """Whether a commit with these tags and runs (``_keys``) may have a tag or a word of this
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

    def reasons(self, tags: Sequence[str], texts: Sequence[_Text], paths: Sequence[str]) -> list[str]:
        """Why this label fits: the title's tags it has, the ``paths`` that count for it (as
        ``Taxonomy.path_match`` tells), the words it finds in each text, in that order."""
        found = [f"tag [{tag}]" for tag in tags if tag in self._tag_set]
        found.extend([f"path {path}" for path in paths])
        for text in texts:
            for words in self._word_patterns:
                for match in words.matches(text):
                    found.append(f"word “{words.canonical_of(match.group(0))}” in {text.field}")
        return list(dict.fromkeys(found)) if found else found


class _Runs:
    """A text's maximal runs of ASCII word characters (as written, or lowercased): which there
    are, and, for the few rules that have one of them as an anchor, where each starts."""

    def __init__(self, text: str, runs: list[str]) -> None:
        self.text = text
        self.runs = runs
        self.distinct = frozenset(runs)

    @cached_property
    def starts(self) -> dict[str, list[int]]:
        """Where each distinct run starts in the text, in order."""
        found: dict[str, list[int]] = {}
        for match, run in zip(_ASCII_WORD.finditer(self.text), self.runs, strict=True):
            found.setdefault(run, []).append(match.start())
        return found


@dataclass(frozen=True)
class _Text:
    """A title or message as the word rules read it: the text, and its ASCII word runs, which
    tell where a word rule's match can start (most rules: nowhere)."""

    field: str
    text: str
    runs: _Runs  # as written
    folded: _Runs | None  # lowercased; None when IGNORECASE could see other runs (a case twin)


def _keys(tags: Sequence[str], texts: Sequence[_Text]) -> frozenset[str] | None:
    """A commit's tags and ASCII word runs (as written and lowercased) in one set, for
    ``LabelRule.may_concern``; None when a text's runs may not be all IGNORECASE sees."""
    keys = set(tags)
    for text in texts:
        if text.folded is None:
            return None
        keys.update(text.runs.distinct, text.folded.distinct)
    return frozenset(keys)


def _text(field: str, text: str) -> _Text:
    runs = _ASCII_WORD.findall(text)
    folded = None if _ASCII_CASE_TWINS.search(text) else _Runs(text, [run.lower() for run in runs])
    return _Text(field=field, text=text, runs=_Runs(text, runs), folded=folded)


@dataclass(frozen=True)
class _Words:
    """The words of a rule under one case rule: the regex that finds them, tried only where a
    match can start, so most rules never scan most texts (Python's re tries a lookbehind-led
    alternation at every position of a text).

    Where a match can start follows from the regex's boundaries: a match of a word that starts
    with an ASCII word character starts a maximal run of the text's ASCII word characters, and
    the word's leading run (its anchor) is that whole run. Other words (CJK, "/v1/...") are
    looked for anywhere, with the regex's flags, by ``loose``: where one begins is a start too."""

    pattern: re.Pattern[str]
    canonical: dict[str, str]  # matched text (lowercased when ignore_case) -> the word as listed
    ignore_case: bool
    anchors: frozenset[str]  # the leading runs, lowercased when ignore_case
    loose: re.Pattern[str] | None
    anywhere: bool  # an empty word: its (empty) matches may start anywhere, so the regex scans

    def matches(self, text: _Text) -> list[re.Match[str]]:
        """The matches ``pattern.finditer`` gives, the same ones in the same order."""
        runs = text.folded if self.ignore_case else text.runs
        if runs is None or self.anywhere:
            return list(self.pattern.finditer(text.text))
        starts = [start for run in self.anchors.intersection(runs.distinct) for start in runs.starts[run]]
        if self.loose is not None:
            starts.extend(_starts(self.loose, text.text))
        if not starts:
            return []
        # finditer's scan, done at the only places a match can start: the leftmost match at or
        # after the end of the previous one (no match is empty here).
        found: list[re.Match[str]] = []
        end = 0
        for start in sorted(set(starts)):
            if start >= end:
                match = self.pattern.match(text.text, start)  # its lookbehind sees text[start - 1]
                if match is not None:
                    found.append(match)
                    end = match.end()
        return found

    def canonical_of(self, matched: str) -> str:
        return self.canonical.get(matched, self.canonical.get(matched.lower(), matched))


def _starts(pattern: re.Pattern[str], text: str) -> list[int]:
    """Every position where ``pattern`` (no empty match) matches, overlapping matches too: a
    search from the character after each (loose words are rare in a text)."""
    starts: list[int] = []
    found = pattern.search(text)
    while found is not None:
        starts.append(found.start())
        found = pattern.search(text, found.start() + 1)
    return starts


def _words(words: Sequence[str], *, ignore_case: bool) -> _Words:
    anchors: set[str] = set()
    loose: list[str] = []
    for word in words:
        run = _ASCII_WORD.match(word)
        # A word with a case twin in it could end its leading run where a text's run goes on.
        if run is None or _ASCII_CASE_TWINS.search(word):
            loose.append(word)
        else:
            anchors.add(run.group().lower() if ignore_case else run.group())
    flags = re.IGNORECASE if ignore_case else 0
    return _Words(
        pattern=_words_pattern(words, ignore_case=ignore_case),
        canonical={(word.lower() if ignore_case else word): word for word in words},
        ignore_case=ignore_case,
        anchors=frozenset(anchors),
        loose=re.compile("|".join(map(re.escape, loose)), flags) if loose else None,
        anywhere="" in words,
    )


@dataclass(frozen=True)
class _PathMatch:
    """What a changed path means to a taxonomy: the rules (by position) it counts for."""

    test_or_doc: bool
    platforms: frozenset[int]
    subsystems: frozenset[int]


class Taxonomy(_Frozen):
    platforms: tuple[LabelRule, ...]
    subsystems: tuple[LabelRule, ...]

    model_config = ConfigDict(extra="forbid", frozen=True, ignored_types=(cached_property,))

    @cached_property
    def _path_matches(self) -> dict[str, _PathMatch]:
        return {}

    def path_match(self, path: str) -> _PathMatch:
        """Which rules a changed path counts for; remembered, as the same paths recur in commit
        after commit and gitignore-style matching is the slow part of classifying."""
        found = self._path_matches.get(path)
        if found is None:
            found = _PathMatch(
                test_or_doc=bool(_TEST_OR_DOC.match_file(path)),
                platforms=frozenset(i for i, rule in enumerate(self.platforms) if rule.counts_path(path)),
                subsystems=frozenset(i for i, rule in enumerate(self.subsystems) if rule.counts_path(path)),
            )
            if len(self._path_matches) < _MAX_REMEMBERED_PATHS:
                self._path_matches[path] = found
        return found

    def classify(self, title: str, message: str, paths: Sequence[str]) -> Classification:
        """``classify``'s labels with this taxonomy, without the list of all reasons behind them:
        a site keeps the labels (each with its shown reason) of every commit of its archive."""
        labels = classify(title, message, paths, self)
        return Classification(platforms=labels.platforms, subsystems=labels.subsystems)

    def platform(self, label_id: str) -> LabelRule | None:
        return next((rule for rule in self.platforms if rule.id == label_id), None)

    def subsystem(self, label_id: str) -> LabelRule | None:
        return next((rule for rule in self.subsystems if rule.id == label_id), None)

    @property
    def platform_ids(self) -> tuple[str, ...]:
        return tuple(rule.id for rule in self.platforms)

    @property
    def subsystem_ids(self) -> tuple[str, ...]:
        return tuple(rule.id for rule in self.subsystems)


class Classification(_Frozen):
    platforms: tuple[Label, ...] = ()
    subsystems: tuple[Label, ...] = ()
    reasons: dict[str, list[str]] = Field(default_factory=dict)


def normalize_tag(tag: str) -> str:
    return " ".join(tag.strip().lower().split())


def title_tags(title: str) -> list[str]:
    """The bracket tags a title starts with, and a conventional commit's type and scope.

    ``[Hardware][AMD] Fix x`` gives ``hardware``, ``amd`` and ``hardware][amd`` (the
    combined form the contributing guide writes); ``fix(rocm): x`` gives ``fix``, ``rocm``.
    """
    tags: list[str] = []
    run = _TAG_RUN.match(title)
    if run:
        found = [normalize_tag(tag) for tag in _TAG.findall(run.group(1))]
        tags.extend(found)
        tags.extend(f"{first}][{second}" for first, second in pairwise(found))
    conventional = _CONVENTIONAL.match(title[run.end() :] if run else title)
    if conventional:
        tags.append(normalize_tag(conventional.group(1)))
        if conventional.group(2):
            tags.extend(normalize_tag(part) for part in conventional.group(2).split(","))
    return list(dict.fromkeys(tag for tag in tags if tag))


def path_tokens(path: str) -> set[str]:
    return {token.lower() for token in _PATH_TOKEN_SPLIT.split(path) if token}


def _words_pattern(words: Sequence[str], *, ignore_case: bool) -> re.Pattern[str]:
    # Word boundaries that also hold next to CJK text and inside identifiers with dots; the
    # longest words first, so "CUDA graph" is found as itself rather than as "CUDA".
    flags = re.IGNORECASE if ignore_case else 0
    alternatives = "|".join(re.escape(word) for word in sorted(set(words), key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])", flags)


def classify(
    title: str,
    message: str = "",
    paths: Sequence[str] = (),
    taxonomy: Taxonomy | None = None,
) -> Classification:
    taxonomy = taxonomy or load_taxonomy()
    tags = title_tags(title)
    texts = [_text("title", title)]
    # Template boilerplate ("What this PR does / why we need it?", checklists, "CI passed with
    # new added/existing test.") is not about the change: it would give every commit of a
    # repository the same labels.
    body = described_message(message).strip()
    if body and body != title.strip():
        texts.append(_text("message", body))
    matches = [taxonomy.path_match(path) for path in paths]
    only_tests_or_docs = bool(paths) and all(match.test_or_doc for match in matches)
    platform_paths = _paths_by_rule(paths, [match.platforms for match in matches]) if not only_tests_or_docs else {}
    subsystem_paths = _paths_by_rule(paths, [match.subsystems for match in matches])

    keys = _keys(tags, texts)

    def labels_for(rules: Sequence[LabelRule], counted_paths: Mapping[int, list[str]]) -> list[tuple[Label, list[str]]]:
        labelled = []
        for position, rule in enumerate(rules):
            paths_counted = counted_paths.get(position, ())
            if not paths_counted and not rule.may_concern(keys):
                continue
            reasons = rule.reasons(tags, texts, paths_counted)
            if reasons:
                shown = "; ".join(reasons[:MAX_REASONS_PER_LABEL])
                if len(reasons) > MAX_REASONS_PER_LABEL:
                    shown += f" (+{len(reasons) - MAX_REASONS_PER_LABEL})"
                labelled.append((Label(id=rule.id, source=LabelSource.RULE, reason=shown[:300]), reasons))
        return labelled

    platforms = labels_for(taxonomy.platforms, platform_paths)
    # A platform named only in the message (an upstream-sync note, a list of related PRs) does
    # not join one that the title, its tags or the paths give.
    strong = [item for item in platforms if any(not reason.endswith(" in message") for reason in item[1])]
    if strong:
        platforms = strong
    subsystems = labels_for(taxonomy.subsystems, subsystem_paths)
    return Classification(
        platforms=tuple(label for label, _ in platforms),
        subsystems=tuple(label for label, _ in subsystems),
        reasons={label.id: reasons for label, reasons in platforms + subsystems},
    )


def _paths_by_rule(paths: Sequence[str], rules_of_path: Sequence[frozenset[int]]) -> dict[int, list[str]]:
    """Each rule's counting paths, in the commit's order: one pass over the paths, not one per rule."""
    by_rule: dict[int, list[str]] = {}
    for path, rules in zip(paths, rules_of_path, strict=True):
        for position in rules:
            by_rule.setdefault(position, []).append(path)
    return by_rule


# -- loading --------------------------------------------------------------------------------


def _rules_from_mapping(section: str, mapping: Mapping[str, Any]) -> tuple[LabelRule, ...]:
    if not isinstance(mapping, Mapping):
        raise TaxonomyError(f"taxonomy section {section!r} must map label ids to rules")
    rules = []
    for label_id, body in mapping.items():
        if not isinstance(body, Mapping):
            raise TaxonomyError(f"taxonomy {section}.{label_id} must be a mapping of rule fields")
        try:
            rules.append(LabelRule.model_validate({"id": label_id, **body}))
        except ValidationError as error:
            raise TaxonomyError(f"taxonomy {section}.{label_id} is invalid: {error}") from error
    return tuple(rules)


def _merge_section(base: Mapping[str, Any], override: Mapping[str, Any] | None) -> dict[str, Any]:
    """An override replaces the fields it names of a label, or adds a label; ``null`` removes one."""
    merged = {label_id: dict(body) for label_id, body in base.items()}
    for label_id, body in (override or {}).items():
        if body is None:
            merged.pop(label_id, None)
        elif isinstance(body, Mapping):
            merged[label_id] = {**merged.get(label_id, {}), **body}
        else:
            raise TaxonomyError(f"taxonomy override for {label_id!r} must be a mapping or null")
    return merged


def combine_overrides(
    first: Mapping[str, Any] | None, second: Mapping[str, Any] | None, *, keep_removals: bool = True
) -> dict[str, Any] | None:
    """Two layers of overrides as one (``second`` wins field by field). A ``null`` of ``second``
    stays a removal, or is passed over with ``keep_removals=False`` (a repository dropping a
    label for its own commits does not drop the label's pages)."""
    if not second:
        return dict(first) if first else None
    merged: dict[str, Any] = {section: dict(labels) for section, labels in (first or {}).items()}
    for section, labels in second.items():
        if not isinstance(labels, Mapping):
            merged[section] = labels  # _build reports the bad section by name
            continue
        target = merged.setdefault(section, {})
        for label_id, body in labels.items():
            if body is None and not keep_removals:
                continue
            base = target.get(label_id)
            both = isinstance(base, Mapping) and isinstance(body, Mapping)
            target[label_id] = {**base, **body} if both else body  # type: ignore[dict-item]
    return merged


_BUILTIN_TEXT = resources.files("commit_digest").joinpath("data/taxonomy.yml")


def builtin_taxonomy_data() -> dict[str, Any]:
    return yaml.safe_load(_BUILTIN_TEXT.read_text(encoding="utf-8"))


def load_taxonomy(override: Mapping[str, Any] | None = None, path: Path | None = None) -> Taxonomy:
    """The built-in taxonomy, or the one in ``path``, with ``override`` (from mkdocs.yml) applied."""
    if path is None and override is None:
        return _builtin()
    if path is not None:
        try:
            base = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as error:
            raise TaxonomyError(f"cannot read the taxonomy file {path}: {error}") from error
    else:
        base = builtin_taxonomy_data()
    return _build(base, override or {})


def _build(base: Mapping[str, Any], override: Mapping[str, Any]) -> Taxonomy:
    unknown = set(override) - {"platforms", "subsystems"}
    if unknown:
        raise TaxonomyError(f"taxonomy override has unknown sections: {', '.join(sorted(unknown))}")
    return Taxonomy(
        platforms=_rules_from_mapping(
            "platforms", _merge_section(base.get("platforms", {}), override.get("platforms"))
        ),
        subsystems=_rules_from_mapping(
            "subsystems", _merge_section(base.get("subsystems", {}), override.get("subsystems"))
        ),
    )


@cache
def _builtin() -> Taxonomy:
    return _build(builtin_taxonomy_data(), {})
