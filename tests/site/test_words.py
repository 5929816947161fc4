"""The site's words files: every key in every language with the same placeholders, and a damaged
file stops the build with one line naming the file and the key."""

from __future__ import annotations

import re
import shutil
from importlib import resources
from pathlib import Path
from string import Formatter

import pytest
import yaml
from markupsafe import Markup

from commit_digest.errors import InputError
from commit_digest.site.rendering.i18n import LANGUAGES, Texts
from commit_digest.words import counted, fill, load_words, read_words

WORDS = resources.files("commit_digest.site.rendering").joinpath("words")


def shipped(language: str) -> dict[str, object]:
    return yaml.safe_load(WORDS.joinpath(f"{language}.yml").read_text(encoding="utf-8"))


def placeholders(text: str) -> set[str]:
    """The values a text shows: a count that only picks a noun's form ({count:part|parts}) is not
    shown, and a language whose nouns have one form need not name it."""
    return {name for _, name, spec, _ in Formatter().parse(text) if name is not None and not spec}


def test_every_language_has_every_key_as_a_text() -> None:
    files = {language: shipped(language) for language in LANGUAGES}
    keys = set(files[LANGUAGES[0]])
    assert len(keys) > 300
    for language, words in files.items():
        assert set(words) == keys, language
        assert all(isinstance(value, str) and value for value in words.values()), language
    for key in keys:
        for language in LANGUAGES:
            assert Texts(language).has(key)


def test_every_key_has_the_same_placeholders_in_every_language() -> None:
    files = {language: shipped(language) for language in LANGUAGES}
    for key, text in files[LANGUAGES[0]].items():
        assert isinstance(text, str)
        for language in LANGUAGES[1:]:
            other = files[language][key]
            assert isinstance(other, str)
            assert placeholders(other) == placeholders(text), (key, language)


def test_the_fast_loader_reads_what_the_pure_python_safe_loader_reads() -> None:
    loaded = load_words(WORDS, LANGUAGES)
    for language in LANGUAGES:
        assert dict(loaded[language]) == shipped(language)


def test_the_words_are_read_once_per_process() -> None:
    assert load_words(WORDS, LANGUAGES) is load_words(WORDS, LANGUAGES)
    assert Texts("zh")._text is Texts("zh")._text


def test_labels_escape_their_values_and_keep_markup() -> None:
    texts = Texts("en")
    assert texts("label_reason", reason="<b>&") == Markup(" (reason: &lt;b&gt;&amp;)")
    assert texts("label_reason", reason=Markup("<b>x</b>")) == Markup(" (reason: <b>x</b>)")
    assert texts("colon") is texts("colon")
    assert Texts("zh")("page_of", page=2, pages=5) == Markup("第 2 / 5 页")
    assert Texts("zh").change_type("bugfix") == Markup("缺陷修复")


def test_a_noun_after_a_count_takes_the_form_the_count_asks_for() -> None:
    en, zh = Texts("en"), Texts("zh")
    assert en("stats_total", total=1) == Markup("1 commit")
    assert en("stats_total", total=0) == Markup("0 commits")
    assert en("stats_total", total=12) == Markup("12 commits")
    assert "个提交" in zh("stats_total", total=1)
    assert en("files_line", files=1, additions=2, deletions=3) == Markup("1 file, +2 / -3")
    assert en("series_missing", parts="3", count=1) == Markup("Not landed yet: part 3")
    assert en("series_missing", parts="3, 4", count=2) == Markup("Not landed yet: parts 3, 4")
    assert zh("series_missing", parts="3, 4", count=2) == Markup("尚未合入：第 3, 4 部分")


def test_fill_picks_forms_and_leaves_other_text_alone() -> None:
    assert fill("{n} {n:file|files} and {m} {m:line|lines}", n=1, m=2) == "1 file and 2 lines"
    assert fill("a | b {x}", x=1) == "a | b 1"
    assert counted(1, "commit", "commits") == "1 commit"
    assert counted(0, "commit", "commits") == "0 commits"


@pytest.fixture
def words_copy(tmp_path: Path) -> Path:
    """A copy of the site's words files that a test may damage."""
    for language in LANGUAGES:
        shutil.copyfile(str(WORDS.joinpath(f"{language}.yml")), tmp_path / f"{language}.yml")
    return tmp_path


def rewrite(file: Path, pattern: str, replacement: str) -> None:
    text = file.read_text(encoding="utf-8")
    changed = re.sub(pattern, replacement, text, count=1, flags=re.MULTILINE)
    assert changed != text, pattern
    file.write_text(changed, encoding="utf-8")


def read_error(folder: Path) -> str:
    with pytest.raises(InputError) as caught:
        read_words(folder, LANGUAGES)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_an_intact_copy_reads(words_copy: Path) -> None:
    assert read_words(words_copy, LANGUAGES)["en"]["nav_home"] == "Home"


