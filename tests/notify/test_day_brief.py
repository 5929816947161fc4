"""The day's notification leads with the day's brief: the channel's platform's when it follows
exactly one platform, else the whole day's; as plain text made inert for each service's markup;
the last thing a service's limit cuts, a sentence at a time."""

from __future__ import annotations

import json
from datetime import date
from zoneinfo import ZoneInfo

import pytest

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.notify import discord, email_message, feishu, markdown_bots, slack, teams, webhook
from commit_digest.notify.compose import Composer, SiteLinks, day_briefs
from commit_digest.notify.config import WebhookChannel
from commit_digest.notify.fitting import json_body, utf8_size
from commit_digest.notify.inert import WORD_JOINER
from commit_digest.notify.message import DayMessage
from commit_digest.notify.services import SERVICES
from commit_digest.site.model.index import Day, build_index
from commit_digest.store.briefs import MAX_SENTENCES, SENTENCE_CAP
from tests.site.brief_factories import CUDA, ROCM, SAMPLE_DAY, WHOLE_DAY, make_brief, sample_briefs, short
from tests.site.factories import sample_records

TAXONOMY = load_taxonomy()
HOSTILE = "<!channel> @all <script>alert(1)</script> **bold** [x](javascript:alert(1)) \u202eevil"


def _days() -> dict[date, Day]:
    index = build_index(sample_records(), repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=TAXONOMY)
    return {day.date: day for day in index.days}


def _message(briefs: list | None = None, language: str = "zh", **channel: object) -> DayMessage:
    days = _days()
    found = day_briefs(briefs if briefs is not None else sample_briefs(), days, language, ("zh", "en"))
    config = WebhookChannel.model_validate({"type": "slack", "url_env": "HOOK", **channel})
    composer = Composer(config, language, TAXONOMY, SiteLinks("https://digest.example.org/"), None, briefs=found)
    message = composer.message(days[SAMPLE_DAY])
    assert message is not None
    return message


def test_the_message_leads_with_the_whole_days_brief() -> None:
    message = _message()
    assert message.brief is not None
    assert message.brief.heading == "当日简报（gpt-test 撰写）"
    assert [line.text for line in message.brief.sentences] == [text for text, _ in WHOLE_DAY["zh"]]
    assert message.brief.sentences[0].commits == (short("high-1"),)
    english = _message(language="en")
    assert english.brief is not None and english.brief.heading == "The day in brief (written by gpt-test)"
    assert english.brief.sentences[1].text == WHOLE_DAY["en"][1][0]


def test_a_channel_of_one_platform_gets_that_platforms_brief_and_no_other() -> None:
    rocm = _message(platforms=["rocm"])
    assert rocm.brief is not None and rocm.brief.heading.startswith("ROCm（AMD） 当日简报")
    assert [line.text for line in rocm.brief.sentences] == [text for text, _ in ROCM["zh"]]
    both = _message(platforms=["rocm", "cuda"])
    assert both.brief is not None and both.brief.sentences[0].text == WHOLE_DAY["zh"][0][0]
    without = _message(briefs=[make_brief(SAMPLE_DAY, None, WHOLE_DAY)], platforms=["cuda"])
    assert without.brief is None  # the whole day's would speak of commits it does not follow
    assert _message(briefs=[]).brief is None
    only_english = _message(briefs=[make_brief(SAMPLE_DAY, "cuda", {"en": CUDA["en"]})], platforms=["cuda"])
    assert only_english.brief is not None and only_english.brief.heading.endswith(" · 原文为英文")


def _texts(payload: object) -> str:
    return json.dumps(payload, ensure_ascii=False)


def test_every_service_shows_the_brief_first_and_a_hostile_one_as_text() -> None:
    hostile = make_brief(SAMPLE_DAY, None, {"zh": [(HOSTILE, ("high-1",)), ("第二句。", ("medium-1",))]})
    message = _message(briefs=[hostile])
    assert message.brief is not None
    assert "\u202e" not in message.brief.sentences[0].text  # plain text: no direction control
    for name, service in SERVICES.items():
        sent = _texts(service.payload(message))
        assert "第二句。" in sent, name
        assert sent.index("第二句。") < sent.index("Enable shuffle kv cache layout"), name  # before the lines
        # The JSON webhook is data (its receiver escapes for its own markup); Teams' TextRuns are
        # never read as markup.
        if name not in ("webhook", "teams"):
            assert "<!channel>" not in sent and "<script>" not in sent, name
            assert f"@{WORD_JOINER}all" in sent, name
    assert "&lt;!channel&gt;" in _texts(slack.payload(message))
    assert "\\\\[x\\\\]\\\\(javascript:alert\\\\(1\\\\)\\\\)" in _texts(markdown_bots.wecom_payload(message))
    assert "&#91;x&#93;&#40;javascript&#58;alert&#40;1&#41;&#41;" in _texts(feishu.payload(message))
    assert "\\\\*\\\\*bold\\\\*\\\\*" in _texts(discord.payload(message))
    assert HOSTILE.replace("\u202e", "") in _texts(teams.payload(message))  # TextRuns: never read as markup
    body = json.loads(json_body(webhook.render(message)))["brief"]
    assert body["sentences"][1] == {"text": "第二句。", "commits": [short("medium-1")]}
    html = email_message.html_body(message)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>" not in html
    assert "第二句。" in email_message.plain_body(message)


def test_a_service_limit_cuts_the_lines_first_then_the_brief_a_sentence_at_a_time() -> None:
    longest = ("长句" * SENTENCE_CAP)[:SENTENCE_CAP]  # 1,200 bytes of UTF-8
    brief = make_brief(SAMPLE_DAY, None, {"zh": [(longest, ("high-1",))] * MAX_SENTENCES})
    message = _message(briefs=[brief])
    assert message.line_count == 2  # high-1 and medium-1: the channel lists from medium up
    payload = markdown_bots.wecom_payload(message)
    content = payload["markdown"]["content"]
    assert utf8_size(content) <= markdown_bots.WECOM_CONTENT_BYTES
    # 7,200 bytes of brief do not fit 4,096: every line went first, then the last sentences.
    assert "Enable shuffle kv cache layout" not in content
    assert 0 < content.count(longest) < MAX_SENTENCES
    assert "另有 2 条" in content and "打开当日页面" in content
    # Where it fits, nothing is cut.
    whole = markdown_bots.dingtalk_payload(message)["markdown"]["text"]
    assert whole.count(longest) == MAX_SENTENCES and "Enable shuffle kv cache layout" in whole
    assert len(json_body(feishu.payload(message))) <= feishu.MAX_BODY_BYTES


@pytest.mark.parametrize("kept", [0, 2, 5, 8])
def test_a_cut_message_keeps_its_first_units_brief_first(kept: int) -> None:
    message = _message()
    assert message.brief is not None and message.unit_count == 4 + message.line_count
    shown = message.shown(kept)
    sentences = len(shown.brief.sentences) if shown.brief else 0
    assert sentences == min(kept, 4)
    assert shown.line_count == min(max(0, kept - 4), message.line_count)
    assert shown.hidden == message.line_count - shown.line_count
