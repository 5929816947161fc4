"""The offline analyzer's and the vocabularies' words files: every key in every language with the
same placeholders, a reason for every importance rule, a name for every change type and importance,
and a damaged file named in one line."""

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

from commit_digest.errors import InputError
from commit_digest.meaning import offline_rules, vocabulary
from commit_digest.meaning.offline import offline_words
from commit_digest.meaning.vocabulary import change_type_name, importance_name
from commit_digest.models import ChangeType, Importance
from commit_digest.settings import Language
from commit_digest.words import read_words

WORDS = resources.files("commit_digest.meaning").joinpath("offline_words")
VOCABULARY_WORDS = resources.files("commit_digest.meaning").joinpath("words")
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


def test_every_change_type_and_importance_is_named_in_every_language() -> None:
    for language in LANGUAGES:
        names = yaml.safe_load(VOCABULARY_WORDS.joinpath(f"{language}.yml").read_text(encoding="utf-8"))
        expected = (
            {f"change_type_{kind.value}" for kind in ChangeType}
            | {f"importance_{level}" for level in Importance}
            | {"not_analysed"}
        )
        assert set(names) == expected, language
        for kind in ChangeType:
            assert (
                change_type_name(kind, language)
                == change_type_name(kind.value, language)
                == names[f"change_type_{kind}"]
            )
        for level in Importance:
            assert (
                importance_name(level, language)
                == importance_name(level.value, language)
                == names[f"importance_{level}"]
            )
    assert change_type_name(ChangeType.CI_BUILD, "zh") == "CI/构建"
    assert importance_name(Importance.LOW, "en") == "low"
    assert change_type_name("a type from elsewhere", "zh") == "a type from elsewhere"


def test_a_vocabulary_value_named_in_no_file_is_missing(tmp_path: Path) -> None:
    for language in LANGUAGES:
        text = VOCABULARY_WORDS.joinpath(f"{language}.yml").read_text(encoding="utf-8")
        (tmp_path / f"{language}.yml").write_text(text.replace("change_type_revert:", "change_type_revet:"), "utf-8")
    with pytest.raises(InputError, match=r"zh\.yml: change_type_revert: missing \(the code asks for it\)$"):
        read_words(tmp_path, LANGUAGES, vocabulary._KEYS)


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
