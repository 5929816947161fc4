"""The commit page's message, PR description, changed files, copy control and permalink, from a
real ``mkdocs build --strict``: template boilerplate gone, Markdown rendered, hostile Markdown
inert, links marked rel="nofollow ugc", long file lists cut, and (in chromium) the copy button
copying the full SHA on a page that does not scroll sideways at 390 px."""

# The PR templates are quoted verbatim, long lines and all.
# ruff: noqa: E501

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from benchmarks.browser import serve
from playwright.sync_api import Browser

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import Commit, CommitRecord, FileChange, FileStatus, Importance, PullRequestInfo
from commit_digest.site.model.index import build_index
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.commit_view import FILES_SHOWN
from commit_digest.site.views.registry import generate_pages
from tests.site.conftest import BuiltSite, build_site
from tests.site.factories import REPOSITORY, label, ok_analysis, sha_for
from tests.site.html import article, headings, visible_text

pytestmark = pytest.mark.slow

DAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

# vLLM's template, filled in, with Markdown of every kind the message may use.
VLLM_BODY = """<!-- markdownlint-disable -->
PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) HAVE BEEN CONSIDERED.

## Purpose
Fix the *shuffle* KV cache layout on **gfx950**, see [the design doc](https://docs.example.org/kv-layout).

# Design notes
- keep the old layout behind `VLLM_ROCM_SHUFFLE_KV=0`
- new kernels for `paged_attention`

## Test Plan
```python
pytest tests/kernels/attention -k rocm
```

## Test Result

---
<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [ ] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".
- [ ] The test plan, such as providing test command.
</details>

**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing>** (anything written below this line will be removed by GitHub Actions)

Signed-off-by: Dev One <dev@example.com>
"""

ASCEND_DESCRIPTION = """<!--  Thanks for sending a pull request!

BEFORE SUBMITTING, PLEASE READ https://docs.vllm.ai/en/latest/contributing/overview.html

-->
### What this PR does / why we need it? (必填)
<!--
- Please clarify what changes you are proposing.
- Fixes #
-->
Add the MLA prefill kernel for Ascend 910B.

### Does this PR introduce _any_ user-facing change? (必填)
<!--
Note that it means *any* user-facing change.
-->

### How was this patch tested? (必填)
<!--
CI passed with new added/existing test.
-->
CI passed on https://ci.example.org/run/42.
"""

HOSTILE_BODY = """A message that tries everything.

[click me](javascript:document.title='pwned-link')

<script>document.title='pwned-script'</script>

<img src=x onerror="document.title='pwned-img'">

![tracking pixel](http://tracker.example.org/pixel.png)

[relative](../../index.md) and [mail](mailto:someone@example.org) and <someone@example.org>

An autolink <https://example.org/auto> and a bare one https://example.org/bare.

[ok](https://example.org/ok "a title")
"""

LONG_PATH = "vllm/model_executor/layers/quantization/compressed_tensors/schemes/" + "very_long_name_" * 6 + ".py"
STATUSES = tuple(FileStatus)


def _files(count: int) -> tuple[FileChange, ...]:
    files = [
        FileChange(path=LONG_PATH, status=FileStatus.MODIFIED, additions=120, deletions=7),
        FileChange(
            path="vllm/attention/backends/new_name.py",
            previous_path="vllm/attention/backends/old_name.py",
            status=FileStatus.RENAMED,
            additions=1,
            deletions=1,
        ),
    ]
    files += [
        FileChange(path=f"tests/generated/test_{number:03d}.py", status=STATUSES[number % 3], additions=number)
        for number in range(count - len(files))
    ]
    return tuple(files)


