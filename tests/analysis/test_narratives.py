"""Week narratives end to end: `commit-digest narrate` with the real openai client against the scripted
server and a real store; the model, the store API, and the durable form. A narrative is paid for once
per completed week and platform, stored as it arrives, asked again only after a failure, and rewritten
only when asked."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from commit_digest.analysis.narration import NARRATIVE_CANARY, NARRATIVE_PROMPT_VERSION
from commit_digest.analysis.narrative_task import narrative_lease_name
from commit_digest.cli import main
from commit_digest.errors import InputError
from commit_digest.models import Analysis, ChangeType, CommitRecord, Importance, Provenance, TokenUsage
from commit_digest.plans.weeks import MAX_COMMITS_SENT, WeekRequest
from commit_digest.site.model.calendar import IsoWeek
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import restore_durable, save_durable
from commit_digest.store.leases import Lease
from commit_digest.store.narratives import WeekNarrative
from tests.analysis.conftest import API_KEY, write_config
from tests.analysis.narrative_replies import (
    NARRATIVE_TEXTS,
    asked_for,
    listed_titles,
    narrative_content,
    narrative_responder,
)
from tests.factories import make_commit
from tests.fakes.openai_server import FakeOpenAIServer, completion, error

CONFIG = """site_name: narratives
plugins:
  - commit-digest:
      languages: [zh, en]
      timezone: UTC
      llm:
        retry_backoff_seconds: 0
        timeout_seconds: 20
        prices: {gpt-4o-mini: {prompt: 1.0, completion: 4.0}}
