"""The frame's compaction takes out only whitespace a browser never shows."""

from __future__ import annotations

import json
from html.parser import HTMLParser

from commit_digest.site.build.compact import compact_html, compact_json_scripts, compact_parts

PAGE = """<!doctype html>
<html>
  <head>
    <style>
      pre  { tab-size:   4 }
    </style>
    <script>
      var first = 1;
      // a comment to the end of the line
      var second  =  2;
    </script>
  </head>
  <body>
    <nav>
      <a href="/">
        Home
      </a>
      <a href="/b/">Archive</a>
    </nav>
    <pre><code>def f():
        return  1

    </code></pre>
    <textarea>
  kept   as is
    </textarea>
    <p>two  spaces on one line stay</p>
  </body>
</html>
"""


class _Text(HTMLParser):
    """What a reader sees: the text, whitespace runs as one space (but in pre and textarea)."""

    def __init__(self) -> None:
        super().__init__()
        self.pieces: list[str] = []

    def handle_data(self, data: str) -> None:
        self.pieces.append(data)

    def seen(self) -> str:
        return " ".join("".join(self.pieces).split())


def _seen(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return parser.seen()


def test_runs_with_a_line_break_become_one_line_break() -> None:
    compacted = compact_html(PAGE)
    assert "\n  " not in compacted.split("<style>")[0]
    assert "<nav>\n<a href=\"/\">\nHome\n</a>\n<a" in compacted
    assert "two  spaces on one line stay" in compacted
    assert len(compacted) < len(PAGE)


def test_raw_text_elements_are_left_exactly() -> None:
    compacted = compact_html(PAGE)
    for element in ("style", "script", "pre", "textarea"):
        start = PAGE.index(f"<{element}")
        end = PAGE.index(f"</{element}>") + len(element) + 3
        assert PAGE[start:end] in compacted, element


def test_a_reader_sees_the_same_text() -> None:
    assert _seen(compact_html(PAGE)) == _seen(PAGE)


def test_parts_are_compacted_as_one_text() -> None:
    """A script that opens in one part and closes in the next is left as it is."""
    cut = PAGE.index("var second")
    parts = compact_parts([PAGE[:cut], PAGE[cut:]])
    assert "".join(parts) == compact_html(PAGE)
    assert parts[1].startswith("var second  =  2;")


def test_parts_holding_the_joiner_are_left_alone() -> None:
    parts = ("a\n   b\x00", "c\n   d")
    assert compact_parts(parts) == parts



def test_comments_stay() -> None:
    html = "<p>a<!-- a note a tool looks for -->b</p><svg><!--! Font Awesome Free, License CC BY 4.0 --></svg>"
    assert compact_html(html) == html


def test_the_theme_configuration_is_the_same_json_written_compactly() -> None:
    document = {"translations": {"search.result.none": "没有找到", "a": "</script><b>&"}, "base": "../..", "n": None}
    # As a theme prints it (Jinja's tojson): \u escapes, spaces, <, > and & escaped.
    written = json.dumps(document, indent=2).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    html = f'<script id="__config" type="application/json">{written}</script>'
    compacted = compact_json_scripts(html)
    inner = compacted.removeprefix('<script id="__config" type="application/json">').removesuffix("</script>")
    assert json.loads(inner) == document
    assert "没有找到" in inner and "</" not in inner and "&" not in inner
    assert len(compacted.encode()) < len(html.encode())


def test_a_json_script_that_does_not_parse_is_left_alone() -> None:
    html = '<script type="application/json">{"a": \x00 1}</script>'
    assert compact_json_scripts(html) == html
