"""Platforms and subsystems: the rules are data (``data/taxonomy.yml``), this module applies them.

``classify`` is a pure function of a commit's title, message and changed paths; every label
it gives carries the reasons (which tag, path or word matched), so a reader can judge it.
A label's rules and their tests live in ``label_rules`` (their words in ``label_words``), the
reading of the file and its overrides in ``taxonomy_file``; this module holds the ``Taxonomy``
they make up, loads it, and classifies a commit with it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from itertools import pairwise
from pathlib import Path
from typing import Any

import pathspec
from pydantic import BaseModel, ConfigDict, Field

from commit_digest.meaning.label_rules import LabelRule, normalize_tag
from commit_digest.meaning.label_words import commit_keys, read_text
from commit_digest.meaning.pr_template import described_message
from commit_digest.meaning.taxonomy_file import builtin_taxonomy_data, read_taxonomy_file, validated_sections
from commit_digest.models import Label, LabelSource

MAX_REASONS_PER_LABEL = 3
_TAG_RUN = re.compile(r"^\s*((?:\[[^\]\n]{1,60}\]\s*:?\s*)+)")
_TAG = re.compile(r"\[([^\]\n]{1,60})\]")
_CONVENTIONAL = re.compile(r"^\s*([A-Za-z]+)(?:\(([^)\n]{1,40})\))?!?:\s")
# Paths that only test or document: they alone never earn a platform.
_TEST_OR_DOC = pathspec.GitIgnoreSpec.from_lines(
    ["tests/", "test/", "docs/", "*.md", "*.rst", "examples/", "test_*.py", "*_test.py"]
)
_MAX_REMEMBERED_PATHS = 200_000  # bounded, whatever the archive


@dataclass(frozen=True)
class _PathMatch:
    """What a changed path means to a taxonomy: the rules (by position) it counts for."""

    test_or_doc: bool
    platforms: frozenset[int]
    subsystems: frozenset[int]


class Taxonomy(BaseModel):
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


class Classification(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    platforms: tuple[Label, ...] = ()
    subsystems: tuple[Label, ...] = ()
    reasons: dict[str, list[str]] = Field(default_factory=dict)


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


def classify(
    title: str,
    message: str = "",
    paths: Sequence[str] = (),
    taxonomy: Taxonomy | None = None,
) -> Classification:
    taxonomy = taxonomy or load_taxonomy()
    tags = title_tags(title)
    texts = [read_text("title", title)]
    # Template boilerplate ("What this PR does / why we need it?", checklists, "CI passed with
    # new added/existing test.") is not about the change: it would give every commit of a
    # repository the same labels.
    body = described_message(message).strip()
    if body and body != title.strip():
        texts.append(read_text("message", body))
    matches = [taxonomy.path_match(path) for path in paths]
    only_tests_or_docs = bool(paths) and all(match.test_or_doc for match in matches)
    platform_paths = _paths_by_rule(paths, [match.platforms for match in matches]) if not only_tests_or_docs else {}
    subsystem_paths = _paths_by_rule(paths, [match.subsystems for match in matches])

    keys = commit_keys(tags, texts)

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


def load_taxonomy(override: Mapping[str, Any] | None = None, path: Path | None = None) -> Taxonomy:
    """The built-in taxonomy, or the one in ``path``, with ``override`` (from mkdocs.yml) applied."""
    if path is None and override is None:
        return _builtin()
    base = read_taxonomy_file(path) if path is not None else builtin_taxonomy_data()
    return _build(base, override or {})


def _build(base: Mapping[str, Any], override: Mapping[str, Any]) -> Taxonomy:
    platforms, subsystems = validated_sections(base, override)
    return Taxonomy(platforms=platforms, subsystems=subsystems)


@cache
def _builtin() -> Taxonomy:
    return _build(builtin_taxonomy_data(), {})
