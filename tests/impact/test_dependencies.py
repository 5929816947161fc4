"""Dependencies: requirement lists, pyproject.toml and setup.py requirement strings, Dockerfile
version ARGs, base image tags and pip-installed pins; the platform comes from the file's path."""

from __future__ import annotations

from commit_digest.meaning.impact import OperatorImpact

from .conftest import History, rows

ROCM = """# Common dependencies
-r common.txt
--extra-index-url https://download.pytorch.org/whl/rocm6.2

numba == 0.60.0; python_version == '3.9'
numba == 0.61.2; python_version > '3.9'
torch==2.5.1
torchvision==0.20.1
boto3
"""

COMMON = """regex # Replace re for higher-performance regex matching
cachetools
psutil
sentencepiece  # Required for LLaMA tokenizer.
numpy
requests >= 2.26.0
tqdm
blake3
py-cpuinfo
transformers >= 4.56.0
tokenizers >= 0.21.1  # Required for fast incremental detokenization.
protobuf # Required by LlamaTokenizer.
"""


def test_a_rocm_requirement_bump_names_the_platform(history: History) -> None:
    history.commit({"requirements/rocm.txt": ROCM})
    impact = history.impact({"requirements/rocm.txt": ROCM.replace("torch==2.5.1", "torch==2.6.0")})
    assert rows(impact) == [("dependency", "version-changed", "torch", "==2.5.1", "==2.6.0")]
    assert (impact.changes[0].path, impact.changes[0].platforms) == ("requirements/rocm.txt", ("rocm",))


def test_a_requirement_added_to_the_common_list(history: History) -> None:
    history.commit({"requirements/common.txt": COMMON})
    text = COMMON.replace("tqdm\n", "tqdm\nopenai-harmony >= 0.0.3 # Required for gpt-oss\n")
    impact = history.impact({"requirements/common.txt": text})
    assert rows(impact) == [("dependency", "added", "openai-harmony", "", ">= 0.0.3")]
    assert impact.changes[0].platforms == ()


def test_markers_keep_two_lines_of_one_package_apart_and_names_match_normalised(history: History) -> None:
    history.commit({"requirements/rocm.txt": ROCM})
    text = ROCM.replace("numba == 0.61.2; python_version > '3.9'", "Numba == 0.62.0; python_version > '3.9'")
    impact = history.impact({"requirements/rocm.txt": text})
    assert rows(impact) == [("dependency", "version-changed", "Numba", "== 0.61.2", "== 0.62.0")]
    assert impact.changes[0].detail == 'python_version > "3.9"'


def test_test_requirements_and_comment_edits_report_nothing(history: History) -> None:
    history.commit({"requirements/test.txt": "pytest==8.0\n", "requirements/common.txt": COMMON})
    changed = {
        "requirements/test.txt": "pytest==8.3\n",
        "requirements/common.txt": COMMON.replace("# Required by LlamaTokenizer.", "# Needed by LlamaTokenizer."),
    }
    assert rows(history.impact(changed)) == []


PYPROJECT = """[build-system]
# Should be mirrored in requirements/build.txt
requires = [
    "cmake>=3.26.1",
    "ninja",
    "packaging>=24.2",
    "setuptools>=77.0.3,<80.0.0",
    "setuptools-scm>=8.0",
    "torch == 2.9.0",
    "wheel",
    "jinja2",
]
build-backend = "setuptools.build_meta"

[project]
name = "vllm"
requires-python = ">=3.10,<3.14"
"""


def test_a_pyproject_build_requirement_bump(history: History) -> None:
    history.commit({"pyproject.toml": PYPROJECT})
    text = PYPROJECT.replace('"torch == 2.9.0"', '"torch == 2.9.1"').replace(">=3.10,<3.14", ">=3.10,<3.15")
    assert rows(history.impact({"pyproject.toml": text})) == [
        ("dependency", "version-changed", "torch", "== 2.9.0", "== 2.9.1")
    ]


SETUP = """from setuptools import setup

def get_requirements():
    requirements = ["ray>=2.9", f"torch=={TORCH_VERSION}"]
    return requirements

setup(name="vllm", install_requires=get_requirements(), python_requires=">=3.9")
"""


