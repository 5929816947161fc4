"""Day briefs end to end: `commit-digest brief` with the real openai client against the scripted
server and a real store. A brief is paid for once per completed day and platform (and the whole
day), asked again only when that day's analyses change, and stored only above its floor: every
citation a commit of that day on that platform, no text naming what the day does not hold."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest

from commit_digest.analysis.brief_floor import DayCommit, brief_problem, named_outside_the_day, resolve_citation
from commit_digest.analysis.brief_task import brief_lease_name
from commit_digest.cli import main
from commit_digest.models import Analysis, ChangeType, CommitRecord, Importance, Provenance, TokenUsage
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.briefs import DayBrief
from commit_digest.store.leases import Lease
from tests.analysis.brief_replies import SENTENCES, asked_for, brief_content, brief_responder
from tests.analysis.conftest import write_config
from tests.factories import make_commit, numbered_sha
from tests.fakes.openai_server import FakeOpenAIServer, completion

CONFIG = """site_name: briefs
plugins:
  - commit-digest:
      languages: [zh, en]
      timezone: UTC
      llm:
        retry_backoff_seconds: 0
        timeout_seconds: 20
"""
TODAY = datetime.now(UTC).date()
YESTERDAY = TODAY - timedelta(days=1)
BEFORE = TODAY - timedelta(days=2)
HIGH, MEDIUM, LOW = Importance.HIGH, Importance.MEDIUM, Importance.LOW


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return write_config(tmp_path, CONFIG)


@pytest.fixture(autouse=True)
def _brief_replies(server: FakeOpenAIServer) -> None:
    server.responder = brief_responder  # type: ignore[assignment]


def analysis(importance: Importance | None, minute: int = 0) -> Analysis | None:
    if importance is None:
        return None
    return Analysis(
        change_type=ChangeType.BUGFIX,
        importance=importance,
        summary=("修复了注意力内核的问题。", "第二条摘要。"),
        provenance=Provenance(
            analyzer="llm:gpt-4o-mini",
            prompt_version="llm-1",
            created_at=datetime(2026, 1, 9, 6, minute, tzinfo=UTC),
            usage=TokenUsage(prompt_tokens=1000, completion_tokens=200),
        ),
    )


def fill(cache_dir: Path, commits: list[tuple[date, str, Importance | None]], start: int = 1) -> list[str]:
    """Commits of (day, title, importance) numbered from ``start``; their short shas."""
    with AnalysisStore(cache_dir) as store:
        for number, (day, title, importance) in enumerate(commits, start=start):
            when = datetime.combine(day, time(8), tzinfo=UTC) + timedelta(minutes=number)
            commit = make_commit(sha_number(number), title=f"{title} number {number}", when=when)
            store.merge(CommitRecord(commit=commit, analysis=analysis(importance)))
    return [numbered_sha(sha_number(number))[:12] for number in range(start, start + len(commits))]


def sha_number(number: int) -> int:
    """A commit number whose short sha differs from its neighbours' (``make_commit``'s shas share
    their first 28 digits)."""
    return number * 16**28 + number


def three_days(cache_dir: Path) -> list[str]:
    """Before yesterday: 2 ROCm commits; yesterday: 2 ROCm, 1 CUDA, one without analysis; today
    (not over): 2 ROCm commits."""
    return fill(
        cache_dir,
        [
            (BEFORE, "[ROCm] Fix before-rocm crash", HIGH),
            (BEFORE, "[ROCm] Tidy before-rocm", LOW),
            (YESTERDAY, "[ROCm] Add yesterday-rocm kernel", HIGH),
            (YESTERDAY, "[ROCm] Fix yesterday-rocm", MEDIUM),
            (YESTERDAY, "[CUDA] Tune yesterday-cuda", LOW),
            (YESTERDAY, "[ROCm] Pending yesterday-rocm", None),
            (TODAY, "[ROCm] Change today-rocm", HIGH),
            (TODAY, "[ROCm] Change today-rocm again", HIGH),
        ],
    )


def brief(cache_dir: Path, config: Path, *extra: str) -> int:
    return main(["brief", "-f", str(config), "--cache", str(cache_dir), *extra])


def stored(cache_dir: Path) -> dict[tuple[str, str], DayBrief]:
    with AnalysisStore(cache_dir) as store:
        return {item.key: item for item in store.briefs()}


def asked(server: FakeOpenAIServer) -> list[tuple[str, str]]:
    return sorted(asked_for(request.message("user")) for request in server.chat_requests)


def test_one_request_per_completed_day_and_platform_and_a_second_run_sends_nothing(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shas = three_days(cache_dir)
    assert brief(cache_dir, config) == 0
    # Before yesterday: its two commits are all ROCm's, so the whole day's brief serves ROCm unpaid.
    assert asked(server) == sorted(
        [
            (BEFORE.isoformat(), "all"),
            (YESTERDAY.isoformat(), "all"),
            (YESTERDAY.isoformat(), "ROCm"),
            (YESTERDAY.isoformat(), "CUDA"),
        ]
    )
    briefs = stored(cache_dir)
    assert set(briefs) == {
        (BEFORE.isoformat(), "all"),
        (BEFORE.isoformat(), "rocm"),
        (YESTERDAY.isoformat(), "all"),
        (YESTERDAY.isoformat(), "rocm"),
        (YESTERDAY.isoformat(), "cuda"),
    }
    assert briefs[(BEFORE.isoformat(), "rocm")].texts == briefs[(BEFORE.isoformat(), "all")].texts
    rocm = briefs[(YESTERDAY.isoformat(), "rocm")]
    assert set(rocm.commits) == {shas[2], shas[3]}  # analysed ROCm commits of the day, not the pending one
    assert rocm.commits[0] == shas[2]  # the high-importance one first
    assert [sentence.text for sentence in rocm.sentences("zh")] == SENTENCES["zh"][:2]  # two commits: 2 sentences
    assert all(sentence.commits == (shas[2],) for sentence in rocm.sentences("en"))
    cuda = briefs[(YESTERDAY.isoformat(), "cuda")]
    assert len(cuda.sentences("en")) == 1 and cuda.commits == (shas[4],)  # one commit may take one sentence
    output = capsys.readouterr().err
    assert "briefed 4 of 4 days per platform" in output and f"{YESTERDAY.isoformat()} rocm: written from 2" in output

    server.reset()
    assert brief(cache_dir, config) == 0
    assert server.chat_requests == []
    assert "4 current: their analyses have not changed" in capsys.readouterr().err


def test_a_brief_is_asked_again_only_when_its_days_analyses_change(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    shas = three_days(cache_dir)
    assert brief(cache_dir, config) == 0
    first = stored(cache_dir)
    server.reset()
    with AnalysisStore(cache_dir) as store:  # yesterday's pending ROCm commit gets its analysis
        record = store.get("vllm-project/vllm", numbered_sha(sha_number(6)))
        assert record is not None
        store.merge(CommitRecord(commit=record.commit, analysis=analysis(MEDIUM, minute=30)))
    assert brief(cache_dir, config) == 0
    assert asked(server) == [(YESTERDAY.isoformat(), "ROCm"), (YESTERDAY.isoformat(), "all")]
    now = stored(cache_dir)
    assert shas[5] in now[(YESTERDAY.isoformat(), "rocm")].commits
    assert now[(YESTERDAY.isoformat(), "cuda")] == first[(YESTERDAY.isoformat(), "cuda")]  # CUDA's unchanged
    assert now[(BEFORE.isoformat(), "all")] == first[(BEFORE.isoformat(), "all")]


def test_the_floor_refuses_a_brief_citing_a_commit_of_another_day(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shas = three_days(cache_dir)
    server.responder = lambda request: completion(brief_content(request, cite=[shas[0]]))  # type: ignore[assignment]
    assert brief(cache_dir, config, "--day", YESTERDAY.isoformat()) == 1
    assert len(server.chat_requests) == 3 * 2  # each of the day's three briefs asked twice, then failed
    assert stored(cache_dir) == {}
    output = capsys.readouterr().err
    assert f"cites '{shas[0]}', not a commit of {YESTERDAY.isoformat()}" in output
    assert "3 failed" in output


def test_a_brief_naming_a_pull_request_or_sha_outside_the_day_is_refused(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    shas = three_days(cache_dir)

    def naming(request: object) -> object:
        content = json.loads(brief_content(request))  # type: ignore[arg-type]
        content["en"][0]["text"] = f"Commit {shas[0][:8]} and PR #99999 fix attention kernels for everyone."
        return completion(json.dumps(content, ensure_ascii=False))

    server.responder = naming  # type: ignore[assignment]
    assert brief(cache_dir, config, "--day", YESTERDAY.isoformat(), "--limit", "1") == 1
    assert stored(cache_dir) == {}


def test_a_request_lets_a_brief_cite_only_the_commits_it_lists_and_shares_its_instructions(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    shas = three_days(cache_dir)
    assert brief(cache_dir, config, "--day", YESTERDAY.isoformat()) == 0
    cited: dict[str, list[str]] = {}
    for request in server.chat_requests:
        schema = request.json["response_format"]["json_schema"]["schema"]
        enums = {
            code: schema["properties"][code]["items"]["properties"]["commits"]["items"]["enum"] for code in ("zh", "en")
        }
        assert enums["zh"] == enums["en"]
        cited[asked_for(request.message("user"))[1]] = enums["zh"]
    assert cited["ROCm"] == [shas[2][:12], shas[3][:12]]  # the ids its prompt lists, most important first
    assert cited["CUDA"] == [shas[4][:12]]
    assert set(cited["all"]) == {shas[2][:12], shas[3][:12], shas[4][:12]}
    # The instructions show the schema every brief shares: the ids are the request's alone.
    assert all('"enum"' not in request.message("system") for request in server.chat_requests)


def test_a_language_added_to_the_site_is_asked_for_alone_and_the_others_stay(
    server: FakeOpenAIServer, cache_dir: Path, tmp_path: Path
) -> None:
    three_days(cache_dir)
    zh_only = write_config(tmp_path, CONFIG.replace("languages: [zh, en]", "languages: [zh]"))
    assert brief(cache_dir, zh_only, "--day", YESTERDAY.isoformat()) == 0
    before = stored(cache_dir)
    assert all(set(item.texts) == {"zh"} for item in before.values())
    server.reset()
    both = write_config(tmp_path, CONFIG)
    assert brief(cache_dir, both, "--day", YESTERDAY.isoformat()) == 0
    schemas = [request.json["response_format"]["json_schema"]["schema"]["required"] for request in server.chat_requests]
    assert schemas == [["en"]] * 3
    after = stored(cache_dir)
    assert all(set(item.texts) == {"zh", "en"} for item in after.values())
    assert all(after[key].texts["zh"] == before[key].texts["zh"] for key in before)


def test_a_day_not_over_is_refused_and_a_brief_another_run_holds_is_skipped(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    three_days(cache_dir)
    assert brief(cache_dir, config, "--day", TODAY.isoformat()) == 2
    assert "not over yet" in capsys.readouterr().err
    with AnalysisStore(cache_dir) as store:
        lease = Lease(holder="other-run", host="another-host", pid=1, expires_at=4e9)
        assert store.acquire_lease(brief_lease_name(YESTERDAY.isoformat(), "cuda"), lease, lapsed=lambda _: False)
    assert brief(cache_dir, config, "--day", YESTERDAY.isoformat()) == 0
    assert (YESTERDAY.isoformat(), "CUDA") not in asked(server)
    assert "1 skipped: another run is briefing it" in capsys.readouterr().err


def test_without_a_key_the_command_says_what_the_pages_show_instead(
    cache_dir: Path, config: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "")
    assert brief(cache_dir, config) == 2
    assert "rule-based morning read" in capsys.readouterr().err


# -- the floor, as pure functions ---------------------------------------------------------------

DAY = (
    DayCommit("abcdef012345", 1234, "[ROCm] Fix the paged attention kernel"),
    DayCommit("0123456789ab", None, "[CUDA] Tune MoE"),
)


def test_a_citation_may_shorten_an_id_to_seven_characters_naming_one_commit() -> None:
    listed = ["abcdef012345", "abcdef0999ff"]
    assert resolve_citation("abcdef012345", listed) == "abcdef012345"
    assert resolve_citation("ABCDEF01", listed) == "abcdef012345"
    assert resolve_citation("abcdef0", listed) is None  # names two
    assert resolve_citation("abc", listed) is None
    assert resolve_citation("abcdef0123456789abcdef0123456789abcdef01", listed) == "abcdef012345"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("The kernel fix in abcdef0 helps.", None),
        ("PR #1234 fixes the kernel.", None),
        ("The kernel fix in fedcba9876 helps.", "names commit fedcba9876"),
        ("See PR #4321 for details.", "names pull request #4321"),
        ("See pull/77 for details.", "names pull request #77"),
        ('The "Rewrite the whole scheduler from scratch" change lands.', "quotes"),
        ('The "Fix the paged attention kernel" change lands.', None),
        ("Throughput rose 1234567 tokens.", None),  # digits alone are a number
    ],
)
def test_a_text_names_only_what_the_day_holds(text: str, problem: str | None) -> None:
    found = named_outside_the_day(text, DAY)
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_the_floor_counts_sentences_and_wants_every_sentence_cited() -> None:
    good = [("修复了分页注意力内核的崩溃问题。", ["abcdef012345"])]
    assert brief_problem({"zh": good}, listed=["abcdef012345"], day=DAY, where="d", most=6) is None
    three = ["abcdef012345", "0123456789ab", "fedcba987654"]
    assert "1 sentences, not 3 to 6" in str(brief_problem({"zh": good}, listed=three, day=DAY, where="d", most=6))
    uncited = [("修复了分页注意力内核的崩溃问题。", [])]
    assert "cites no commit" in str(brief_problem({"zh": uncited}, listed=["abcdef012345"], day=DAY, where="d", most=6))
    english = [("The paged attention kernel no longer crashes.", ["abcdef012345"])]
    assert "no Chinese" in str(brief_problem({"zh": english}, listed=["abcdef012345"], day=DAY, where="d", most=6))
    junk = [("48k 0 0", ["abcdef012345"])]
    assert "prose" in str(brief_problem({"en": junk}, listed=["abcdef012345"], day=DAY, where="d", most=6))


def test_a_platform_holding_the_whole_day_gets_its_copy_even_when_the_whole_days_brief_is_current(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    """Before: the copy was made only by the run that wrote the whole day's brief; a copy lost
    since (or a label added) was never made again."""
    three_days(cache_dir)
    assert brief(cache_dir, config, "--day", BEFORE.isoformat()) == 0
    with AnalysisStore(cache_dir) as store:
        copy = store.brief(BEFORE.isoformat(), "rocm")
        assert copy is not None
    fresh = cache_dir.parent / "fresh"
    with AnalysisStore(cache_dir) as store, AnalysisStore(fresh) as other:
        for record in store.records():
            other.merge(record)
        whole = store.brief(BEFORE.isoformat(), "all")
        assert whole is not None
        other.put_brief(whole)
    server.reset()
    assert brief(fresh, config, "--day", BEFORE.isoformat()) == 0
    assert server.chat_requests == []
    with AnalysisStore(fresh) as other:
        assert other.brief(BEFORE.isoformat(), "rocm") == copy


@pytest.mark.parametrize(
    ("analyzer", "shown"),
    [
        ("llm:gpt-4o-mini", "gpt-4o-mini"),
        ("llm:Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
        ("llm:/home/ci/models/gemma-3-270m.gguf", "gemma-3-270m.gguf"),
        ("llm:~/models/x.gguf", "x.gguf"),
        ("llm:C:\\models\\x.gguf", "x.gguf"),
        ("offline", None),
    ],
)
def test_a_brief_names_its_model_never_the_folders_of_the_machine_that_ran_it(analyzer: str, shown: str | None) -> None:
    assert Provenance(analyzer=analyzer, created_at=datetime(2026, 1, 9, tzinfo=UTC)).model == shown
