"""A reply at every cap the prompt states is stored, through the real client, and never asked for again.

The replies are made from the reply models' own JSON schemas: every text as long as its cap allows,
every list as long as its cap allows, every optional insight present. A cap the store refused
would mark such a paid answer failed and pay for it again the next night."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from commit_digest import caps
from commit_digest.analysis import llm_schema, translation
from commit_digest.analysis.llm_schema import LlmAnalysis, bilingual_reply_model
from commit_digest.analysis.prompt import system_prompt
from commit_digest.analysis.translation import LlmTranslation
from commit_digest.cli import main
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import Analysis, AnalysisText, CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from tests.analysis.bilingual_replies import is_translation, stored_analysis
from tests.analysis.conftest import make_commit, write_config
from tests.fakes.openai_server import FakeOpenAIServer, JsonObject, Reply, completion

TAXONOMY = load_taxonomy()
# Han characters for Chinese, words for English: each language's wording passes its script checks.
FILLERS = {"zh": "并行解码的调度改动", "en": "scheduler change "}
CONFIG = """site_name: caps
plugins:
  - commit-digest:
      languages: {languages}
      llm:
        retry_backoff_seconds: 0
        max_output_tokens: 60000
"""


def _text(length: int, language: str, variant: int = 0) -> str:
    """``length`` characters with no space at either end (the models strip them before counting);
    each ``variant`` starts the filler elsewhere, so that a list's items differ (the floor refuses
    a list that says one thing again and again)."""
    filler = FILLERS[language]
    starts = [index for index, char in enumerate(filler) if not char.isspace()]
    start = starts[variant % len(starts)]
    filler = filler[start:] + filler[:start]
    text = (filler * (length // len(filler) + 1))[:length]
    return text[:-1] + "。" if text.endswith(" ") else text


def at_caps(schema: JsonObject, language: str, node: JsonObject | None = None, name: str = "", variant: int = 0) -> Any:
    """The largest value ``node`` (of the JSON schema ``schema``) allows: texts and lists at their caps."""
    node = schema if node is None else node
    if "$ref" in node:
        return at_caps(schema, language, schema["$defs"][node["$ref"].rsplit("/", 1)[1]], name, variant)
    if "anyOf" in node:  # an optional insight: given, not null
        optional = next(part for part in node["anyOf"] if part.get("type") != "null")
        return at_caps(schema, language, optional, name, variant)
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    if kind == "object":
        properties = node["properties"]
        return {
            # A wording names its language.
            key: at_caps(schema, key if key in FILLERS else language, value, key, variant)
            for key, value in properties.items()
        }
    if kind == "array":
        if name in ("platforms", "subsystems"):
            ids = TAXONOMY.platform_ids if name == "platforms" else TAXONOMY.subsystem_ids
            reason = node["items"]["$ref"].rsplit("/", 1)[1]
            cap = schema["$defs"][reason]["properties"]["reason"]["maxLength"]
            return [{"id": label, "reason": _text(cap, language)} for label in ids[: node["maxItems"]]]
        return [at_caps(schema, language, node["items"], name, item) for item in range(node["maxItems"])]
    if kind == "string":
        return _text(node["maxLength"], language, variant)
    raise AssertionError(f"no value at its caps for {node}")


def reply_at_caps(model: type[Any], language: str) -> JsonObject:
    return at_caps(model.model_json_schema(), language)  # type: ignore[no-any-return]


def _lengths(value: Any) -> list[int]:
    """Every text's length and every list's length, anywhere in ``value``."""
    if isinstance(value, str):
        return [len(value)]
    if isinstance(value, list | tuple):
        return [len(value), *(length for item in value for length in _lengths(item))]
    if isinstance(value, dict):
        return [length for item in value.values() for length in _lengths(item)]
    return []


def _store(cache_dir: Path, numbers: range) -> list[str]:
    with AnalysisStore(cache_dir) as store:
        for number in numbers:
            store.merge(CommitRecord(commit=make_commit(number)))
    return [make_commit(number).sha for number in numbers]


def _stored(cache_dir: Path) -> dict[str, Analysis | None]:
    with AnalysisStore(cache_dir) as store:
        return {record.commit.sha: record.analysis for record in store.records()}


def test_the_asked_caps_fit_the_stored_ones_and_the_prompt_states_them() -> None:
    caps.check_within(caps.ASKED, caps.STORED)
    caps.check_within(caps.TRANSLATED, caps.STORED)
    with pytest.raises(ValueError, match="note"):
        caps.check_within(caps.STORED, caps.ASKED)
    prompt = system_prompt(repository="vllm-project/vllm", taxonomy=TAXONOMY, language="zh")
    rule = next(line for line in prompt.splitlines() if line.startswith("5. "))
    stated = {int(number) for number in re.findall(r"\d+", rule.removeprefix("5. "))}
    assert {caps.ASKED.paragraph, caps.ASKED.note, caps.ASKED.short, caps.ASKED.summary_items} <= stated
    assert {caps.ASKED.impact_items, caps.ASKED.list_items, caps.ASKED_LABELS} <= stated


@pytest.mark.parametrize("model", [LlmAnalysis, bilingual_reply_model(("zh", "en"))], ids=["one", "two"])
def test_the_reply_schema_is_what_the_caps_say(model: type[Any]) -> None:
    reply = reply_at_caps(model, "zh")
    parsed = llm_schema.validated_reply(model, json.dumps(reply, ensure_ascii=False))
    wording = parsed if model is LlmAnalysis else parsed.zh
    assert len(wording.summary) == caps.ASKED.summary_items
    assert len(wording.impact_scope) == caps.ASKED.impact_items
    assert {len(item.note) for item in wording.impact_scope} == {caps.ASKED.note}
    assert len(wording.conclusion) == caps.ASKED.paragraph
    one_more = json.loads(json.dumps(reply))
    (one_more if model is LlmAnalysis else one_more["zh"])["impact_scope"][0]["note"] += "长"
    with pytest.raises(llm_schema.InvalidReplyError, match="impact_scope"):
        llm_schema.validated_reply(model, json.dumps(one_more, ensure_ascii=False))


@pytest.mark.parametrize("languages", ["[zh]", "[en]", "[zh, en]", "[en, zh]"])
def test_a_reply_at_every_stated_cap_is_stored_once_and_never_asked_again(
    languages: str, server: FakeOpenAIServer, cache_dir: Path, tmp_path: Path
) -> None:
    codes = tuple(code.strip() for code in languages.strip("[]").split(","))
    model = LlmAnalysis if len(codes) == 1 else bilingual_reply_model((codes[0], codes[1]))

    def at_every_cap(request: JsonObject) -> Reply:
        return completion(json.dumps(reply_at_caps(model, codes[0]), ensure_ascii=False))

    server.responder = at_every_cap  # type: ignore[assignment]
    config = write_config(tmp_path, CONFIG.format(languages=languages))
    shas = _store(cache_dir, range(1, 4))
    assert main(["analyze", "-f", str(config), "--cache", str(cache_dir), "--timeout", "5"]) == 0
    assert len(server.chat_requests) == 3

    stored = _stored(cache_dir)
    for sha in shas:
        analysis = stored[sha]
        assert analysis is not None and analysis.ok, analysis and analysis.provenance.error
        assert analysis.language == codes[0] and set(analysis.languages) == set(codes)
        assert len(analysis.summary) == caps.ASKED.summary_items
        assert [len(item.note) for item in analysis.impact_scope] == [caps.ASKED.note] * caps.ASKED.impact_items
        assert len(analysis.recommendations) == caps.ASKED.list_items
        assert max(_lengths(analysis.model_dump(include={"summary", "risks", "conclusion"}))) == caps.ASKED.paragraph
        assert len([label for label in analysis.platforms if label.source == "llm"]) <= caps.ASKED_LABELS

    server.reset()
    assert main(["analyze", "-f", str(config), "--cache", str(cache_dir), "--timeout", "5"]) == 0
    assert server.chat_requests == []


def test_a_translation_at_every_stated_cap_is_stored_once(
    server: FakeOpenAIServer, cache_dir: Path, tmp_path: Path
) -> None:
    def translation_at_caps(request: JsonObject) -> Reply:
        assert is_translation(request)
        source = AnalysisText.model_validate(stored_analysis().text().model_dump())
        reply = reply_at_caps(LlmTranslation, "en")
        # The source's shape, each text at the translation's cap.
        for name in ("summary", "impact_scope", "risks", "recommendations"):
            reply[name] = reply[name][: len(getattr(source, name))]
        for name, value in source.insights.model_dump().items():
            if value is None:
                reply["insights"][name] = None
        return completion(json.dumps(reply, ensure_ascii=False))

    server.responder = translation_at_caps  # type: ignore[assignment]
    config = write_config(tmp_path, CONFIG.format(languages="[zh, en]"))
    with AnalysisStore(cache_dir) as store:
        store.merge(CommitRecord(commit=make_commit(1), analysis=stored_analysis()))
    assert main(["translate", "-f", str(config), "--cache", str(cache_dir)]) == 0
    assert len(server.chat_requests) == 1
    english = _stored(cache_dir)[make_commit(1).sha].translations["en"]  # type: ignore[union-attr]
    assert {len(item.note) for item in english.impact_scope} == {translation.NOTE_CAP}
    assert len(english.conclusion) == translation.PARAGRAPH_CAP == caps.STORED.paragraph

    server.reset()
    assert main(["translate", "-f", str(config), "--cache", str(cache_dir)]) == 0
    assert server.chat_requests == []