def test_setup_py_requirement_strings(history: History) -> None:
    history.commit({"setup.py": SETUP})
    assert rows(history.impact({"setup.py": SETUP.replace('"ray>=2.9"', '"ray[cgraph]>=2.48"')})) == [
        ("dependency", "version-changed", "ray", ">=2.9", ">=2.48")
    ]


DOCKERFILE = """# The vLLM Dockerfile
ARG CUDA_VERSION=12.8.1
ARG PYTHON_VERSION=3.12
ARG TORCH_CUDA_ARCH_LIST='7.0 7.5 8.0 8.9 9.0 10.0 12.0'

#################### BASE BUILD IMAGE ####################
FROM nvidia/cuda:${CUDA_VERSION}-devel-ubuntu22.04 AS base
ARG CUDA_VERSION
ARG PYTHON_VERSION
RUN echo "building"

#################### vLLM installation IMAGE ####################
FROM nvidia/cuda:12.8.1-base-ubuntu22.04 AS vllm-base
ARG CUDA_VERSION
RUN --mount=type=cache,target=/root/.cache/uv \\
    uv pip install --system --index-url https://example.com/simple \\
        "flashinfer-python==0.2.8" "vllm[audio]" && \\
    pip install bitsandbytes>=0.46.1 -r requirements/extra.txt

FROM vllm-base AS test
"""


def dockerfile_edit(history: History, path: str, *edits: tuple[str, str]) -> OperatorImpact:
    """The impact of a commit making ``edits`` (old, new) to ``DOCKERFILE``, committed before at ``path``."""
    history.commit({path: DOCKERFILE})
    text = DOCKERFILE
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    return history.impact({path: text})


def test_a_dockerfile_version_arg_and_base_image_tag_bump(history: History) -> None:
    impact = dockerfile_edit(
        history,
        "docker/Dockerfile",
        ("CUDA_VERSION=12.8.1", "CUDA_VERSION=12.9.1"),
        ("cuda:12.8.1-base", "cuda:12.9.1-base"),
    )
    assert rows(impact) == [
        ("dependency", "version-changed", "CUDA_VERSION", "12.8.1", "12.9.1"),
        ("dependency", "version-changed", "nvidia/cuda", "12.8.1-base-ubuntu22.04", "12.9.1-base-ubuntu22.04"),
    ]
    assert [change.detail for change in impact.changes] == ["ARG", "FROM"]
    assert {change.platforms for change in impact.changes} == {()}


def test_pip_installed_pins_in_a_continued_run_line(history: History) -> None:
    impact = dockerfile_edit(
        history,
        "docker/Dockerfile.xpu",
        ("flashinfer-python==0.2.8", "flashinfer-python==0.3.0"),
        ("bitsandbytes>=0.46.1", "bitsandbytes>=0.47.0"),
    )
    assert rows(impact) == [
        ("dependency", "version-changed", "bitsandbytes", ">=0.46.1", ">=0.47.0"),
        ("dependency", "version-changed", "flashinfer-python", "==0.2.8", "==0.3.0"),
    ]
    assert {change.platforms for change in impact.changes} == {("xpu",)}


def test_a_new_stage_and_arg_reimports_are_no_dependency_change(history: History) -> None:
    history.commit({"docker/Dockerfile": DOCKERFILE})
    text = DOCKERFILE + "\nFROM vllm-base AS openai\nARG CUDA_VERSION\nARG TORCH_CUDA_ARCH_LIST='9.0'\n"
    assert rows(history.impact({"docker/Dockerfile": text})) == []


def test_a_removed_requirement_file_removes_its_pins(history: History) -> None:
    history.commit({"requirements/tpu.txt": "jax==0.4.36\n-r common.txt\n", "requirements/common.txt": COMMON})
    impact = history.impact({"requirements/tpu.txt": None})
    assert rows(impact) == [("dependency", "removed", "jax", "==0.4.36", "")]
    assert impact.changes[0].platforms == ("tpu",)