def _commit(
    seed: str,
    title: str,
    minutes: int,
    *,
    body: str = "",
    description: str | None = None,
    files: tuple[FileChange, ...] = (),
) -> Commit:
    when = DAY + timedelta(minutes=minutes)
    pr_number = int(re.search(r"#(\d+)\)$", title).group(1))  # type: ignore[union-attr]
    return Commit(
        repository=REPOSITORY,
        sha=sha_for(seed),
        author_name="Dev One",
        authored_at=when,
        committed_at=when,
        title=title,
        body=body,
        files=files,
        pull_request=PullRequestInfo(number=pr_number, description=description) if description is not None else None,
    )


def _records() -> list[CommitRecord]:
    analysis = ok_analysis(Importance.HIGH, platforms=(label("rocm", "title tag"),))
    return [
        CommitRecord(
            commit=_commit(
                "vllm-template",
                "[ROCm] Shuffle KV cache layout (#40001)",
                0,
                body=VLLM_BODY,
                files=_files(3),
            ),
            analysis=analysis,
        ),
        CommitRecord(
            commit=_commit(
                "ascend-template",
                "[Ascend] MLA prefill kernel (#40002)",
                1,
                body="Signed-off-by: Ascend Dev <dev@example.com>",
                description=ASCEND_DESCRIPTION,
                files=_files(60),
            ),
            analysis=analysis,
        ),
        CommitRecord(commit=_commit("hostile-body", "[Misc] Hostile message (#40003)", 2, body=HOSTILE_BODY)),
        CommitRecord(
            commit=_commit(
                "same-text",
                "[Doc] Same message and description (#40004)",
                3,
                body="Update the *docs*.\n\nSigned-off-by: Dev One <dev@example.com>",
                description="Update the *docs*.",
            )
        ),
        CommitRecord(
            commit=_commit(
                "trailers-only", "[CI] Trailers only (#40005)", 4, body="Signed-off-by: Dev One <dev@example.com>"
            )
        ),
    ]


def _short(seed: str) -> str:
    return sha_for(seed)[:12]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    return build_site(tmp_path_factory.mktemp("commit-page-site"), _records())


def _message(body: str) -> str:
    """The HTML of the page's message and PR description blocks."""
    return "".join(re.findall(r'<div class="digest-message">(.*?)</div>', body, re.S))


def _file_rows(body: str) -> list[list[str]]:
    table = re.search(r'<table class="digest-files">(.*?)</table>', body, re.S)
    assert table, "the changed files table is missing"
    rows = re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S)
    return [[visible_text(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)] for row in rows]


def test_template_boilerplate_goes_and_the_authors_text_stays(site: BuiltSite) -> None:
    body = article(site.page(f"commits/{_short('vllm-template')}"))
    text = visible_text(body)
    assert "Fix the shuffle KV cache layout on gfx950, see the design doc." in text
    assert "keep the old layout behind VLLM_ROCM_SHUFFLE_KV=0" in text
    assert "pytest tests/kernels/attention -k rocm" in text
    for boilerplate in (
        "Purpose",
        "Test Plan",
        "Test Result",
        "FILL IN THE PR DESCRIPTION",
        "BEFORE SUBMITTING",
        "Essential Elements",
        "The test plan, such as",
        "markdownlint",
        "Signed-off-by",
        "dev@example.com",
    ):
        assert boilerplate not in text, boilerplate


def test_message_markdown_renders_as_github_would(site: BuiltSite) -> None:
    page = site.page(f"commits/{_short('vllm-template')}")
    message = _message(article(page))
    assert "<em>shuffle</em>" in message and "<strong>gfx950</strong>" in message
    assert "<li>keep the old layout behind <code>VLLM_ROCM_SHUFFLE_KV=0</code></li>" in message
    assert "<pre><code>pytest tests/kernels/attention -k rocm\n</code></pre>" in message
    assert '<a href="https://docs.example.org/kv-layout" rel="nofollow ugc">the design doc</a>' in message
    # The message's own heading is a bold line: out of the page's headings and its table of contents.
    assert "<p><strong>Design notes</strong></p>" in message
    assert "Design notes" not in headings(article(page))
    toc = page[page.index('<nav class="md-nav md-nav--secondary"') :]
    toc = toc[: toc.index("</nav>")]
    assert "说明" in toc and "Design notes" not in toc
    assert "说明" in headings(article(page)) and "改动的文件" in headings(article(page))


