"""Each service's webhook receives its own real format, signed as its documentation says, within
its limits, and with every hostile title arriving as the text it is, never a mention or markup."""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import re
from pathlib import Path

import pytest

from commit_digest.commands.notify import NotifyOptions, notify_site
from commit_digest.notify.http_sender import HttpSender
from commit_digest.notify.inert import WORD_JOINER
from commit_digest.settings import load_settings
from commit_digest.site.rendering.escape import title_plain
from commit_digest.store.analysis_store import AnalysisStore
from tests.notify.conftest import DAY, HOSTILE_TITLES, NOW, SITE_URL, WebhookServer, day_records, ok, write_project

SECRET = "s3cret-signing-key"
ENV_SECRETS = {"FEISHU_SECRET": SECRET, "DINGTALK_SECRET": SECRET, "HOOK_SECRET": SECRET}
DAY_URL = f"{SITE_URL}days/2026-01-08/"


def channels(server: WebhookServer) -> tuple[list[dict[str, object]], dict[str, str]]:
    answers = {
        "slack": ok(),
        "feishu": ok({"code": 0, "msg": "success", "data": {}}),
        "dingtalk": ok({"errcode": 0, "errmsg": "ok"}),
        "wecom": ok({"errcode": 0, "errmsg": "ok"}),
        "discord": (204, {}, b""),
        "teams": (202, {}, b""),
        "webhook": ok({"received": True}),
    }
    environ = dict(ENV_SECRETS)
    listed: list[dict[str, object]] = []
    for service, answer in answers.items():
        environ[f"{service.upper()}_URL"] = server.answer(f"/{service}/T0K3N-abcdef", answer)
        channel: dict[str, object] = {"type": service, "url_env": f"{service.upper()}_URL", "min_importance": "low"}
        if service in ("feishu", "dingtalk"):
            channel["secret_env"] = f"{service.upper()}_SECRET"
        if service == "webhook":
            channel["secret_env"] = "HOOK_SECRET"
        listed.append(channel)
    return listed, environ


def run(root: Path, config_file: Path, environ: dict[str, str], http: HttpSender) -> list[str]:
    settings = load_settings(config_file)
    with AnalysisStore(root / "cache") as store:
        summary = notify_site(
            store, settings, NotifyOptions(config_file=config_file), environ=environ, http=http, now=NOW
        )
    assert summary.ok, summary.lines
    return summary.lines


def _unjoined(text: str) -> str:
    return text.replace(WORD_JOINER, "")


def slack_link_texts(payload: dict) -> list[str]:
    texts = [block["text"]["text"] for block in payload["blocks"] if block["type"] == "section"]
    found = []
    for text in texts:
        assert "<!" not in text and "<@" not in text
        for match in re.finditer(r"<(https://[^|>]+)\|([^>]*)>", text):
            found.append(_unjoined(html.unescape(match.group(2).replace("¦", "|"))))
    return found


def markdown_link_texts(text: str) -> list[str]:
    """Link texts of backslash-escaped Markdown, unescaped as a CommonMark reader does."""
    assert re.search(r"(?<!\\)<", text) is None  # no tag, no <@user>, no <at>
    assert "@all" not in text and "@everyone" not in text
    links = re.finditer(r"(?<!\\)\[((?:\\.|[^\]\\\n])*)\]\((https://[^)\s]+)\)", text)
    return [_unjoined(re.sub(r"\\(.)", r"\1", match.group(1))) for match in links]


def lark_link_texts(text: str) -> list[str]:
    assert "<at" not in text and "<" not in text
    return [_unjoined(html.unescape(match.group(1))) for match in re.finditer(r"\[([^\]]*)\]\((https://[^)]+)\)", text)]


