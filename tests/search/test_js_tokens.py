"""The browser client's tokenizer and query parser (run in node) give exactly Python's grams,
hashes and query terms."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources

import pytest

from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.search.documents import synonym_groups
from commit_digest.search.query import parse_query
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

QUERIES = (
    "推测解码",
    "推测解码性能",
    "Speculative   Decoding rocm",
    "spec decode eagle",
    "张量并行优化",
    "MoE层 FP8量化",
    "#31807",
    "[NemotronH] Use ReplicatedLinear for fc1_latent_proj (#31807)",
    "8EBFACAA",
    "5272a28d97dd01283c61886b3aeb779120ce3a37",
    "rocm注意力",
    "kv cache 前缀缓存",
    "...",
    "",
    "量化 quantization int8",
)

SCRIPT = """
const tokens = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = {
  texts: input.texts.map((text) => ({
    document: tokens.documentGrams(text),
    query: tokens.queryGrams(text),
    terms: tokens.queryTerms(text),
    hashes: tokens.documentGrams(text).map(tokens.fnv1a),
  })),
  queries: input.queries.map((query) => tokens.parseQuery(query, input.groups)),
};
process.stdout.write(JSON.stringify(out));
"""


def run_client(payload: dict[str, object]) -> dict[str, list[object]]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the parity tests run the client's tokenizer in node")
    client = resources.files("commit_digest.search").joinpath("assets/digest-search-query.js")
    result = subprocess.run(
        [node, "-e", SCRIPT, str(client)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


def test_js_tokenizer_equals_python(taxonomy: Taxonomy) -> None:
    groups = synonym_groups(taxonomy)
    payload = {
        "texts": TABLE,
        "queries": QUERIES,
        "groups": [{"gram": group.gram, "same": group.same, "narrower": group.narrower} for group in groups],
    }
    out = run_client(payload)
    for text, got in zip(TABLE, out["texts"], strict=True):
        grams = sorted(document_grams(text))
        assert got["document"] == grams, text
        assert got["query"] == query_grams(text), text
        assert got["terms"] == query_terms(text), text
        assert got["hashes"] == [fnv1a(gram) for gram in grams], text
    for query, got in zip(QUERIES, out["queries"], strict=True):
        expected = [
            {
                "typed": term.typed,
                "alternatives": [
                    {"grams": list(alternative.grams), "weight": alternative.weight, "words": alternative.words}
                    for alternative in term.alternatives
                ],
            }
            for term in parse_query(query, groups)
        ]
        assert got == expected, query