def test_pr_description_has_its_own_heading_without_template(site: BuiltSite) -> None:
    body = article(site.page(f"commits/{_short('ascend-template')}"))
    assert "PR #40002 的描述" in headings(body)
    text = visible_text(body)
    assert "Add the MLA prefill kernel for Ascend 910B." in text and "CI passed on" in text
    assert '<a href="https://ci.example.org/run/42" rel="nofollow ugc">https://ci.example.org/run/42</a>' in body
    for boilerplate in ("What this PR does", "user-facing change", "How was this patch tested", "必填", "Thanks for"):
        assert boilerplate not in text, boilerplate


def test_a_description_equal_to_the_message_shows_once_and_empty_ones_not_at_all(site: BuiltSite) -> None:
    same = article(site.page(f"commits/{_short('same-text')}"))
    assert _message(same).count("Update the <em>docs</em>.") == 1
    assert "PR #40004 的描述" not in headings(same)
    trailers = article(site.page(f"commits/{_short('trailers-only')}"))
    assert "说明" not in headings(trailers) and 'class="digest-message"' not in trailers
    assert "改动的文件" not in headings(trailers)  # no files, no table


def test_hostile_markdown_is_inert(site: BuiltSite) -> None:
    page = site.page(f"commits/{_short('hostile-body')}")
    message = _message(article(page))
    assert "<script>document" not in page
    assert "<img" not in page
    assert not re.search(r"<[a-z][^>]*\son(error|mouseover)\s*=", page, re.I)
    assert "javascript:" not in "".join(re.findall(r'href="([^"]*)"', page)).lower()
    assert "tracker.example.org" not in page  # the image is its alt text, not a request
    text = visible_text(message)
    assert "tracking pixel" in text
    assert "<script>document.title='pwned-script'</script>" in text  # raw HTML shows as text
    assert "relative and mail and someone@example.org" in text  # non-http(s) links are their text
    links = re.findall(r"<a\b[^>]*>", message)
    assert links == [
        '<a href="https://example.org/auto" rel="nofollow ugc">',
        '<a href="https://example.org/bare" rel="nofollow ugc">',
        '<a href="https://example.org/ok" rel="nofollow ugc">',
    ]


def test_every_link_in_any_message_is_http_and_marked(site: BuiltSite, zh_site: BuiltSite) -> None:
    for built in (site, zh_site):
        for name, page in built.pages():
            for link in re.findall(r"<a\b[^>]*>", _message(page)):
                assert re.fullmatch(r'<a href="https?://[^"]+" rel="nofollow ugc">', link), (name, link)


def test_changed_files_show_the_first_fifty_then_a_count(site: BuiltSite) -> None:
    body = article(site.page(f"commits/{_short('ascend-template')}"))
    rows = _file_rows(body)
    assert rows[0] == ["文件", "状态", "行数"]
    assert len(rows) == 1 + FILES_SHOWN
    assert rows[1] == [LONG_PATH, "修改", "+120 −7"]
    assert rows[2] == [
        "vllm/attention/backends/new_name.py（原为 vllm/attention/backends/old_name.py）",
        "重命名",
        "+1 −1",
    ]
    assert f"<code>{LONG_PATH}</code>" in body
    assert "……以及另外 10 个文件" in visible_text(body)
    small = article(site.page(f"commits/{_short('vllm-template')}"))
    assert len(_file_rows(small)) == 1 + 3 and "以及另外" not in visible_text(small)


