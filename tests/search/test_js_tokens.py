"""The browser client's tokenizer (run in node) gives exactly Python's grams and hashes."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources

import pytest

from commit_digest.search.tokens import document_grams, fnv1a, query_grams, query_terms

TABLE = (
    "修复 KV 缓存泄漏，降低显存占用",
    "[Kernel] Optimize fused_moe_kernel for MI300X",
    "新增FP8量化路径（W8A8）",
    "ＦＵＬＬ－ＷＩＤＴＨ　ＦＰ８　量化",
    "🙂 emoji 🚀 between 缓存🙂命中 words",
    "EngineV1引擎 v1 TP并行 a-b x",
    "Straße İstanbul ǅ Kelvin\u212a ﬁle",
    "日本語のテキスト 한국어 텍스트 𠀀𠀁 extension B",
    "tabs\tand\nnew\u3000lines\u2003em space",
    "",
    "_ __init__ a_b_c 0x1f",
)

SCRIPT = """
const tokens = require(process.argv[1]);
const table = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = table.map((text) => ({
  document: tokens.documentGrams(text),
  query: tokens.queryGrams(text),
  terms: tokens.queryTerms(text),
  hashes: tokens.documentGrams(text).map(tokens.fnv1a),
}));
process.stdout.write(JSON.stringify(out));
"""


def test_js_tokenizer_equals_python() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the tokenizer parity test runs the client's tokenizer in node")
    client = resources.files("commit_digest.search").joinpath("assets/digest-search.js")
    result = subprocess.run(
        [node, "-e", SCRIPT, str(client)],
        input=json.dumps(TABLE),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    for text, got in zip(TABLE, json.loads(result.stdout), strict=True):
        grams = sorted(document_grams(text))
        assert got["document"] == grams, text
        assert got["query"] == query_grams(text), text
        assert got["terms"] == query_terms(text), text
        assert got["hashes"] == [fnv1a(gram) for gram in grams], text
