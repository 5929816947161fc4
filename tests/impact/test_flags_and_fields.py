"""CLI flags (argparse add_argument calls, often over several lines) and engine-argument fields
(EngineArgs and the *Config dataclasses), found by the class git names in the hunk header."""

from __future__ import annotations

from .conftest import History, rows


def cli_module(*, port_default: str = "8000", extra: str = "") -> str:
    filler = "".join(
        f'    parser.add_argument("--filler-{index}", type=int, default={index}, help="Filler {index}.")\n'
        for index in range(12)
    )
    return (
        "import argparse\n\n\n"
        "def make_arg_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:\n"
        '    parser.add_argument("--host", type=str, default=None, help="Host name.")\n'
        + filler
        + "    parser.add_argument(\n"
        '        "--port",\n'
        "        type=int,\n"
        f"        default={port_default},\n"
        '        help="Port number (the server listens "\n'
        '        "on all interfaces).",\n'
        "    )\n" + filler.replace("filler", "later") + extra + "    return parser\n"
    )


def test_a_flag_added_with_a_default_and_a_default_changed_in_a_multi_line_call(history: History) -> None:
    history.commit({"vllm/entrypoints/openai/cli_args.py": cli_module()})
    added = '    parser.add_argument("--enable-log-outputs", "-l", action="store_true", default=False)\n'
    impact = history.impact({"vllm/entrypoints/openai/cli_args.py": cli_module(port_default="8080", extra=added)})
    assert rows(impact) == [
        ("cli-flag", "added", "--enable-log-outputs", "", "False"),
        ("cli-flag", "default-changed", "--port", "8000", "8080"),
    ]
    assert {change.path for change in impact.changes} == {"vllm/entrypoints/openai/cli_args.py"}


def test_a_removed_flag_and_a_renamed_one(history: History) -> None:
    history.commit({"vllm/cli.py": cli_module(extra='    parser.add_argument("--old-name", default=1)\n')})
    assert rows(
        history.impact({"vllm/cli.py": cli_module(extra='    parser.add_argument("--new-name", default=1)\n')})
    ) == [("cli-flag", "renamed", "--new-name", "1", "1")]
    assert rows(history.impact({"vllm/cli.py": cli_module()})) == [("cli-flag", "removed", "--new-name", "1", "")]


def test_help_text_edits_and_positional_arguments_report_nothing(history: History) -> None:
    history.commit({"vllm/cli.py": cli_module()})
    text = cli_module(extra='    parser.add_argument("model_tag", type=str)\n').replace(
        "on all interfaces", "on every interface"
    )
    assert rows(history.impact({"vllm/cli.py": text})) == []


def test_flags_whose_defaults_move_into_keyword_dictionaries_keep_their_defaults(history: History) -> None:
    history.commit({"vllm/cli.py": cli_module()})
    text = cli_module(extra='    parser.add_argument("--gone", **kwargs["gone"])\n').replace(
        '    parser.add_argument("--host", type=str, default=None, help="Host name.")\n',
        '    group.add_argument("--host", **model_kwargs["host"])\n',
    )
    assert rows(history.impact({"vllm/cli.py": text})) == [("cli-flag", "added", "--gone", "", "")]
    renamed = text.replace('"--gone", **kwargs["gone"]', '"--went", **kwargs["went"]')
    assert rows(history.impact({"vllm/cli.py": renamed})) == [
        ("cli-flag", "removed", "--gone", "", ""),
        ("cli-flag", "added", "--went", "", ""),  # unknown defaults are not "the same default"
    ]


def engine_args(*, max_len: str = "None", extra: str = "") -> str:
    filler = "".join(f"    filler_{index}: int = {index}\n" for index in range(10))
    return (
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\n"
        "class EngineArgs:\n"
        '    """Arguments for vLLM engine."""\n\n'
        '    model: str = "facebook/opt-125m"\n'
        + filler
        + f"    max_model_len: int | None = {max_len}\n"
        + filler.replace("filler", "later")
        + extra
        + "\n"
        "    def create_engine_config(self) -> None:\n"
        "        local: int = 3\n"
        "        return None\n"
        "\n\n"
        "def helper() -> None:\n"
        "    unrelated: int = 5\n"
    )


