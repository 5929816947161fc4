"""The embedded vLLM sample, analysed offline in Chinese: real titles, paths and mixed-language text."""

from __future__ import annotations

from importlib import resources

import pytest

from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.meaning.taxonomy import Taxonomy, load_taxonomy
from commit_digest.models import CommitRecord
from commit_digest.store.exchange import read_all_records


@pytest.fixture(scope="session")
def taxonomy() -> Taxonomy:
    return load_taxonomy()


@pytest.fixture(scope="session")
def analysed_sample(taxonomy: Taxonomy) -> list[CommitRecord]:
    text = resources.files("commit_digest").joinpath("data/sample-vllm.jsonl").read_text(encoding="utf-8")
    records = read_all_records(text.splitlines(), source="sample-vllm.jsonl")
    analyzer = OfflineAnalyzer(taxonomy, "zh")
    return [record.model_copy(update={"analysis": analyzer.analyze(record.commit)}) for record in records]