def test_each_service_gets_its_format_its_signature_and_hostile_titles_as_text(
    tmp_path: Path, server: WebhookServer, http: HttpSender
) -> None:
    listed, environ = channels(server)
    config_file = write_project(tmp_path, listed, day_records(3, titles=HOSTILE_TITLES))
    lines = run(tmp_path, config_file, environ, http)
    assert len([line for line in lines if "sent 2026-01-08" in line]) == 7
    expected = {title_plain(title, 200) for title in HOSTILE_TITLES}

    slack = server.received("/slack/T0K3N-abcdef")[0].json
    assert slack["blocks"][0]["type"] == "header" and len(slack["blocks"]) <= 50
    assert expected <= set(slack_link_texts(slack))

    feishu_request = server.received("/feishu/T0K3N-abcdef")[0]
    feishu = feishu_request.json
    # Feishu: sign = base64(HMAC-SHA256(key = "timestamp\nsecret", message = "")), timestamp in seconds.
    key = f"{feishu['timestamp']}\n{SECRET}".encode()
    assert feishu["sign"] == base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
    assert int(feishu["timestamp"]) == int(NOW.timestamp())
    assert feishu["msg_type"] == "interactive" and feishu["card"]["header"]["title"]["tag"] == "plain_text"
    contents = [element["text"]["content"] for element in feishu["card"]["elements"] if element["tag"] == "div"]
    assert expected <= {text for content in contents for text in lark_link_texts(content)}
    assert feishu["card"]["elements"][-1]["actions"][0]["url"] == DAY_URL

    dingtalk_request = server.received("/dingtalk/T0K3N-abcdef")[0]
    # DingTalk: sign = base64(HMAC-SHA256(key = secret, message = "timestamp\nsecret")) in the query, ms.
    timestamp = dingtalk_request.query["timestamp"]
    digest = hmac.new(SECRET.encode(), f"{timestamp}\n{SECRET}".encode(), hashlib.sha256).digest()
    assert dingtalk_request.query["sign"] == base64.b64encode(digest).decode()
    assert int(timestamp) == int(NOW.timestamp() * 1000)
    dingtalk = dingtalk_request.json
    assert dingtalk["msgtype"] == "markdown" and dingtalk["at"] == {"atMobiles": [], "atUserIds": [], "isAtAll": False}
    assert expected <= set(markdown_link_texts(dingtalk["markdown"]["text"]))

    wecom = server.received("/wecom/T0K3N-abcdef")[0].json
    assert wecom["msgtype"] == "markdown"
    assert expected <= set(markdown_link_texts(wecom["markdown"]["content"]))

    discord = server.received("/discord/T0K3N-abcdef")[0].json
    assert discord["allowed_mentions"] == {"parse": []}
    assert expected <= set(markdown_link_texts(discord["embeds"][0]["description"]))
    assert discord["embeds"][0]["url"] == DAY_URL

    teams = server.received("/teams/T0K3N-abcdef")[0].json
    card = teams["attachments"][0]
    assert teams["type"] == "message" and card["contentType"] == "application/vnd.microsoft.card.adaptive"
    runs = [run for block in card["content"]["body"] for run in block["inlines"]]
    assert {block["type"] for block in card["content"]["body"]} == {"RichTextBlock"}  # never Markdown
    assert expected <= {run["text"] for run in runs if "selectAction" in run}
    assert "msteams" not in card["content"] or "entities" not in card["content"]["msteams"]

    hook_request = server.received("/webhook/T0K3N-abcdef")[0]
    stamp = hook_request.headers["x-commit-digest-timestamp"]
    signed = hmac.new(SECRET.encode(), f"{stamp}.".encode() + hook_request.body, hashlib.sha256).hexdigest()
    assert hook_request.headers["x-commit-digest-signature"] == f"sha256={signed}"
    hook = hook_request.json
    assert hook["type"] == "commit-digest.day" and hook["counts"]["total"] == 3 + len(HOSTILE_TITLES)
    assert expected <= {commit["title"] for section in hook["sections"] for commit in section["commits"]}


LIMITS = {
    # service: (what is measured, limit)
    "slack": (lambda payload: len(payload["blocks"]), 50),
    "feishu": (lambda payload: len(_body(payload)), 20_000),
    "dingtalk": (lambda payload: len(payload["markdown"]["text"].encode()), 20_000),
    "wecom": (lambda payload: len(payload["markdown"]["content"].encode()), 4_096),
    "discord": (lambda payload: len(payload["embeds"][0]["title"]) + len(payload["embeds"][0]["description"]), 6_000),
    "teams": (lambda payload: len(_body(payload)), 28_000),
}


def _body(payload: dict) -> bytes:
    import json

    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def _more(text: str) -> int:
    match = re.search(r"and (\d+) more", _unjoined(html.unescape(text)).replace("\\", ""))
    assert match is not None, text[-300:]
    return int(match.group(1))


@pytest.mark.parametrize("service", sorted(LIMITS))
def test_a_day_too_big_is_cut_at_a_line_with_how_many_more_and_the_day_link(
    tmp_path: Path, server: WebhookServer, http: HttpSender, service: str
) -> None:
    listed, environ = channels(server)
    chosen = [{**channel, "language": "en"} for channel in listed if channel["type"] == service]
    config_file = write_project(tmp_path, chosen, day_records(450))
    run(tmp_path, config_file, environ, http)
    payload = server.received(f"/{service}/T0K3N-abcdef")[0].json
    measure, limit = LIMITS[service]
    assert measure(payload) <= limit
    text = _body(payload).decode()
    assert DAY_URL in text
    commit_links = len(re.findall(re.escape(SITE_URL) + r"commits/[0-9a-f]{12}/", text))
    # Every commit is on one line: 150 high (with a summary) + 300 medium and low (each once).
    assert commit_links + _more(text) == 450
    assert commit_links > 0


def test_the_day_is_not_cut_when_it_fits(tmp_path: Path, server: WebhookServer, http: HttpSender) -> None:
    listed, environ = channels(server)
    config_file = write_project(tmp_path, listed, day_records(6))
    run(tmp_path, config_file, environ, http)
    for service in ("slack", "wecom", "discord", "dingtalk", "feishu", "teams"):
        text = server.received(f"/{service}/T0K3N-abcdef")[0].body.decode()
        assert "more on the day page" not in text and "另有" not in text
    assert DAY.date().isoformat() in server.received("/webhook/T0K3N-abcdef")[0].json["day"]


@pytest.mark.parametrize(
    ("answer", "retry"),
    [
        ({"code": 0, "msg": "success"}, None),
        ({"code": 11232, "msg": "frequency limited"}, True),  # Feishu's flow control: tried again
        ({"code": 9499, "msg": "Bad Request"}, False),  # a bad request fails the same way again
        ({"code": 19021, "msg": "sign match fail or timestamp is not within one hour from current time"}, False),
    ],
)
def test_feishu_answers_are_read_as_its_guide_names_them(answer: dict[str, object], retry: bool | None) -> None:
    import json

    from commit_digest.notify import feishu
    from commit_digest.notify.http_sender import Reply

    verdict = feishu.judge(Reply(200, {}, json.dumps(answer).encode()), NOW)
    assert verdict.accepted is (retry is None)
    assert verdict.retry is bool(retry)
