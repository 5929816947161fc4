"""How untrusted text (commit titles, messages, author names, LLM output) reaches a page as text.

The generated pages are HTML rendered by the site's own templates (``render.py``): there every
value goes through ``html_text`` — control characters and line breaks folded, ``& < > " '``
turned into entities — so the reader sees the text as written and the browser sees no tag,
attribute or link. The only other path is a commit message's or PR description's body, read as
a restricted Markdown and sanitized (``markdown_body.body_html``); nothing else passes through a
Markdown parser on the way. A title or a name that could reorder the line around it (a
right-to-left override, right-to-left letters) is shown in a <bdi> (``title_html``,
``name_html``); plain text (window titles, feeds) drops the explicit direction controls instead.

Pages a site owner writes in Markdown (mkdocs-gen-files scripts, through ``commit_digest.api``)
need more, and get ``inline_text``/``block_text``: text must be inert for Markdown and HTML:
HTML-special characters become entities, and every character that Markdown, its extensions
(tables, attr_list, snippets, magiclink, emoji, arithmatex, mark, tilde, caret, critic) or
a heading could read as syntax becomes a numeric character reference. The reader sees the
text as written; the parser sees no tag, attribute, link, include, table cell or heading.
Line breaks are folded, so text can never start a line of its own (no heading, list, code
block, snippet or table row from a commit message).

Trusted fragments built by code (links, labels from the i18n table) are ``Markup``; the
Jinja2 environment (``render.py``) passes every other value through ``html_text``
(``html_value``), and so do the fragments built in Python (``fragments.py``, through
``html_fill`` and ``html_join``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from markupsafe import Markup, escape

# Characters read as syntax by Python-Markdown or the pymdownx extensions material users enable.
_SYNTAX_CHARACTERS = frozenset("\\`*_{}[]()<>#+-.!|:~^=$%@&\"'")
_ALWAYS = frozenset("\\`*_{}[]<>#|:~^=$@&\"'")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u2028\u2029]")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# What can change the order the text around a title or a name is shown in: an explicit embedding,
# override or isolate (an unclosed U+202E shows the rest of its line reversed), a direction mark,
# and the letters of right-to-left scripts.
_EXPLICIT_BIDI = "\u202a-\u202e\u2066-\u2069"
_MARKS = "\u061c\u200e\u200f"
# Hebrew to Arabic Extended-A, their presentation forms, and the right-to-left historic scripts.
_RIGHT_TO_LEFT = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff"
_BIDI = re.compile(f"[{_EXPLICIT_BIDI}{_MARKS}{_RIGHT_TO_LEFT}]")
_BIDI_CONTROL = re.compile(f"[{_EXPLICIT_BIDI}]")
_ISOLATE_OPENING = frozenset("\u2066\u2067\u2068")
_FIRST_STRONG_ISOLATE = "\u2068"
_POP_ISOLATE = "\u2069"
_ORDERED_LIST_START = re.compile(r"^(\d+)([.)])")
# Characters of a title shown wherever it is listed (a title may hold 2,000; GitHub cuts at 72):
# one commit's title repeated under each of its labels must not fill a week's page.
TITLE_SHOWN = 300


def _folded(value: object) -> str:
    """Control characters and runs of whitespace as one space, none at either end. str.split()
    splits at exactly the characters regex's \\s matches, several times faster than \\s+."""
    return " ".join(_CONTROL.sub(" ", str(value)).split())


def _contained(text: str) -> str:
    """``text`` with its explicit direction controls kept inside it: a text holding any is put in a
    first-strong isolate (U+2068 ... U+2069), whose end closes every embedding and override opened
    within, with a PDI dropped where it would close more than the text opened and one added for each
    isolate it left open. An LLM's U+202E then reverses at most the rest of its own text, never the
    line, label or list it stands in (``gnp.exe`` beside it stays as written), in text and attribute
    values alike; the other texts (almost all) stay as they are."""
    if not _BIDI_CONTROL.search(text):
        return text
    depth = 0
    kept: list[str] = []
    for character in text:
        if character in _ISOLATE_OPENING:
            depth += 1
        elif character == _POP_ISOLATE:
            if not depth:
                continue
            depth -= 1
        kept.append(character)
    return _FIRST_STRONG_ISOLATE + "".join(kept) + _POP_ISOLATE * (depth + 1)


def html_text(value: object) -> Markup:
    """Text for one line of HTML (table cell, heading, list item, link text), entities escaped, its
    direction controls contained (``_contained``)."""
    return escape(_contained(_folded(value)))


def html_value(value: object) -> Markup:
    """A value as a template's ``{{ value }}`` prints it (render.py) and as Python fragments put it
    in HTML: Markup (built by code or the i18n table) as it is, a number as its digits, anything
    else as untrusted text through ``html_text``."""
    if isinstance(value, Markup):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return Markup(str(value))
    return html_text(value)


