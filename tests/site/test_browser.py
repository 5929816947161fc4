"""The built site in a real headless chromium: pages render, and no payload script runs.

Every payload sets ``document.title`` to "pwned-..." if it executes; material's own scripts
mark ``<html>`` with the class "js", which proves scripts did run on the page.
"""

from __future__ import annotations

import html
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from benchmarks.browser import CHROMIUM_FLAGS, chromium_path, serve

from tests.site.conftest import BuiltSite
from tests.site.factories import PAYLOADS, sha_for
from tests.site.html import event_handlers

pytestmark = pytest.mark.browser

# Debian's chromium here; $CHROMIUM or another name where the machine has it elsewhere
# (GitHub's Ubuntu runners ship chromium-browser or google-chrome).
CHROMIUM = chromium_path() or Path("/usr/bin/chromium")
FLAGS = (
    "--headless",
    *CHROMIUM_FLAGS,
    # Lets the page's scripts (and any payload) run to completion before the DOM is dumped.
    "--virtual-time-budget=5000",
)


@pytest.fixture(scope="module")
def site_url(zh_site: BuiltSite) -> Iterator[str]:
    with serve(zh_site.site) as url:
        yield url


@pytest.fixture(scope="module")
def dump_dom(tmp_path_factory: pytest.TempPathFactory, site_url: str):
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: browser tests need Debian's chromium (make test installs it)")
    profile = tmp_path_factory.mktemp("chromium-profile")

    def dump(path: str) -> str:
        result = subprocess.run(
            [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "--dump-dom", site_url + path],
            capture_output=True,
            text=True,
            timeout=90,
            check=False,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        return result.stdout

    return dump


def _title(dom: str) -> str:
    found = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert found, dom[:500]
    return html.unescape(found.group(1))


def test_commit_page_renders_its_title_and_runs_no_payload(dump_dom) -> None:
    dom = dump_dom(f"commits/{sha_for('payload-0')[:12]}/")
    assert re.search(r'<html[^>]*class="[^"]*\bjs\b', dom), "the page's own scripts did not run"
    assert _title(dom) == f"payload 0 {PAYLOADS[0]} - vLLM 每日提交摘要"
    heading = re.search(r"<h1[^>]*>(.*?)<a", dom, re.S)
    assert heading and html.unescape(heading.group(1)) == f"payload 0 {PAYLOADS[0]}"


def test_day_page_with_every_payload_runs_none_of_them(dump_dom) -> None:
    dom = dump_dom("days/2026-01-17/")
    assert re.search(r'<html[^>]*class="[^"]*\bjs\b', dom)
    assert _title(dom) == "2026-01-17 提交摘要 - vLLM 每日提交摘要"
    assert "pwned" not in _title(dom)
    assert "<img" not in dom
    assert not event_handlers(dom)
    # The payload text is on the page as text.
    assert "payload 5 pipe | in | cell" in html.unescape(re.sub(r"<[^>]+>", "", dom))


def test_footer_shows_the_last_update_and_the_data_window(dump_dom) -> None:
    dom = dump_dom("")
    footer = re.search(r'<div[^>]*data-digest-status="[^"]*"[^>]*>(.*?)</div>', dom, re.S)
    assert footer, "the footer's status element is missing"
    text = html.unescape(footer.group(1))
    assert text.startswith("最后更新：") and "数据范围：" in text, text
    assert re.search(r"\d{4}-\d{2}-\d{2} 至 \d{4}-\d{2}-\d{2}", text), text