def test_copy_button_carries_the_full_sha_and_the_page_links_itself(site: BuiltSite) -> None:
    sha = sha_for("vllm-template")
    page = site.page(f"commits/{sha[:12]}")
    body = article(page)
    [button] = re.findall(r"<button\b[^>]*>[^<]*</button>", body)
    assert f'data-copy="{sha}"' in button and 'type="button"' in button and 'class="digest-copy"' in button
    assert 'data-copied="已复制"' in button and "hidden" in button and ">复制</button>" in button
    assert f"<code>{sha}</code> <button" in body  # the SHA stays as text beside it
    assert re.search(r'<a href="\./">永久链接</a>', body)
    assert f'<a href="https://github.com/{REPOSITORY}/commit/{sha}">' in body
    assert f'<a href="https://github.com/{REPOSITORY}/pull/40001">' in body
    # The stylesheet and script (the site's one of each) are linked from the page and served.
    assert '"../../assets/digest.css"' in page and '"../../assets/digest.js"' in page
    assert ".md-typeset table.digest-files" in (site.site / "assets/digest.css").read_text(encoding="utf-8")
    assert "data-copy" in (site.site / "assets/digest.js").read_text(encoding="utf-8")


def test_english_texts() -> None:
    taxonomy = load_taxonomy()
    records = _records()
    index = build_index(records, repository=REPOSITORY, zone=ZoneInfo("UTC"), taxonomy=taxonomy)
    specs = {spec.src_uri: spec for spec in generate_pages(index, taxonomy, SiteOptions(language="en"))}
    html = specs[f"commits/{_short('ascend-template')}.md"].render().html
    text = visible_text(html)
    assert "and 10 more files" in text
    assert "Description of PR #40002" in text and "Changed files" in text
    assert "vllm/attention/backends/new_name.py (was vllm/attention/backends/old_name.py)" in text
    assert 'data-copied="Copied"' in html and ">Permalink</a>" in html
    message = specs[f"commits/{_short('vllm-template')}.md"].render().html
    assert "Message" in visible_text(message)


# In chromium: the button copies, and the page holds at 390 px.


@pytest.fixture(scope="module")
def site_url(site: BuiltSite) -> Iterator[str]:
    with serve(site.site) as url:
        yield url


@pytest.mark.browser
def test_copy_button_copies_the_full_sha_in_chromium(browser: Browser, site_url: str) -> None:
    sha = sha_for("vllm-template")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/"))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(site_url + f"commits/{sha[:12]}/")
    button = page.locator("button.digest-copy")
    assert button.is_visible()  # the script revealed it
    button.click()
    page.wait_for_function("() => document.querySelector('button.digest-copy').textContent === '已复制'")
    assert page.evaluate("() => navigator.clipboard.readText()") == sha
    assert not errors, errors
    context.close()


# Elements of the page's content past the article's right edge or the window's, except material's
# table wrappers and code blocks, which scroll inside themselves by design. (The header is the
# theme's: its long page title is material's to fit.)
_OVERFLOWING = """() => {
  const edge = document.querySelector('article').getBoundingClientRect().right + 0.5;
  return [...document.querySelectorAll('.md-main *')]
    .filter((e) => !e.closest('.md-typeset__scrollwrap, pre'))
    .filter((e) => e.getBoundingClientRect().right > Math.min(window.innerWidth, e.closest('article') ? edge : Infinity))
    .map((e) => e.tagName + '.' + e.className);
}"""


@pytest.mark.browser
def test_commit_pages_do_not_scroll_sideways_at_390px(browser: Browser, site_url: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    for seed in ("ascend-template", "vllm-template", "hostile-body"):
        page.goto(site_url + f"commits/{_short(seed)}/")
        assert page.evaluate(_OVERFLOWING) == [], seed
        assert not page.title().startswith("pwned")
    # Without the stylesheet the long paths do push the files table past the edge: the check bites.
    page.goto(site_url + f"commits/{_short('ascend-template')}/")
    page.evaluate("() => document.querySelector('link[href*=\"digest.css\"]').remove()")
    assert page.evaluate(_OVERFLOWING) != []
    context.close()
