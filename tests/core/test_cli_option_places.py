"""The options every command takes go where people type them: ``-f``, ``--cache`` and ``-v``
before or after the command's name; given in both places, the one after the command wins."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from commit_digest.cli import COMMAND_MODULES, _chosen_module, build_parser, main
from commit_digest.commands.common import DEFAULT_CONFIG
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.exchange import record_line
from tests.factories import make_commit

COMMIT_DIGEST = Path(sys.executable).parent / "commit-digest"
# A configuration that fails as soon as it is read, naming itself: proof that it was the one read.
BAD_ZONE = "site_name: x\nplugins:\n  - commit-digest:\n      timezone: Asia/Bejing\n"


def bad_config(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "mkdocs.yml"
    config.write_text(BAD_ZONE, encoding="utf-8")
    return config


def store_of(folder: Path, number: int) -> tuple[Path, CommitRecord]:
    """A store holding one commit of its own, and that commit."""
    record = CommitRecord(commit=make_commit(number))
    with AnalysisStore(folder) as store:
        store.put(record)
    return folder, record


# -- -f and --cache before or after the command ------------------------------------------


@pytest.mark.parametrize("before", [True, False], ids=["before", "after"])
@pytest.mark.parametrize("command", [["fetch", "--repo", "a/b"], ["stats"], ["export"], ["demo", "--no-build"]])
def test_the_config_file_is_read_wherever_f_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], before: bool
) -> None:
    config = bad_config(tmp_path / "site")
    given = ["-f", str(config)]
    assert main([*given, *command] if before else [*command, *given]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert f"error: {config}: plugins.commit-digest.timezone: unknown time zone 'Asia/Bejing'" in error


@pytest.mark.parametrize("words", [["--cache", "{store}", "export"], ["export", "--cache", "{store}"]])
def test_the_store_is_read_wherever_cache_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], words: list[str]
) -> None:
    store, record = store_of(tmp_path / "store", 1)
    assert main([word.format(store=store) for word in words]) == 0
    assert capsys.readouterr().out == record_line(record) + "\n"
    assert list(Path.cwd().iterdir()) == []  # no ./cache made on the side


def test_build_takes_f_and_cache_before_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "plain" / "mkdocs.yml"
    (config.parent / "docs").mkdir(parents=True)
    config.write_text("site_name: plain\n", encoding="utf-8")
    assert main(["--cache", str(tmp_path / "store"), "-f", str(config), "build"]) == 2
    assert capsys.readouterr().err == (
        f"commit-digest build: error: {config} does not enable the commit-digest plugin under 'plugins:'\n"
    )


def test_the_installed_command_takes_f_before_the_command(tmp_path: Path) -> None:
    """Issue 44 as it was typed: `commit-digest -f x.yml fetch` used to be `invalid choice: 'x.yml'`."""
    result = subprocess.run(
        [str(COMMIT_DIGEST), "-f", "x.yml", "fetch", "--repo", "a/b"], capture_output=True, text=True, check=False
    )
    assert (result.returncode, result.stderr) == (2, "commit-digest fetch: error: config file x.yml does not exist\n")


# -- both places: the one after the command wins -----------------------------------------


def test_cache_given_in_both_places_is_the_one_after_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    after, record = store_of(tmp_path / "after", 2)
    before = tmp_path / "before"
    assert main(["--cache", str(before), "export", "--cache", str(after)]) == 0
    assert capsys.readouterr().out == record_line(record) + "\n"
    assert not before.exists()


def test_f_given_in_both_places_is_the_one_after_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    after = bad_config(tmp_path / "after")
    assert main(["-f", str(tmp_path / "missing.yml"), "stats", "-f", str(after), "--cache", "s"]) == 2
    assert f"error: {after}: plugins.commit-digest.timezone" in capsys.readouterr().err
    assert main(["-f", str(after), "stats", "-f", str(tmp_path / "missing.yml"), "--cache", "s"]) == 2
    assert (
        capsys.readouterr().err
        == f"commit-digest stats: error: config file {tmp_path / 'missing.yml'} does not exist\n"
    )


# -- what the parser hands the command ---------------------------------------------------


def parsed(words: list[str]) -> dict[str, object]:
    args = build_parser(words).parse_args(words)
    return {name: getattr(args, name) for name in ("config_file", "cache", "verbose")}


def test_options_given_nowhere_keep_each_commands_own_default() -> None:
    assert parsed(["stats"]) == {"config_file": None, "cache": None, "verbose": False}
    assert parsed(["build"]) == {"config_file": DEFAULT_CONFIG, "cache": None, "verbose": False}


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["-v", "-f", "a.yml", "--cache", "c", "build"], {"config_file": Path("a.yml"), "cache": Path("c")}),
        (["build", "-v", "-f", "a.yml", "--cache", "c"], {"config_file": Path("a.yml"), "cache": Path("c")}),
        (["-v", "-f", "a.yml", "build", "--cache", "c"], {"config_file": Path("a.yml"), "cache": Path("c")}),
        (
            ["--cache", "c", "-v", "build", "-f", "b.yml", "--cache", "d"],
            {"config_file": Path("b.yml"), "cache": Path("d")},
        ),
    ],
)
def test_verbose_and_values_before_after_and_in_both_places(words: list[str], expected: dict[str, object]) -> None:
    assert parsed(words) == {**expected, "verbose": True}


@pytest.mark.parametrize(
    "words",
    [
        ["-f", "x.yml", "fetch"],
        ["--config-file", "x.yml", "fetch"],
        ["--config-file=x.yml", "fetch"],
        ["-fx.yml", "fetch"],
        ["-vf", "x.yml", "fetch"],
        ["--cache", "build", "fetch"],  # a store folder named like a command
        ["--ca", "build", "fetch"],  # an abbreviation argparse accepts
        ["-v", "--cache", "c", "fetch", "-f", "y.yml"],
    ],
)
def test_the_command_is_the_first_word_that_is_no_option_nor_the_value_of_one(words: list[str]) -> None:
    assert _chosen_module(words) == "fetch"


def test_a_command_after_options_still_imports_only_its_own_module() -> None:
    code = (
        "import sys, commit_digest.cli as c; c.build_parser(['-f', 'analyze.yml', '--cache', 'analyze', 'build']); "
        "print('openai' in sys.modules, 'commit_digest.commands.analyze' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_every_command_takes_f_and_cache() -> None:
    """What is given before the command always reaches it: every command has both options."""
    parser = build_parser()
    for module in COMMAND_MODULES:
        for command in {"records": ("import", "export", "show")}.get(module, (module.replace("_", "-"),)):
            args = parser.parse_args(["-f", "x.yml", "--cache", "c", command, *required_words(command)])
            assert (args.config_file, args.cache) == (Path("x.yml"), Path("c")), command


def required_words(command: str) -> list[str]:
    return {"import": ["f.jsonl"], "import-legacy": ["f.md"], "show": ["abc1234"]}.get(command, [])


# -- errors stay one line; no mkdocs.yml and no -f behaves as before ---------------------


def test_an_option_without_its_value_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["stats", "--cache"])
    assert stopped.value.code == 2
    with pytest.raises(SystemExit):
        main(["-f"])
    error = capsys.readouterr().err
    assert "Traceback" not in error
    assert "commit-digest stats: error: argument --cache: expected one argument\n" in error
    assert error.endswith("commit-digest: error: argument -f/--config-file: expected one argument\n")


def test_without_mkdocs_yml_and_f_commands_other_than_demo_behave_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["build"]) == 2
    assert capsys.readouterr().err == "commit-digest build: error: config file mkdocs.yml does not exist\n"
    store, record = store_of(tmp_path / "store", 3)
    assert main(["export", "--cache", str(store)]) == 0
    assert capsys.readouterr().out == record_line(record) + "\n"
    assert main(["stats", "--cache", str(store)]) == 0
    assert "no LLM analyses in the store yet" in capsys.readouterr().out
    assert list(Path.cwd().iterdir()) == []
