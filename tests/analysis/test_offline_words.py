"""The offline analyzer's words files: every key in every language with the same placeholders, a
reason for every importance rule, and a damaged file named in one line."""

from __future__ import annotations

import ast
import re
import shutil
from importlib import resources
from pathlib import Path
from string import Formatter
from typing import get_args

import pytest
import yaml

from commit_digest.analysis import offline_rules
from commit_digest.analysis.offline import offline_words
from commit_digest.errors import InputError
from commit_digest.settings import Language
from commit_digest.words import read_words

WORDS = resources.files("commit_digest.analysis").joinpath("words")
LANGUAGES: tuple[str, ...] = get_args(Language)


def shipped(language: str) -> dict[str, object]:
    return yaml.safe_load(WORDS.joinpath(f"{language}.yml").read_text(encoding="utf-8"))


def placeholders(text: object) -> set[str]:
    assert isinstance(text, str)
    return {name for _, name, _, _ in Formatter().parse(text) if name is not None}


def importance_rules() -> set[str]:
    """The rule names offline_rules gives an importance judgement: each needs a reason in every language."""
    tree = ast.parse(Path(offline_rules.__file__).read_text(encoding="utf-8"))
    rules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Judgement" and len(node.args) >= 2:
            value, rule = node.args[:2]
            names_a_change_type = isinstance(value, ast.Attribute) and getattr(value.value, "id", "") == "ChangeType"
            if isinstance(rule, ast.Constant) and not names_a_change_type:
                rules.add(rule.value)
    rules |= {rule for rule, _ in offline_rules._SEVERE_FAILURES}
    return rules


def test_every_language_has_every_key_as_a_text_with_the_same_placeholders() -> None:
    files = {language: shipped(language) for language in LANGUAGES}
    first = files[LANGUAGES[0]]
    for language, words in files.items():
        assert list(words) == list(first), language
        assert all(isinstance(value, str) and value for value in words.values()), language
        for key, text in words.items():
            assert placeholders(text) == placeholders(first[key]), (language, key)
        assert dict(offline_words(language)) == words  # type: ignore[arg-type]


def test_every_importance_rule_has_a_reason() -> None:
    rules = importance_rules()
    assert {"docs_test_ci", "series", "hang", "product"} <= rules
    for language in LANGUAGES:
        assert {f"reason_{rule}" for rule in rules} <= set(offline_words(language))  # type: ignore[arg-type]


def test_the_words_are_read_once_per_process() -> None:
    assert offline_words("zh") is offline_words("zh")


@pytest.fixture
def words_copy(tmp_path: Path) -> Path:
    for language in LANGUAGES:
        shutil.copyfile(str(WORDS.joinpath(f"{language}.yml")), tmp_path / f"{language}.yml")
    return tmp_path


@pytest.mark.parametrize(
    ("language", "pattern", "replacement", "message"),
    [
        ("en", r"^reason_revert: .*\n", "", "{en}: reason_revert: missing ({zh} has it)"),
        (
            "zh",
            r"^risk_large: (.*)\{lines\}",
            r"risk_large: \1{count}",
            "{en}: risk_large: the placeholders are {{lines}} but {{count}} in {zh}",
        ),
        ("en", r"^and: .*$", "and: null", "{en}: and: expected a text, found nothing (quote it)"),
        ("zh", r"^lead: .*$", 'lead: "{type}：{title}', "{zh}, line "),
    ],
    ids=["missing key", "wrong placeholder", "not a text", "invalid YAML"],
)
def test_a_damaged_file_is_named_in_one_line(
    words_copy: Path, language: str, pattern: str, replacement: str, message: str
) -> None:
    file = words_copy / f"{language}.yml"
    text = file.read_text(encoding="utf-8")
    damaged = re.sub(pattern, replacement, text, count=1, flags=re.MULTILINE)
    assert damaged != text
    file.write_text(damaged, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_words(words_copy, LANGUAGES)
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(message.format(en=words_copy / "en.yml", zh=words_copy / "zh.yml"))