"""
TODAY = datetime.now(UTC).date()
CURRENT = IsoWeek.of(TODAY)
LAST = CURRENT.previous  # the newest completed week
EARLIER = LAST.previous


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return write_config(tmp_path, CONFIG)


@pytest.fixture(autouse=True)
def _narrative_replies(server: FakeOpenAIServer) -> None:
    server.responder = narrative_responder  # type: ignore[assignment]


def analysis(importance: Importance | None, summary: str = "修复了注意力内核的问题。") -> Analysis | None:
    if importance is None:
        return None
    return Analysis(
        change_type=ChangeType.BUGFIX,
        importance=importance,
        summary=(summary, "第二条摘要。"),
        provenance=Provenance(
            analyzer="llm:gpt-4o-mini",
            prompt_version="llm-1",
            created_at=datetime(2026, 1, 9, 6, 0, tzinfo=UTC),
            usage=TokenUsage(prompt_tokens=1000, completion_tokens=200),
        ),
    )


def landed(week: IsoWeek, index: int) -> datetime:
    return datetime.combine(week.monday, time(8), tzinfo=UTC) + timedelta(minutes=index)


def fill(cache_dir: Path, commits: list[tuple[IsoWeek, str, Importance | None]], start: int = 1) -> list[str]:
    """Commits of (week, title, importance) numbered from ``start``; their short shas."""
    with AnalysisStore(cache_dir) as store:
        for number, (week, title, importance) in enumerate(commits, start=start):
            commit = make_commit(number, title=f"{title} number {number}", when=landed(week, number))
            store.merge(CommitRecord(commit=commit, analysis=analysis(importance)))
    return [make_commit(number).short_sha for number in range(start, start + len(commits))]


HIGH, MEDIUM, LOW = Importance.HIGH, Importance.MEDIUM, Importance.LOW


def two_weeks_and_this_one(cache_dir: Path) -> list[str]:
    """The earlier week: 4 ROCm commits and 2 CUDA ones (too few); the last week: 3 analysed ROCm
    commits and one without analysis, 3 XPU ones; this week (not over): 5 ROCm commits."""
    return fill(
        cache_dir,
        [
            (EARLIER, "[ROCm] Tidy earlier-rocm", LOW),
            (EARLIER, "[ROCm] Fix earlier-rocm crash", HIGH),
            (EARLIER, "[ROCm] Speed up earlier-rocm", MEDIUM),
            (EARLIER, "[ROCm] Test earlier-rocm", LOW),
            (EARLIER, "[CUDA] Tune earlier-cuda", HIGH),
            (EARLIER, "[CUDA] Fix earlier-cuda", LOW),
            (LAST, "[ROCm] Fix last-rocm", MEDIUM),
            (LAST, "[ROCm] Add last-rocm", HIGH),
            (LAST, "[ROCm] Tidy last-rocm", LOW),
            (LAST, "[ROCm] Pending last-rocm", None),
            (LAST, "[XPU] Enable last-xpu", MEDIUM),
            (LAST, "[XPU] Fix last-xpu", MEDIUM),
            (LAST, "[XPU] Test last-xpu", LOW),
            *((CURRENT, "[ROCm] Change current-rocm", HIGH) for _ in range(5)),
        ],
    )


def narrate(cache_dir: Path, config: Path, *extra: str) -> int:
    return main(["narrate", "-f", str(config), "--cache", str(cache_dir), *extra])


def stored(cache_dir: Path) -> dict[tuple[str, str], WeekNarrative]:
    with AnalysisStore(cache_dir) as store:
        return {narrative.key: narrative for narrative in store.narratives()}


def asked(server: FakeOpenAIServer) -> list[tuple[str, str]]:
    return sorted(asked_for(request.message("user")) for request in server.chat_requests)


EXPECTED = sorted([(EARLIER.id, "ROCm"), (LAST.id, "ROCm"), (LAST.id, "XPU")])


def test_one_request_per_completed_week_and_platform_and_a_second_run_sends_nothing(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shas = two_weeks_and_this_one(cache_dir)
    with AnalysisStore(cache_dir) as store:
        revision = store.revision()
    assert narrate(cache_dir, config, "--concurrency", "2") == 0
    assert asked(server) == EXPECTED  # none for this week, none for CUDA's two commits
    output = capsys.readouterr().err
    assert "narrated 3 of 3 weeks per platform" in output and "3 ok" in output
    assert f"{LAST.id} rocm: written from 3 commits" in output
    assert "1 with fewer than 3 analysed commits" in output

    request = next(r for r in server.chat_requests if asked_for(r.message("user")) == (EARLIER.id, "ROCm"))
    body = request.json
    schema = body["response_format"]["json_schema"]
    assert schema["strict"] is True and schema["schema"]["required"] == ["zh", "en"]
    assert schema["schema"]["additionalProperties"] is False
    system = request.message("system")
    assert NARRATIVE_CANARY in system and "earlier-rocm" not in system
    user = request.message("user")
    assert "ROCm (AMD) / ROCm（AMD）" in user
    # High importance first, then medium, then low (oldest first within one), each with its summary.
    assert [title.split(" (#")[0] for title in listed_titles(user)] == [
        "[ROCm] Fix earlier-rocm crash number 2",
        "[ROCm] Speed up earlier-rocm number 3",
        "[ROCm] Tidy earlier-rocm number 1",
        "[ROCm] Test earlier-rocm number 4",
    ]
    assert "Summary: 修复了注意力内核的问题。" in user

    narratives = stored(cache_dir)
    assert sorted(narratives) == sorted([(EARLIER.id, "rocm"), (LAST.id, "rocm"), (LAST.id, "xpu")])
    earlier = narratives[(EARLIER.id, "rocm")]
    assert earlier.texts == NARRATIVE_TEXTS  # every language of the site
    assert earlier.commits == (shas[1], shas[2], shas[0], shas[3])
    assert narratives[(LAST.id, "rocm")].commits == (shas[7], shas[6], shas[8])  # not the unanalysed one
    provenance = earlier.provenance
    assert provenance.analyzer == "llm:gpt-4o-mini" and provenance.prompt_version == NARRATIVE_PROMPT_VERSION
    assert provenance.usage is not None and provenance.usage.prompt_tokens > 0
    with AnalysisStore(cache_dir) as store:
        after = store.revision()
        assert after != revision  # a build after new narratives is not skipped as "nothing changed"
        assert len(store) == len(shas)  # the store's length still counts commits

    server.reset()
    assert narrate(cache_dir, config) == 0
    assert server.chat_requests == []
    assert "3 written before (--rewrite to replace)" in capsys.readouterr().err
    with AnalysisStore(cache_dir) as store:
        assert store.revision() == after


def test_rewrite_of_a_named_week_sends_again_and_replaces_that_week_only(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    two_weeks_and_this_one(cache_dir)
    assert narrate(cache_dir, config) == 0
    before = stored(cache_dir)

    server.reset()
    assert narrate(cache_dir, config, "--week", LAST.id) == 0
    assert server.chat_requests == []  # written already: never rewritten unless asked

    server.responder = lambda request: completion(  # type: ignore[assignment]
        narrative_content(["zh", "en"], en="A second wording of the week.")
    )
    assert narrate(cache_dir, config, "--rewrite", "--week", LAST.id) == 0
    assert asked(server) == [(LAST.id, "ROCm"), (LAST.id, "XPU")]
    after = stored(cache_dir)
    assert after[(LAST.id, "rocm")].texts["en"] == "A second wording of the week."
    assert after[(EARLIER.id, "rocm")] == before[(EARLIER.id, "rocm")]


def test_a_cut_off_invalid_or_refused_reply_stores_nothing_and_the_next_run_asks_again(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    two_weeks_and_this_one(cache_dir)
    server.script("earlier-rocm", completion('{"zh": "本周', finish_reason="length"))
    # Invalid twice: English text under "zh", then no JSON at all; asked once more after the first.
    server.script("last-rocm", completion(narrative_content(["zh", "en"], zh="All in English.")), completion("{no"))
    server.script("last-xpu", completion(None, refusal="I cannot help with that."))
    assert narrate(cache_dir, config) == 1
    assert len(server.chat_requests) == 1 + 2 + 1
    output = capsys.readouterr().err
    assert "2 failed" in output and "1 refused" in output
    assert f"{EARLIER.id} rocm: failed: the reply was cut off" in output
    assert f"{LAST.id} rocm: failed: invalid reply" in output
    assert f"{LAST.id} xpu: refused: the model refused" in output
    assert stored(cache_dir) == {}

    server.reset()
    assert narrate(cache_dir, config) == 0
    assert asked(server) == EXPECTED
    assert len(stored(cache_dir)) == 3


def test_a_reply_over_the_cap_or_echoing_the_instructions_is_invalid(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    two_weeks_and_this_one(cache_dir)
    long = narrative_content(["zh", "en"], en="Word " * 400)
    echo = narrative_content(["zh", "en"], en=f"As told ({NARRATIVE_CANARY}).")
    extra = json.dumps({**NARRATIVE_TEXTS, "fr": "Cette semaine."}, ensure_ascii=False)
    server.script("earlier-rocm", completion(long), completion(long))
    server.script("last-rocm", completion(echo), completion(extra))
    assert narrate(cache_dir, config, "--week", EARLIER.id, "--week", LAST.id) == 1
    assert sorted(stored(cache_dir)) == [(LAST.id, "xpu")]


def test_a_week_not_over_a_bad_week_and_a_missing_key_are_clear_errors(
    server: FakeOpenAIServer,
    cache_dir: Path,
    config: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    two_weeks_and_this_one(cache_dir)
    assert narrate(cache_dir, config, "--week", CURRENT.id) == 2
    assert f"--week {CURRENT.id}: not over yet" in capsys.readouterr().err
    assert narrate(cache_dir, config, "--week", "2026-W60") == 2
    assert "'2026-W60' is not an ISO week" in capsys.readouterr().err
    assert narrate(cache_dir, config, "--week", LAST.id, "--since", "2026-01-01") == 2
    assert "does not go with --since" in capsys.readouterr().err
    monkeypatch.delenv("OPENAI_API_KEY")
    assert narrate(cache_dir, config) == 2
    assert "OPENAI_API_KEY is not set" in capsys.readouterr().err
    assert server.chat_requests == [] and stored(cache_dir) == {}


def test_the_api_key_reaches_neither_the_store_nor_the_output_nor_the_durable_form(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    two_weeks_and_this_one(cache_dir)
    server.script("earlier-rocm", error(400, f"bad request from key {API_KEY}"))
    assert narrate(cache_dir, config) == 1
    captured = capsys.readouterr()
    assert "HTTP 400" in captured.err and "[redacted]" in captured.err
    assert API_KEY not in captured.err + captured.out
    assert all(request.had_authorization for request in server.chat_requests)
    with AnalysisStore(cache_dir) as store:
        save_durable(store, tmp_path / "data")
    for folder in (cache_dir, tmp_path / "data"):
        for path in folder.rglob("*"):
            if path.is_file():
                assert API_KEY.encode() not in path.read_bytes(), path


def test_a_narrative_another_run_is_writing_is_skipped(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    two_weeks_and_this_one(cache_dir)
    with AnalysisStore(cache_dir) as store:
        lease = Lease(holder="other-run", host="another-host", pid=1, expires_at=4e9)
        assert store.acquire_lease(narrative_lease_name(LAST.id, "xpu"), lease, lapsed=lambda _: False)
    assert narrate(cache_dir, config) == 0
    assert asked(server) == [(EARLIER.id, "ROCm"), (LAST.id, "ROCm")]
    assert "1 skipped: another run is narrating it" in capsys.readouterr().err
    assert (LAST.id, "xpu") not in stored(cache_dir)


def test_a_busy_week_sends_its_most_important_commits_and_counts_the_rest(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    commits = [(LAST, "[ROCm] Tidy busy-rocm", LOW)] * 30 + [(LAST, "[ROCm] Fix busy-rocm", HIGH)] * 20
    shas = fill(cache_dir, commits)
    assert narrate(cache_dir, config, "--limit", "1") == 0
    (request,) = server.chat_requests
    user = request.message("user")
    titles = listed_titles(user)
    assert len(titles) == MAX_COMMITS_SENT
    assert all("Fix busy" in title for title in titles[:20]) and all("Tidy busy" in title for title in titles[20:])
    assert f"Commits on this platform with an analysis: 50 ({50 - MAX_COMMITS_SENT} of the least" in user
    narrative = stored(cache_dir)[(LAST.id, "rocm")]
    assert len(narrative.commits) == MAX_COMMITS_SENT and narrative.commits[0] == shas[30]


def test_stats_counts_the_narratives_tokens(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    two_weeks_and_this_one(cache_dir)
    server.responder = lambda request: completion(  # type: ignore[assignment]
        narrative_content(["zh", "en"]), usage={"prompt_tokens": 1_000_000, "completion_tokens": 0}
    )
    assert narrate(cache_dir, config) == 0
    capsys.readouterr()
    assert main(["stats", "-f", str(config), "--cache", str(cache_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["day", "model", "analyses", "translations"] and "narratives" in lines[0]
    narrated = next(line for line in lines if line.startswith(TODAY.isoformat()))
    assert narrated.split()[2:8] == ["0", "0", "3000000", "0", "0", "3"]
    total = lines[-1].split()
    assert total[0] == "total" and total[6] == "3"  # the model column is empty on the total line
    assert float(total[-1]) > 3.0  # 3M prompt tokens at $1 per million, beside the analyses


# -- the model, the store and the durable form ---------------------------------------------------


def narrative(week: str = "2026-W03", platform: str = "rocm", *, minutes: int = 0, en: str = "Fixes.") -> WeekNarrative:
    return WeekNarrative(
        week=week,
        platform=platform,
        texts={"zh": "修复。", "en": en},
        commits=("0123456789ab",),
        provenance=Provenance(
            analyzer="llm:m", created_at=datetime(2026, 1, 19, 3, minutes, tzinfo=UTC), usage=TokenUsage()
        ),
    )


def test_the_model_checks_week_text_and_commits_and_strips_control_characters() -> None:
    assert narrative(en="  Fixes \x1b[31mred\x1b[0m.\r\n ").texts["en"] == "Fixes [31mred[0m."
    bad = [
        ({"week": "2026-W54"}, "week"),
        ({"week": "2026-03"}, "week"),
        ({"platform": "ROCm!"}, "platform"),
        ({"texts": {"zh": "  "}}, "texts.zh"),
        ({"texts": {"en": "x" * 1501}}, "texts.en"),
        ({"texts": {"fr": "Semaine."}}, "texts.fr"),
        ({"texts": {}}, "texts"),
        ({"commits": ("0123456789abcdef",)}, "commits.0"),
        ({"commits": ()}, "commits"),
        ({"verdict": "great"}, "verdict"),
    ]
    valid = narrative().model_dump()
    for change, field in bad:
        with pytest.raises(ValidationError) as raised:
            WeekNarrative.model_validate({**valid, **change})
        where = [".".join(str(part) for part in issue["loc"]) for issue in raised.value.errors()]
        assert any(place.startswith(field) for place in where), (change, where)
    failed = {**valid["provenance"], "status": "failed", "error": "cut off"}
    with pytest.raises(ValidationError, match="status must be 'ok'"):
        WeekNarrative.model_validate({**valid, "provenance": failed})


def test_storing_a_narrative_changes_the_revision_and_an_older_one_never_replaces_it(tmp_path: Path) -> None:
    with AnalysisStore(tmp_path / "store") as store:
        empty = store.revision()
        store.put_narrative(narrative(minutes=5))
        written = store.revision()
        assert written != empty and len(store) == 0 and list(store.records()) == []
        assert not store.merge_narrative(narrative(minutes=1, en="Older."))
        assert store.revision() == written
        assert store.merge_narrative(narrative(minutes=9, en="Newer."))
        assert store.revision() != written
        assert store.narrative("2026-W03", "rocm") == narrative(minutes=9, en="Newer.")
        assert store.narrative("2026-W03", "cuda") is None
        store.put_narrative(narrative("2026-W10"))
        store.put_narrative(narrative("2025-W52", "xpu"))
        assert [item.key for item in store.narratives()] == [
            ("2025-W52", "xpu"),
            ("2026-W03", "rocm"),
            ("2026-W10", "rocm"),
        ]


def test_save_and_restore_keep_narratives_by_year_and_a_newer_one_wins(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        fill(tmp_path / "store", [(IsoWeek(2026, 3), "[ROCm] Fix", HIGH)])
        for item in (narrative(), narrative("2026-W04", "xpu"), narrative("2025-W52")):
            store.put_narrative(item)
        saved = save_durable(store, durable)
        assert (saved.records, saved.narratives) == (1, 3)
        originals = list(store.narratives())
    files = sorted(path.relative_to(durable).as_posix() for path in durable.rglob("*.jsonl"))
    assert files == ["narratives/2025.jsonl", "narratives/2026.jsonl", "vllm-project/vllm/2026-01.jsonl"]
    lines = (durable / "narratives/2026.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["week"] for line in lines] == ["2026-W03", "2026-W04"]
    assert "修复。" in lines[0]  # readable in a diff: not \u-escaped
    manifest = json.loads((durable / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["narratives"] == 3 and "narratives/2026.jsonl" in manifest["files"]

    with AnalysisStore(tmp_path / "fresh") as fresh:
        result = restore_durable(fresh, durable)
        assert (result.records, result.narratives, result.narratives_changed) == (1, 3, 3)
        assert list(fresh.narratives()) == originals
        assert restore_durable(fresh, durable).skipped  # the store already matches
        # A rewrite made after the save is newer than the durable form's: restoring keeps it.
        fresh.put_narrative(narrative(minutes=30, en="Rewritten."))
        fresh.set_meta("durable-restored-digest", "something else")
        assert restore_durable(fresh, durable).narratives_changed == 0
        assert fresh.narrative("2026-W03", "rocm") == narrative(minutes=30, en="Rewritten.")

    # A store whose narratives are gone (the same commits, the digest noted) is not taken as matching.
    with AnalysisStore(tmp_path / "commits-only") as partial:
        fill(tmp_path / "commits-only", [(IsoWeek(2026, 3), "[ROCm] Fix", HIGH)])
        partial.set_meta("durable-restored-digest", manifest["digest"])
        result = restore_durable(partial, durable)
        assert not result.skipped and len(list(partial.narratives())) == 3


def test_a_bad_narrative_line_names_its_file_and_line_and_changes_nothing(tmp_path: Path) -> None:
    durable = tmp_path / "data"
    with AnalysisStore(tmp_path / "store") as store:
        fill(tmp_path / "store", [(IsoWeek(2026, 3), "[ROCm] Fix", HIGH)])
        store.put_narrative(narrative())
        save_durable(store, durable)
    path = durable / "narratives/2026.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace('"2026-W03"', '"2026-W99"'), encoding="utf-8")
    # Not as the manifest says: refused before any line is read.
    with AnalysisStore(tmp_path / "fresh") as fresh, pytest.raises(InputError, match=r"narratives/2026.jsonl: changed"):
        restore_durable(fresh, durable)
    # A manifest that vouches for the bad line (whoever pushes the data branch can write both).
    manifest_path = durable / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["files"]["narratives/2026.jsonl"] = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    with AnalysisStore(tmp_path / "fresh") as fresh:
        with pytest.raises(InputError, match=r"narratives/2026.jsonl:1: week: .*not an ISO week"):
            restore_durable(fresh, durable)
        assert len(fresh) == 0 and list(fresh.narratives()) == []


def test_the_weeks_a_run_considers() -> None:
    monday = date(2026, 1, 19)  # 2026-W04
    last = IsoWeek(2026, 3)
    assert WeekRequest().resolve(monday, None)[-1] == last and len(WeekRequest().resolve(monday, None)) == 8
    assert WeekRequest(count=2).resolve(monday + timedelta(days=6), None) == (IsoWeek(2026, 2), last)
    assert WeekRequest(since=date(2026, 1, 1)).resolve(monday, None) == (IsoWeek(2026, 1), IsoWeek(2026, 2), last)
    # A range reaching into this week stops at the last completed one; without a start, from the first commit's.
    assert WeekRequest(until=date(2026, 1, 20)).resolve(monday, IsoWeek(2026, 2)) == (IsoWeek(2026, 2), last)
    assert WeekRequest(until=date(2026, 1, 20)).resolve(monday, None) == ()
    assert WeekRequest(weeks=(last, IsoWeek(2025, 52))).resolve(monday, None) == (IsoWeek(2025, 52), last)
    with pytest.raises(InputError, match="2026-W04: not over yet"):
        WeekRequest(weeks=(IsoWeek(2026, 4),)).resolve(monday + timedelta(days=6), None)


def test_a_narrative_of_figures_alone_is_below_the_floor_and_asked_once_more(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    two_weeks_and_this_one(cache_dir)
    junk = completion(narrative_content(["zh", "en"], en="48k 1.25e7"))
    server.script("last-rocm", junk, junk)
    assert narrate(cache_dir, config) == 1
    output = capsys.readouterr().err
    assert f"{LAST.id} rocm: failed: invalid reply" in output and "below the quality floor: en" in output
    assert (LAST.id, "rocm") not in stored(cache_dir)