def html_fill(template: str, *values: object) -> Markup:
    """Trusted HTML ``template`` (a constant with ``%s`` slots) filled with ``values``, each put in as
    ``html_value`` puts it (untrusted text escaped as a template's ``{{ value }}``). Like
    ``Markup(template) % values`` without its wrapping of every value, which costs fragments
    repeated thousands of times per build a few microseconds each."""
    return Markup(template % tuple([html_value(value) for value in values]))


def html_fill_each(template: str, values: Iterable[object]) -> Markup:
    """Trusted HTML ``template`` (one ``%s`` slot) filled with each of ``values`` in turn, one after
    the other: a list's items, a text's paragraphs."""
    return Markup("".join([template % html_value(value) for value in values]))


def html_join(parts: Iterable[object], separator: str = "") -> Markup:
    """``parts``, each as ``html_value`` puts it, one after the other (``separator``: trusted HTML)."""
    return Markup(str.join(separator, [html_value(part) for part in parts]))


_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def _isolated(text: str, html: Markup) -> Markup:
    """``html`` (``text`` escaped) in a <bdi> when ``text`` could reorder the line around it: the
    rest of the line then reads as it should. Most titles and names have no such character and
    stay as they are (the pages keep their size)."""
    return Markup("<bdi>%s</bdi>") % html if _BIDI.search(text) else html


def _shown(text: str, limit: int | None) -> str:
    return text if limit is None or len(text) <= limit else text[: limit - 1].rstrip() + "…"


def title_html(value: object, limit: int | None = TITLE_SHOWN) -> Markup:
    """A commit title for HTML: its `code` spans as <code>, everything else escaped text, in a
    <bdi> when its direction could spill over the line (``_isolated``); past ``limit`` characters
    cut with an ellipsis (None: whole; a commit page shows a longer title whole under its message).

    Titles are written in GitHub's Markdown, where only code spans are common (18 of 172 in the
    sample); emphasis and links are left as the characters they are.
    """
    text = _shown(_folded(value), limit)
    if "`" not in text:  # most titles: no code span, the whole title is text
        return _isolated(text, escape(text))
    parts: list[Markup] = []
    position = 0
    for match in _CODE_SPAN.finditer(text):
        parts.append(escape(text[position : match.start()]))
        parts.append(Markup("<code>%s</code>") % match.group(2).strip())
        position = match.end()
    parts.append(escape(text[position:]))
    return _isolated(text, Markup("").join(parts))


def name_html(value: object) -> Markup:
    """An untrusted name (an author, a series) for HTML: escaped text, isolated as titles are."""
    text = _folded(value)
    return _isolated(text, escape(text))


def plain_text(value: object) -> str:
    """Untrusted text as plain text (a feed's summary, a search excerpt) without the explicit
    direction controls that plain text shown among other text cannot be trusted to contain."""
    return _BIDI_CONTROL.sub("", str(value))


def plain_name(value: object) -> str:
    """An untrusted name as one line of plain text (a feed), without the explicit direction
    controls that plain text cannot isolate."""
    return _folded(plain_text(value))


def title_plain(value: object, limit: int | None = TITLE_SHOWN) -> str:
    """A commit title as plain text (a window title, a feed): code spans without their backticks,
    no explicit direction control (``plain_name``), cut past ``limit`` characters as ``title_html``."""
    return _shown(_CODE_SPAN.sub(lambda match: match.group(2).strip(), plain_name(value)), limit)


def html_paragraphs(value: object) -> list[Markup]:
    """The paragraphs of a text that may hold several, each escaped as ``html_text``."""
    parts = _PARAGRAPH_BREAK.split(str(value).replace("\r\n", "\n"))
    return [html_text(part) for part in parts if part.strip()]


def _reference(character: str) -> str:
    return f"&#{ord(character)};"


def inline_text(value: object) -> Markup:
    """Text for one line of Markdown (table cell, heading, list item, link text)."""
    text = _contained(_folded(value))
    if not text:
        return Markup("")
    # "1. x" at the start of a line opens an ordered list: its "." or ")" is escaped too.
    list_start = _ORDERED_LIST_START.match(text)
    marker = list_start.end(1) if list_start else -1
    parts = []
    for position, character in enumerate(text):
        # At the start of a line ".", "-", "+", "(" and "!" can open a list or a block; elsewhere
        # they are only text, and leaving them plain keeps pages small.
        if character in _ALWAYS or position == marker or (position == 0 and character in _SYNTAX_CHARACTERS):
            parts.append(_reference(character))
        else:
            parts.append(character)
    return Markup("".join(parts))


def block_text(value: object) -> Markup:
    """Text that may hold several paragraphs: each paragraph escaped as inline text."""
    paragraphs = [inline_text(part) for part in _PARAGRAPH_BREAK.split(str(value).replace("\r\n", "\n"))]
    return Markup("\n\n".join(str(part) for part in paragraphs if part))


def trusted(fragment: str) -> Markup:
    """Marks HTML or Markdown that code built from trusted parts (never from untrusted text)."""
    return Markup(fragment)
