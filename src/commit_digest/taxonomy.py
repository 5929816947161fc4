"""Platforms and subsystems: the rules are data (``data/taxonomy.yml``), this module applies them.

``classify`` is a pure function of a commit's title, message and changed paths; every label
it gives carries the reasons (which tag, path or word matched), so a reader can judge it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache, cached_property
from importlib import resources
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any

import pathspec
import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from commit_digest.errors import TaxonomyError
from commit_digest.models import LABEL_ID_PATTERN, Label, LabelSource
from commit_digest.pr_template import described_message

MAX_REASONS_PER_LABEL = 3
_TAG_RUN = re.compile(r"^\s*((?:\[[^\]\n]{1,60}\]\s*:?\s*)+)")
_TAG = re.compile(r"\[([^\]\n]{1,60})\]")
_CONVENTIONAL = re.compile(r"^\s*([A-Za-z]+)(?:\(([^)\n]{1,40})\))?!?:\s")
_PATH_TOKEN_SPLIT = re.compile(r"[/_.\-\s]+")
# Paths that only test or document: they alone never earn a platform.
_TEST_OR_DOC = pathspec.GitIgnoreSpec.from_lines(
    ["tests/", "test/", "docs/", "*.md", "*.rst", "examples/", "test_*.py", "*_test.py"]
)


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
    def _word_patterns(self) -> tuple[tuple[re.Pattern[str], dict[str, str]], ...]:
        """One alternation per case rule (a few regex scans per text instead of one per word),
        with the way back from a matched text to the word as the rule lists it."""
        patterns = []
        for words, ignore_case in ((self.words, True), (self.words_exact, False)):
            if words:
                canonical = {(word.lower() if ignore_case else word): word for word in words}
                patterns.append((_words_pattern(words, ignore_case=ignore_case), canonical))
        return tuple(patterns)

    @cached_property
    def _path_verdicts(self) -> dict[str, bool]:
        return {}

    def _path_counts(self, path: str) -> bool:
        """Whether a changed path earns this label; remembered, as the same paths recur in
        commit after commit and gitignore-style matching is the slow part of classifying."""
        verdict = self._path_verdicts.get(path)
        if verdict is None:
            if self.exclude_paths and self._exclude_spec.match_file(path):
                verdict = False
            else:
                verdict = bool(
                    (self.paths and self._path_spec.match_file(path))
                    or (self._token_set and self._token_set.intersection(path_tokens(path)))
                )
            if len(self._path_verdicts) < 200_000:  # bounded, whatever the archive
                self._path_verdicts[path] = verdict
        return verdict

    def reasons(
        self, tags: Sequence[str], text_fields: Mapping[str, str], paths: Sequence[str], *, paths_may_count: bool
    ) -> list[str]:
        found: list[str] = []
        for tag in tags:
            if tag in self._tag_set:
                found.append(f"tag [{tag}]")
        if paths_may_count:
            found.extend(f"path {path}" for path in paths if self._path_counts(path))
        for field, text in text_fields.items():
            for pattern, canonical in self._word_patterns:
                for match in pattern.finditer(text):
                    matched = match.group(0)
                    word = canonical.get(matched, canonical.get(matched.lower(), matched))
                    found.append(f"word “{word}” in {field}")
        return list(dict.fromkeys(found))


class Taxonomy(_Frozen):
    platforms: tuple[LabelRule, ...]
    subsystems: tuple[LabelRule, ...]

    model_config = ConfigDict(extra="forbid", frozen=True, ignored_types=(cached_property,))

    @cached_property
    def _classified(self) -> dict[tuple[str, str, tuple[str, ...]], Classification]:
        return {}

    def classify(self, title: str, message: str, paths: Sequence[str]) -> Classification:
        """``classify`` with this taxonomy, remembered: a build labels every commit by the current
        rules, once per language, and an archive's commits do not change between languages."""
        key = (title, message, tuple(paths))
        found = self._classified.get(key)
        if found is None:
            found = self._classified[key] = classify(title, message, paths, self)
        return found

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
    texts = {"title": title}
    # Template boilerplate ("What this PR does / why we need it?", checklists, "CI passed with
    # new added/existing test.") is not about the change: it would give every commit of a
    # repository the same labels.
    body = described_message(message).strip()
    if body and body != title.strip():
        texts["message"] = body
    only_tests_or_docs = bool(paths) and all(_TEST_OR_DOC.match_file(path) for path in paths)

    def labels_for(rules: Sequence[LabelRule], *, paths_may_count: bool) -> list[tuple[Label, list[str]]]:
        labelled = []
        for rule in rules:
            reasons = rule.reasons(tags, texts, paths, paths_may_count=paths_may_count)
            if reasons:
                shown = "; ".join(reasons[:MAX_REASONS_PER_LABEL])
                if len(reasons) > MAX_REASONS_PER_LABEL:
                    shown += f" (+{len(reasons) - MAX_REASONS_PER_LABEL})"
                labelled.append((Label(id=rule.id, source=LabelSource.RULE, reason=shown[:300]), reasons))
        return labelled

    platforms = labels_for(taxonomy.platforms, paths_may_count=not only_tests_or_docs)
    # A platform named only in the message (an upstream-sync note, a list of related PRs) does
    # not join one that the title, its tags or the paths give.
    strong = [item for item in platforms if any(not reason.endswith(" in message") for reason in item[1])]
    if strong:
        platforms = strong
    subsystems = labels_for(taxonomy.subsystems, paths_may_count=True)
    return Classification(
        platforms=tuple(label for label, _ in platforms),
        subsystems=tuple(label for label, _ in subsystems),
        reasons={label.id: reasons for label, reasons in platforms + subsystems},
    )


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
