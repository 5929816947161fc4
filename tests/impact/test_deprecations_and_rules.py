"""Deprecation warnings added by a commit; ignored paths; partial patches; rule overrides; and
text from a diff that is hostile, huge or not Python at all."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from commit_digest.meaning.impact import ClassRule, ImpactRules, impact_rules, operator_impact
from commit_digest.models import Commit, FileChange, PatchState

from .conftest import History, rows


def loader(body: str = "") -> str:
    filler = "".join(f"    value_{index} = {index}\n" for index in range(10))
    return (
        "import warnings\n\nlogger = init_logger(__name__)\n\n\n"
        "def load_weights(path, *, legacy_format=False):\n" + filler + body + "    return path\n"
    )


def test_a_warning_added_over_three_lines_is_a_deprecation_with_its_message(history: History) -> None:
    history.commit({"vllm/model_executor/model_loader/loader.py": loader()})
    warning = (
        "    if legacy_format:\n"
        "        warnings.warn(\n"
        '            "`legacy_format` is deprecated and will be removed in v0.12; "\n'
        "            f\"convert {path} with the 'convert' command\", DeprecationWarning, stacklevel=2)\n"
    )
    impact = history.impact({"vllm/model_executor/model_loader/loader.py": loader(warning)})
    assert rows(impact) == [("deprecation", "added", "legacy_format", "", "")]
    assert impact.changes[0].detail == (
        "`legacy_format` is deprecated and will be removed in v0.12; convert {path} with the 'convert' command"
    )


def test_logger_warnings_and_decorators_count_other_warnings_do_not(history: History) -> None:
    history.commit({"vllm/utils.py": loader()})
    body = (
        '        logger.warning_once("VLLM_USE_V1=0 is deprecated; V0 will be removed.")\n'
        '        logger.warning("Falling back to the slow path")\n'
        '        warnings.filterwarnings("ignore", category=DeprecationWarning)\n'
        "\n\n"
        '@deprecated("Use `load_weights` instead")\n'
        "def load_weights_v0(path):\n"
        "    return path\n"
    )
    impact = history.impact({"vllm/utils.py": loader(body)})
    assert [(change.name, change.detail) for change in impact.changes] == [
        ("VLLM_USE_V1", "VLLM_USE_V1=0 is deprecated; V0 will be removed."),
        ("load_weights", "Use `load_weights` instead"),
    ]


def test_a_warning_that_only_moved_is_not_new(history: History) -> None:
    warning = '    warnings.warn("old API is deprecated", DeprecationWarning)\n'
    history.commit({"vllm/utils.py": loader(warning)})
    moved = loader().replace("    value_0 = 0\n", "    value_0 = 0\n" + warning)
    assert rows(history.impact({"vllm/utils.py": moved})) == []


def test_changes_under_ignored_paths_report_nothing(history: History) -> None:
    flag = '    parser.add_argument("--new-flag", default=1)\n'
    warning = '    warnings.warn("x is deprecated", DeprecationWarning)\n'
    history.commit({"tests/test_cli.py": loader(), "benchmarks/run.py": loader(), "examples/serve.py": loader()})
    impact = history.impact(
        {"tests/test_cli.py": loader(flag), "benchmarks/run.py": loader(warning), "examples/serve.py": loader(flag)}
    )
    assert impact.changes == ()
    assert not impact.partial


def test_a_truncated_patch_makes_the_impact_partial(history: History) -> None:
    history.commit({"vllm/a.py": loader(), "vllm/envs.py": "environment_variables = {\n}\n", "logo.png": "x"})
    entry = '    "VLLM_NEW": lambda: os.getenv("VLLM_NEW", "1"),\n'
    changed = {
        "vllm/a.py": loader("    x = 1\n" * 50),
        "vllm/envs.py": "environment_variables = {\n" + entry + "}\n",
        "logo.png": "y",
    }
    whole = history.commit(changed)
    assert not operator_impact(whole, impact_rules(None)).partial
    history.commit({"vllm/a.py": loader(), "vllm/envs.py": "environment_variables = {\n}\n"})
    capped = history.commit(changed, patch_cap_bytes=300)
    assert [file.patch_state for file in capped.files] == [PatchState.TRUNCATED, PatchState.TRUNCATED]
    impact = operator_impact(capped, impact_rules(None))
    assert impact.partial and impact.changes == ()


def test_patches_not_collected_are_partial_but_a_pure_rename_is_not(history: History) -> None:
    history.commit({"vllm/old_name.py": loader()})
    renamed = history.commit({"vllm/old_name.py": None, "vllm/new_name.py": loader()})
    assert (renamed.files[0].patch_state, renamed.files[0].previous_path) == (
        PatchState.UNAVAILABLE,
        "vllm/old_name.py",
    )
    assert not operator_impact(renamed, impact_rules(None)).partial
    uncollected = history.commit({"vllm/new_name.py": loader("    y = 2\n")}, patch_cap_bytes=None)
    assert operator_impact(uncollected, impact_rules(None)).partial
    assert not operator_impact(uncollected, impact_rules({"enabled": False})).partial


def test_overrides_replace_the_fields_they_name_and_bad_ones_are_refused() -> None:
    rules = impact_rules(
        {
            "env_name_pattern": "^(VLLM|HCCL)_",
            "engine_arg_classes": [{"paths": ["vllm_ascend/ascend_config.py"], "classes": "^AscendConfig$"}],
            "platform_paths": {"ascend": ["*"]},
        }
    )
    assert rules.env_name_pattern == "^(VLLM|HCCL)_"
    assert rules.engine_arg_classes == (ClassRule(paths=("vllm_ascend/ascend_config.py",), classes="^AscendConfig$"),)
    assert rules.ignore_paths == ImpactRules().ignore_paths
    assert rules.roles("vllm_ascend/ops/x.py").platforms == ("ascend",)
    assert impact_rules(None) is impact_rules({})  # the defaults are built once
    for bad in ({"env_name_pattern": "(unclosed"}, {"unknown": 1}, {"platform_paths": {"Not An Id": ["x"]}}):
        with pytest.raises(ValidationError):
            impact_rules(bad)


@pytest.mark.parametrize(
    ("path", "platforms"),
    [
        ("requirements/rocm.txt", ("rocm",)),
        ("docker/Dockerfile.xpu", ("xpu",)),
        ("vllm/platforms/rocm.py", ("rocm",)),
        ("vllm/platforms/CUDA.py", ("cuda",)),
        ("vllm/v1/worker/tpu_model_runner.py", ("tpu",)),
        ("vllm/outputs.py", ()),  # "tpu" inside "outputs" is no platform
        ("vllm/inputs/preprocess.py", ()),  # nor "npu" inside "inputs"
        ("vllm/v1/kv_offload/cpu.py", ()),  # CPU offloading is a GPU feature
        ("docker/Dockerfile.cpu", ("cpu",)),
        ("vllm_ascend/worker/model_runner_v1.py", ("ascend",)),
        ("vllm_gaudi/extension/ops.py", ("hpu",)),
        ("vllm/worker/hpu_worker.py", ("hpu",)),
    ],
)
def test_platforms_from_paths(path: str, platforms: tuple[str, ...]) -> None:
    assert impact_rules(None).roles(path).platforms == platforms


def synthetic(*files: tuple[str, str], state: PatchState = PatchState.INCLUDED) -> Commit:
    moment = datetime(2026, 1, 7, tzinfo=UTC)
    return Commit(
        repository="vllm-project/vllm",
        sha="a" * 40,
        author_name="x",
        authored_at=moment,
        committed_at=moment,
        title="t",
        files=tuple(FileChange(path=path, patch=patch, patch_state=state, additions=1) for path, patch in files),
    )


def test_hostile_names_and_messages_pass_as_plain_capped_text() -> None:
    script = "<script>alert(1)</script>"
    patch = (
        "@@ -1,3 +1,6 @@ def serve(parser):\n"
        "     parser = make()\n"
        f'+    parser.add_argument("--{script}", default="{script}{"x" * 500}")\n'
        f'+    warnings.warn("{script} is deprecated {"y" * 500}", DeprecationWarning)\n'
        "+    done = True\n"
        "     return parser\n"
    )
    impact = operator_impact(synthetic(("vllm/cli.py", patch)), impact_rules(None))
    flag, deprecation = impact.changes
    assert flag.name == f"--{script}" and flag.new is not None and flag.new.startswith(f'"{script}')
    assert len(flag.new) == 200 and flag.new.endswith("…")
    assert deprecation.name == "serve"  # no subject in the message: the function git names in the header
    assert len(deprecation.detail) == 300 and deprecation.detail.startswith(f"{script} is deprecated y")


def test_odd_input_never_raises_and_gives_the_same_answer_twice() -> None:
    generator = random.Random(7)
    alphabet = "\"'()[]{}#=,:\\\n @+-abcVLLM_getenvos.environadd_argumentwarnDeprecationWarning\x00é中\ud7ff"
    pieces = [
        '+    "VLLM_X": lambda: os.getenv("VLLM_X", (((',
        "+parser.add_argument(\"--x\", default='''",
        '-    warnings.warn("deprecated',
        "@@ -1 +1 @@ class EngineArgs:",
        "+    field: int = (",
        "+FROM image:tag@",
        "+torch==",
        "+ARG X_VERSION=",
        '+"""',
        "\\ No newline at end of file",
    ]
    paths = ["vllm/envs.py", "vllm/engine/arg_utils.py", "vllm/config/x.py", "requirements/rocm.txt", "Dockerfile"]
    for _ in range(300):
        lines = [
            generator.choice(pieces) if generator.random() < 0.5 else "".join(generator.choices(alphabet, k=40))
            for _ in range(generator.randint(0, 30))
        ]
        patch = "\n".join(["@@ -1,5 +1,5 @@", *lines])
        commit = synthetic(*((path, patch) for path in paths))
        first = operator_impact(commit, impact_rules(None))
        assert operator_impact(commit, impact_rules(None)) == first
    huge = synthetic(("vllm/envs.py", "@@ -1 +1 @@\n+" + "(" * 200_000 + '"VLLM_A": os.getenv("VLLM_A"'))
    operator_impact(huge, impact_rules(None))