def test_an_engine_args_field_added_and_a_default_changed(history: History) -> None:
    history.commit({"vllm/engine/arg_utils.py": engine_args()})
    impact = history.impact(
        {"vllm/engine/arg_utils.py": engine_args(max_len="8192", extra="    enable_sleep_mode: bool = False\n")}
    )
    assert rows(impact) == [
        ("engine-arg", "added", "enable_sleep_mode", "", "False"),
        ("engine-arg", "default-changed", "max_model_len", "None", "8192"),
    ]
    assert [change.detail for change in impact.changes] == [
        "EngineArgs --enable-sleep-mode",
        "EngineArgs --max-model-len",
    ]


def test_a_default_continued_after_a_backslash_is_read_whole(history: History) -> None:
    field = '    override_generation_config: dict[str, Any] = \\\n        get_field(ModelConfig, "{}")\n'
    history.commit({"vllm/engine/arg_utils.py": engine_args(extra=field.format("override_generation_config"))})
    impact = history.impact({"vllm/engine/arg_utils.py": engine_args(extra=field.format("generation_overrides"))})
    assert rows(impact) == [
        (
            "engine-arg",
            "default-changed",
            "override_generation_config",
            'get_field(ModelConfig, "override_generation_config")',
            'get_field(ModelConfig, "generation_overrides")',
        )
    ]


def test_locals_of_methods_and_functions_after_the_class_are_not_fields(history: History) -> None:
    history.commit({"vllm/engine/arg_utils.py": engine_args()})
    text = engine_args().replace("local: int = 3", "local: int = 4").replace("unrelated: int = 5", "unrelated: int = 6")
    assert rows(history.impact({"vllm/engine/arg_utils.py": text})) == []


def config_module(field: str = "enable_prefix_caching", default: str = "True", doc_line: str = "") -> str:
    filler = "".join(f'    filler_{index}: int = {index}\n    """Filler {index}."""\n' for index in range(8))
    return (
        "from dataclasses import dataclass, field\n\n\n"
        "@config\n"
        "@dataclass\n"
        "class CacheConfig:\n"
        '    """Configuration for the KV cache."""\n\n'
        "    block_size: int = 16\n"
        '    """Size of a contiguous cache block.\n\n'
        "    note: this line of the docstring looks like a field\n"
        f'    {doc_line}"""\n' + filler + f"    {field}: bool = {default}\n"
        '    """Whether to enable prefix caching."""\n'
        + filler.replace("filler", "later")
        + "    extra: dict[str, int] = field(\n"
        "        default_factory=dict\n"
        "    )\n"
    )


def test_a_config_field_renamed(history: History) -> None:
    history.commit({"vllm/config/cache.py": config_module()})
    impact = history.impact({"vllm/config/cache.py": config_module(field="prefix_caching")})
    assert rows(impact) == [("engine-arg", "renamed", "prefix_caching", "True", "True")]
    change = impact.changes[0]
    assert (change.previous_name, change.detail) == ("enable_prefix_caching", "CacheConfig --prefix-caching")


def test_docstring_lines_are_not_fields(history: History) -> None:
    history.commit({"vllm/config/cache.py": config_module()})
    text = config_module(doc_line="mode: str\n    ").replace("note: this line", "note: that line")
    assert rows(history.impact({"vllm/config/cache.py": text})) == []


def test_classes_the_rules_do_not_name_are_passed_over(history: History) -> None:
    text = config_module().replace("class CacheConfig", "class CacheHelper")
    history.commit({"vllm/config/cache.py": text})
    assert rows(history.impact({"vllm/config/cache.py": text.replace("= True", "= False")})) == []
