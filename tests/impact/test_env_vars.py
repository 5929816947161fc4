"""Environment variables: vLLM's and vllm-ascend's env tables (one-line and multi-line entries,
TYPE_CHECKING declarations) and direct reads elsewhere, each added, removed, changed or renamed."""

from __future__ import annotations

from commit_digest.meaning.impact import ChangeKind, ImpactKind, impact_rules, operator_impact

from .conftest import History, rows


def filler(count: int, prefix: str = "VLLM_FILLER") -> str:
    """Entries between the interesting ones, so hunks show only their own context."""
    return "".join(
        f'    "{prefix}_{index}": lambda: os.getenv("{prefix}_{index}", "{index}"),\n' for index in range(count)
    )


def vllm_envs(
    *,
    use_v1: str = '"1"',
    timeout: str = '"60"',
    extra: str = "",
    declared_v1: str = "True",
    debug_log: str = '"False"',
) -> str:
    declarations = "".join(f"    VLLM_FILLER_{index}: str = '{index}'\n" for index in range(12))
    head = (
        "import os\n"
        "from typing import TYPE_CHECKING, Any, Callable\n"
        "\n"
        "if TYPE_CHECKING:\n"
        '    VLLM_HOST_IP: str = ""\n'
        f"    VLLM_USE_V1: bool = {declared_v1}\n"
        "    VLLM_ENGINE_ITERATION_TIMEOUT_S: int = 60\n"
        f"{declarations}\n\n"
        "def get_default_config_root():\n"
        '    return os.getenv("XDG_CONFIG_HOME", os.path.expanduser("~/.config"))\n'
        "\n\n"
        "environment_variables: dict[str, Callable[[], Any]] = {\n"
    )
    entries = [
        "    # Used to force set up loopback IP\n",
        '    "VLLM_HOST_IP": lambda: os.getenv("VLLM_HOST_IP", ""),\n',
        filler(10),
        "    # If set, use the V1 code path.\n",
        f'    "VLLM_USE_V1": lambda: bool(int(os.getenv("VLLM_USE_V1", {use_v1}))),\n',
        filler(10, "VLLM_MORE"),
        "    # Timeout for each iteration in the engine\n",
        '    "VLLM_ENGINE_ITERATION_TIMEOUT_S": lambda: int(\n',
        f'        os.environ.get("VLLM_ENGINE_ITERATION_TIMEOUT_S", {timeout})\n',
        "    ),\n",
        filler(10, "VLLM_LAST"),
        "    # vLLM's own layouts: a function instead of a lambda, a call going on on the next line\n",
        "    'VLLM_PORT':\n",
        "    get_vllm_port,\n",
        '    "VLLM_DEBUG_LOG_API_SERVER_RESPONSE":\n',
        f'    lambda: os.environ.get("VLLM_DEBUG_LOG_API_SERVER_RESPONSE", {debug_log}).\n',
        '    lower() == "true",\n',
        filler(4, "VLLM_END"),
        extra,
    ]
    return head + "".join(entries) + "}\n"


def ascend_envs(*, topk: str = "'0'", extra: str = "") -> str:
    """vllm-ascend's yapf layout: the key on one line, the lambda on the next."""
    entries = "".join(
        f'    "VLLM_ASCEND_FILLER_{index}":\n    lambda: int(os.getenv("VLLM_ASCEND_FILLER_{index}", {index})),\n'
        for index in range(8)
    )
    return (
        "import os\n"
        "from typing import Any, Callable, Dict\n"
        "\n"
        "env_variables: Dict[str, Callable[[], Any]] = {\n"
        '    "MAX_JOBS":\n'
        '    lambda: os.getenv("MAX_JOBS", None),\n' + entries + '    "VLLM_ASCEND_ENABLE_TOPK_OPTIMIZE":\n'
        f'    lambda: bool(int(os.getenv("VLLM_ASCEND_ENABLE_TOPK_OPTIMIZE", {topk}))),\n'
        + entries.replace("FILLER", "MORE")
        + extra
        + "}\n"
    )


