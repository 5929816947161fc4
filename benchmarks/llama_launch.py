"""Runs llama-cpp-python's OpenAI-compatible server (``python -m llama_cpp.server``, same arguments)
without llama.cpp's extra weight buffer types. Run by .venv-llm's python, not the project's.

Why: on a CPU that reports AMX (this machine's does), ggml puts Q4_K weights in its AMX buffer type
and the first matrix product crashes in ``ggml_backend_amx_mul_mat`` (a segmentation fault, with
the wheel built natively for this CPU). ``use_extra_bufts`` off keeps the weights in plain CPU
buffers: slower prompt evaluation, the same replies. llama-cpp-python 0.3.36 has no option for it,
so the model-parameter defaults are wrapped before the server builds its model.
"""

import runpy
import sys

import llama_cpp.llama_cpp as bindings

_defaults = bindings.llama_model_default_params


def _without_extra_buffers():  # type: ignore[no-untyped-def]
    params = _defaults()
    params.use_extra_bufts = False
    return params


bindings.llama_model_default_params = _without_extra_buffers
sys.argv = ["llama_cpp.server", *sys.argv[1:]]
runpy.run_module("llama_cpp.server", run_name="__main__")