def test_a_missing_key_names_the_file_and_the_key(words_copy: Path) -> None:
    rewrite(words_copy / "en.yml", r"^nav_search: .*\n", "")
    message = read_error(words_copy)
    assert message.startswith(f"{words_copy / 'en.yml'}: nav_search: missing")
    assert str(words_copy / "zh.yml") in message


def test_a_key_one_language_added_alone_is_missing_from_the_others(words_copy: Path) -> None:
    rewrite(words_copy / "en.yml", r"^nav_home: .*\n", r"\g<0>nav_extra: Extra\n")
    assert read_error(words_copy).startswith(f"{words_copy / 'zh.yml'}: nav_extra: missing")


def test_a_key_the_code_asks_for_is_required(words_copy: Path) -> None:
    with pytest.raises(InputError, match=r"zh\.yml: nav_nowhere: missing \(the code asks for it\)$"):
        read_words(words_copy, LANGUAGES, required=["nav_nowhere"])


def test_a_wrong_placeholder_names_the_file_and_the_key(words_copy: Path) -> None:
    rewrite(words_copy / "en.yml", r"^(home_intro: .*)\{days\}", r"\1{day}")
    message = read_error(words_copy)
    assert message == (
        f"{words_copy / 'en.yml'}: home_intro: the placeholders are {{day}} but {{days}} in {words_copy / 'zh.yml'}"
    )


def test_a_lost_placeholder_is_a_difference_too(words_copy: Path) -> None:
    rewrite(words_copy / "zh.yml", r"^home_intro: .*$", "home_intro: 最近的提交。")
    assert read_error(words_copy).startswith(
        f"{words_copy / 'en.yml'}: home_intro: the placeholders are {{days}} but none"
    )


def test_a_format_spec_that_is_not_two_forms_is_refused(words_copy: Path) -> None:
    rewrite(words_copy / "en.yml", r"^stats_total: .*$", 'stats_total: "{total:>5} commits"')
    assert read_error(words_copy) == (
        f"{words_copy / 'en.yml'}: stats_total: {{total:>5}} is not a noun's two forms: write "
        "{total:one|other}, such as {total:file|files}"
    )


def test_a_count_shown_in_one_language_only_is_a_difference(words_copy: Path) -> None:
    rewrite(words_copy / "en.yml", r"^stats_total: .*$", 'stats_total: "{total:commit|commits}"')
    assert read_error(words_copy).startswith(f"{words_copy / 'en.yml'}: stats_total: the placeholders are none")


def test_a_lone_brace_names_the_key(words_copy: Path) -> None:
    rewrite(words_copy / "en.yml", r"^nav_home: .*$", 'nav_home: "Home }"')
    assert read_error(words_copy).startswith(f"{words_copy / 'en.yml'}: nav_home: Single '}}'")


@pytest.mark.parametrize(
    ("value", "found"),
    [("yes", "the truth value true"), ("", "nothing"), ("42", "the number 42"), ("[a, b]", "a list")],
)
def test_a_value_that_is_not_a_text_names_the_key(words_copy: Path, value: str, found: str) -> None:
    rewrite(words_copy / "zh.yml", r"^nav_home: .*$", f"nav_home: {value}")
    assert read_error(words_copy) == f"{words_copy / 'zh.yml'}: nav_home: expected a text, found {found} (quote it)"


def test_invalid_yaml_names_the_file_and_the_line(words_copy: Path) -> None:
    rewrite(words_copy / "en.yml", r"^nav_home: .*$", 'nav_home: "Home')
    message = read_error(words_copy)
    assert message.startswith(f"{words_copy / 'en.yml'}, line ")
    assert "not valid YAML" in message


def test_a_key_written_twice_names_the_file_the_line_and_the_key(words_copy: Path) -> None:
    text = (words_copy / "en.yml").read_text(encoding="utf-8")
    (words_copy / "en.yml").write_text(text + "nav_home: Start\n", encoding="utf-8")
    line = text.count("\n") + 1
    assert read_error(words_copy) == f"{words_copy / 'en.yml'}, line {line}: nav_home: written twice (keep one)"


def test_a_file_that_is_not_a_mapping_is_refused(words_copy: Path) -> None:
    (words_copy / "en.yml").write_text("- Home\n- Archive\n", encoding="utf-8")
    assert read_error(words_copy) == f"{words_copy / 'en.yml'}: expected a mapping of keys to texts, found a list"


def test_a_missing_language_file_is_named(words_copy: Path) -> None:
    (words_copy / "en.yml").unlink()
    assert read_error(words_copy) == f"{words_copy / 'en.yml'}: no such file"


def test_a_file_that_is_not_utf8_is_named(words_copy: Path) -> None:
    (words_copy / "zh.yml").write_bytes("nav_home: 首页\n".encode("gb18030"))
    assert read_error(words_copy).startswith(f"{words_copy / 'zh.yml'}: cannot be read")
