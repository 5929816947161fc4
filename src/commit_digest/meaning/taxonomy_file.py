"""Reading the taxonomy file and its overrides: the built-in ``data/taxonomy.yml`` or a file of
one's own, overrides (from mkdocs.yml, a repository's settings) merged label by label, and each
label validated into a ``LabelRule``. Errors name the file, section or label at fault.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from commit_digest.errors import TaxonomyError
from commit_digest.meaning.label_rules import LabelRule


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
            merged[section] = labels  # validated_sections reports the bad section by name
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


def read_taxonomy_file(path: Path) -> Any:
    """A taxonomy file's YAML, as parsed (``validated_sections`` checks it)."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise TaxonomyError(f"cannot read the taxonomy file {path}: {error}") from error


def validated_sections(
    base: Mapping[str, Any], override: Mapping[str, Any]
) -> tuple[tuple[LabelRule, ...], tuple[LabelRule, ...]]:
    """The platforms and the subsystems of ``base`` with ``override`` applied, validated."""
    unknown = set(override) - {"platforms", "subsystems"}
    if unknown:
        raise TaxonomyError(f"taxonomy override has unknown sections: {', '.join(sorted(unknown))}")
    platforms = _rules_from_mapping("platforms", _merge_section(base.get("platforms", {}), override.get("platforms")))
    subsystems = _rules_from_mapping(
        "subsystems", _merge_section(base.get("subsystems", {}), override.get("subsystems"))
    )
    return platforms, subsystems