def test_a_one_line_default_change_is_reported_with_the_defaults_as_written(history: History) -> None:
    history.commit({"vllm/envs.py": vllm_envs()})
    impact = history.impact({"vllm/envs.py": vllm_envs(use_v1='"0"')})
    assert rows(impact) == [("env-var", "default-changed", "VLLM_USE_V1", '"1"', '"0"')]
    change = impact.changes[0]
    assert (change.path, change.platforms, change.previous_name, impact.partial) == ("vllm/envs.py", (), None, False)


def test_a_multi_line_lambda_default_change_is_reported(history: History) -> None:
    history.commit({"vllm/envs.py": vllm_envs()})
    impact = history.impact({"vllm/envs.py": vllm_envs(timeout='"120"')})
    assert rows(impact) == [("env-var", "default-changed", "VLLM_ENGINE_ITERATION_TIMEOUT_S", '"60"', '"120"')]


def test_vllm_layouts_a_method_call_on_the_next_line_and_a_function_entry(history: History) -> None:
    history.commit({"vllm/envs.py": vllm_envs()})
    assert rows(history.impact({"vllm/envs.py": vllm_envs(debug_log='"True"')})) == [
        ("env-var", "default-changed", "VLLM_DEBUG_LOG_API_SERVER_RESPONSE", '"False"', '"True"')
    ]
    text = vllm_envs(debug_log='"True"').replace("    'VLLM_PORT':\n    get_vllm_port,\n", "")
    assert rows(history.impact({"vllm/envs.py": text})) == [("env-var", "removed", "VLLM_PORT", "", "")]


def test_quotes_and_spacing_alone_are_no_default_change(history: History) -> None:
    history.commit({"vllm/envs.py": vllm_envs()})
    assert rows(history.impact({"vllm/envs.py": vllm_envs(use_v1="'1'", timeout='"60" ')})) == []


def test_an_added_and_a_removed_variable(history: History) -> None:
    added = (
        "    # Enables the new thing.\n"
        '    "VLLM_ENABLE_THING":\n'
        '    lambda: os.getenv("VLLM_ENABLE_THING", "false").lower() in ("1", "true"),\n'
    )
    history.commit({"vllm/envs.py": vllm_envs()})
    assert rows(history.impact({"vllm/envs.py": vllm_envs(extra=added)})) == [
        ("env-var", "added", "VLLM_ENABLE_THING", "", '"false"')
    ]
    assert rows(history.impact({"vllm/envs.py": vllm_envs()})) == [
        ("env-var", "removed", "VLLM_ENABLE_THING", '"false"', "")
    ]


def test_a_declaration_and_its_entry_added_together_are_one_variable_with_the_table_default(
    history: History,
) -> None:
    history.commit({"vllm/envs.py": vllm_envs()})
    text = vllm_envs(extra='    "VLLM_NEW_KNOB": lambda: int(os.getenv("VLLM_NEW_KNOB", "8")),\n').replace(
        "    VLLM_ENGINE_ITERATION_TIMEOUT_S: int = 60\n",
        "    VLLM_ENGINE_ITERATION_TIMEOUT_S: int = 60\n    VLLM_NEW_KNOB: int = 8\n",
    )
    assert rows(history.impact({"vllm/envs.py": text})) == [("env-var", "added", "VLLM_NEW_KNOB", "", '"8"')]


def test_a_declaration_default_alone_is_a_default_change(history: History) -> None:
    history.commit({"vllm/envs.py": vllm_envs()})
    assert rows(history.impact({"vllm/envs.py": vllm_envs(declared_v1="False")})) == [
        ("env-var", "default-changed", "VLLM_USE_V1", "True", "False")
    ]


def test_a_variable_renamed_with_the_same_default_is_one_rename(history: History) -> None:
    history.commit({"vllm/envs.py": vllm_envs()})
    text = vllm_envs().replace(
        '"VLLM_USE_V1": lambda: bool(int(os.getenv("VLLM_USE_V1", "1"))),',
        '"VLLM_USE_V2": lambda: bool(int(os.getenv("VLLM_USE_V2", "1"))),',
    )
    impact = history.impact({"vllm/envs.py": text})
    assert rows(impact) == [("env-var", "renamed", "VLLM_USE_V2", '"1"', '"1"')]
    assert impact.changes[0].previous_name == "VLLM_USE_V1"


def test_vllm_ascend_entries_whose_lambda_is_on_the_next_line(history: History) -> None:
    history.repository = "vllm-project/vllm-ascend"
    history.commit({"vllm_ascend/envs.py": ascend_envs()})
    impact = history.impact({"vllm_ascend/envs.py": ascend_envs(topk="'1'")})
    assert rows(impact) == [("env-var", "default-changed", "VLLM_ASCEND_ENABLE_TOPK_OPTIMIZE", "'0'", "'1'")]
    assert impact.changes[0].platforms == ("ascend",)  # the plugin's own folder names the platform

    added = '    "VLLM_ASCEND_ENABLE_MLAPO":\n    lambda: bool(int(os.getenv("VLLM_ASCEND_ENABLE_MLAPO", \'1\'))),\n'
    assert rows(history.impact({"vllm_ascend/envs.py": ascend_envs(topk="'1'", extra=added)})) == [
        ("env-var", "added", "VLLM_ASCEND_ENABLE_MLAPO", "", "'1'")
    ]
    assert rows(history.impact({"vllm_ascend/envs.py": ascend_envs(extra=added)})) == [
        ("env-var", "default-changed", "VLLM_ASCEND_ENABLE_TOPK_OPTIMIZE", "'1'", "'0'")
    ]
    assert rows(history.impact({"vllm_ascend/envs.py": ascend_envs()})) == [
        ("env-var", "removed", "VLLM_ASCEND_ENABLE_MLAPO", "'1'", "")
    ]


def module(body: str) -> str:
    return "import os\n\n\nclass Worker:\n    def __init__(self):\n        self.ready = True\n" + body + "\n" * 3


def test_a_read_added_in_another_module(history: History) -> None:
    history.commit({"vllm/v1/worker/gpu_worker.py": module("")})
    impact = history.impact(
        {
            "vllm/v1/worker/gpu_worker.py": module(
                '        self.spin = os.environ.get(\n            "VLLM_SPIN_WAIT", "0"\n        ) == "1"\n'
                '        os.environ["VLLM_WORKER_ID"] = "1"  # a write, not a setting\n'
                '        self.home = os.getenv("HOME")  # not a VLLM_ name\n'
            )
        }
    )
    assert rows(impact) == [("env-var", "added", "VLLM_SPIN_WAIT", "", '"0"')]
    assert impact.changes[0].path == "vllm/v1/worker/gpu_worker.py"


def test_a_read_moved_from_a_module_into_the_table_is_no_change(history: History) -> None:
    read = '        self.spin = os.getenv("VLLM_SPIN_WAIT", "0")\n'
    history.commit({"vllm/envs.py": vllm_envs(), "vllm/worker.py": module(read)})
    entry = '    "VLLM_SPIN_WAIT": lambda: os.getenv("VLLM_SPIN_WAIT", "0"),\n'
    impact = history.impact({"vllm/envs.py": vllm_envs(extra=entry), "vllm/worker.py": module("")})
    assert rows(impact) == []


def test_untouched_context_reports_nothing(history: History) -> None:
    history.commit({"vllm/envs.py": vllm_envs()})
    text = vllm_envs().replace("# If set, use the V1 code path.", "# If set, use the V1 code path (the default).")
    assert history.impact({"vllm/envs.py": text}).changes == ()


def test_a_plugin_repository_names_its_own_variables(history: History) -> None:
    body = '        self.lazy = os.getenv("PT_HPU_LAZY_MODE", "1")\n'
    history.commit({"vllm_gaudi/worker.py": module("")})
    commit = history.commit({"vllm_gaudi/worker.py": module(body)})
    assert operator_impact(commit, impact_rules(None)).changes == ()
    gaudi = operator_impact(commit, impact_rules({"env_name_pattern": "^(VLLM|PT_HPU)_"}))
    assert [(change.kind, change.change, change.name, change.platforms) for change in gaudi.changes] == [
        (ImpactKind.ENV_VAR, ChangeKind.ADDED, "PT_HPU_LAZY_MODE", ("hpu",))
    ]
