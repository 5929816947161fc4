"""Pull-request template boilerplate, removed from a commit message or PR description.

vLLM's and vllm-ascend's PR templates leave headings ("## Purpose", "### How was this patch
tested?"), instructions in HTML comments, a checklist in a ``<details>`` block and a "BEFORE
SUBMITTING" line in most descriptions; squash merges add ``Signed-off-by:`` trailers. None of it
says anything about the change, and words like "Test Plan" would mislead a keyword rule, so the
site, the taxonomy rules and the offline analyzer read the text through ``strip_template``.

What the author wrote under a template heading stays; only the heading goes. Lines inside fenced
code blocks are never touched (a code sample may well hold a comment or a checklist).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# Template headings, compared after ``_normalized`` (no "#", "*", "_", case or trailing "(必填)").
_TEMPLATE_HEADINGS = frozenset(
    {
        # vLLM (.github/PULL_REQUEST_TEMPLATE.md)
        "purpose",
        "test plan",
        "test result",
        "test results",
        "(optional) documentation update",
        "(optional) release notes update",
        "essential elements of an effective pr description checklist",
        # vllm-ascend
        "what this pr does / why we need it",
        "does this pr introduce any user-facing change",
        "how was this patch tested",
    }
)
# Headings whose section says how the change was tested, not what it does.
TESTING_HEADINGS = frozenset({"test plan", "test result", "test results", "how was this patch tested"})
USER_FACING_HEADING = "does this pr introduce any user-facing change"
# Instruction lines of the templates: a line containing one of these goes whole.
_TEMPLATE_PHRASES = (
    "fill in the pr description here",
    "before submitting, please read",
    "anything written below this line will be removed",
)
# "FIX #xxxx (*link existing issues this PR will resolve*)": the note goes; the line goes too
# unless the author put a real issue in it.
_ISSUE_NOTE = re.compile(r"\(\s*[*_]*\s*link existing issues this PR will resolve\s*[*_]*\s*\)", re.I)
_ISSUE_PLACEHOLDER = re.compile(r"^\s*(?:fix(?:es)?\s*#?\s*(?:x+)?)?\s*$", re.I)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]|$)")
_CHECKLIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[ xX]\](?:\s|$)")
_TRAILER = re.compile(r"^\s*(?:signed-off-by|co-authored-by)\s*:", re.I)
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")
_DETAILS_START = re.compile(r"^\s*<details\b", re.I)
_DETAILS_OPEN = re.compile(r"<details\b", re.I)
_DETAILS_CLOSE = re.compile(r"</details\s*>", re.I)
_COMMENT_OPEN = "<!--"
_COMMENT_CLOSE = "-->"
_REQUIRED_MARK = re.compile(r"\s*[(（]\s*(?:必填|required|optional|可选)\s*[)）]\s*$", re.I)
_CONTENT = 7  # rank of a non-blank line that is not a heading (below "######")


def _normalized(line: str) -> str:
    text = re.sub(r"^\s*#{1,6}\s*", "", line)
    text = re.sub(r"[*_]", "", text).strip()
    text = _REQUIRED_MARK.sub("", text)
    text = text.rstrip(" ?？:：").strip()
    return " ".join(text.lower().split())


def _without_template(line: str) -> str | None:
    """The line, None when it is template text through and through."""
    lowered = line.lower()
    if any(phrase in lowered for phrase in _TEMPLATE_PHRASES) or _normalized(line) in _TEMPLATE_HEADINGS:
        return None
    if _ISSUE_NOTE.search(line):
        line = _ISSUE_NOTE.sub("", line).rstrip()
        return None if _ISSUE_PLACEHOLDER.match(line) else line
    return line


def _heading_level(line: str) -> int | None:
    """The level of an ATX ("## ...") heading. A whole-line bold phrase is not one: it may well
    be the text's last word ("**2x faster**"), and an empty one only matters when it is template."""
    match = _ATX_HEADING.match(line)
    return len(match.group(1)) if match else None


def _without_markup_blocks(lines: list[str]) -> Iterator[tuple[str, bool]]:
    """Each line with HTML comments and ``<details>`` blocks cut out, and whether it is inside a
    fenced code block (such lines are passed through as they are)."""
    fence: str | None = None
    in_comment = False
    details_depth = 0
    for line in lines:
        if fence is None and not in_comment and details_depth == 0:
            opened = _FENCE.match(line)
            if opened:
                fence = opened.group(1)
                yield line, True
                continue
        elif fence is not None:
            if _closes(fence, line):
                fence = None
            yield line, True
            continue
        kept, in_comment = _cut_comments(line, in_comment)
        if details_depth or _DETAILS_START.match(kept):
            details_depth += len(_DETAILS_OPEN.findall(kept)) - len(_DETAILS_CLOSE.findall(kept))
            details_depth = max(details_depth, 0)
            # A line that opens or closes a <details> block goes whole, and so does all within it.
            continue
        if kept.strip() or not line.strip():
            yield kept, False


def _closes(fence: str, line: str) -> bool:
    """Whether ``line`` closes a code block opened by ``fence``: the same character, at least as
    many, and nothing else on the line."""
    closing = _FENCE.match(line)
    return bool(closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence)) and not (
        line.strip().strip(fence[0])
    )


def _cut_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """The line without the parts inside ``<!-- … -->`` (which may span lines); an unclosed
    comment hides the rest of the text, as it does on GitHub."""
    kept = []
    position = 0
    while position <= len(line):
        if in_comment:
            end = line.find(_COMMENT_CLOSE, position)
            if end < 0:
                break
            position = end + len(_COMMENT_CLOSE)
            in_comment = False
        else:
            start = line.find(_COMMENT_OPEN, position)
            if start < 0:
                kept.append(line[position:])
                break
            kept.append(line[position:start])
            position = start + len(_COMMENT_OPEN)
            in_comment = True
    return "".join(kept), in_comment


def _drop_empty_sections(lines: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """Headings with nothing under them: the next non-blank line left is a heading of the same or
    a higher rank, or there is none. One pass from the end, so a heading whose only subsection
    was empty goes too, in linear time whatever the text holds."""
    kept: list[tuple[str, bool]] = []
    following = 0  # rank of the next kept line: 0 for the end, _CONTENT for text
    for line, in_code in reversed(lines):
        level = None if in_code else _heading_level(line)
        if not line.strip() or (not in_code and _THEMATIC_BREAK.match(line)):
            # A blank line or a horizontal rule is nothing under a heading.
            kept.append((line, in_code))
        elif level is None:
            kept.append((line, in_code))
            following = _CONTENT
        elif following > level:
            kept.append((line, in_code))
            following = level
    kept.reverse()
    return kept


def _trimmed(lines: list[tuple[str, bool]]) -> list[str]:
    """No blank or horizontal-rule lines at either end, no runs of blank lines outside code."""

    def empty(line: str) -> bool:
        return not line.strip() or _THEMATIC_BREAK.match(line) is not None

    start, end = 0, len(lines)
    while start < end and empty(lines[start][0]):
        start += 1
    while end > start and empty(lines[end - 1][0]):
        end -= 1
    result: list[str] = []
    for line, in_code in lines[start:end]:
        if not in_code and not line.strip() and result and not result[-1].strip():
            continue
        result.append(line)
    return result


def strip_template(text: str) -> str:
    """``text`` without PR-template boilerplate, HTML comments, ``<details>`` blocks, checklist
    items, ``Signed-off-by:``/``Co-authored-by:`` trailers and headings left with nothing under
    them; "" when nothing else was written."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[tuple[str, bool]] = []
    for line, in_code in _without_markup_blocks(lines):
        if in_code:
            kept.append((line, in_code))
            continue
        if _CHECKLIST_ITEM.match(line) or _TRAILER.match(line):
            continue
        rest = _without_template(line)
        if rest is not None:
            kept.append((rest, in_code))
    return "\n".join(_trimmed(_drop_empty_sections(kept)))


@dataclass(frozen=True)
class TemplateSection:
    """What the author wrote under one template heading (``heading`` as normalized, e.g. "test
    plan"), or before any (``heading`` None), through ``strip_template``."""

    heading: str | None
    text: str


def template_sections(text: str) -> list[TemplateSection]:
    """``text`` cut at the template's headings, each part without boilerplate; parts left empty
    are dropped. A reader can then tell the purpose from the test notes or a bare "No" answer."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    parts: list[tuple[str | None, list[str]]] = [(None, [])]
    for line, in_code in _without_markup_blocks(lines):
        heading = None if in_code else _normalized(line)
        if heading in _TEMPLATE_HEADINGS:
            parts.append((heading, []))
        else:
            parts[-1][1].append(line)
    sections = [TemplateSection(heading, strip_template("\n".join(body))) for heading, body in parts]
    return [section for section in sections if section.text]


# "Does this PR introduce any user-facing change?" answered with nothing to say.
_NO_ANSWER = re.compile(
    r"(?:no|none|nope|n/?a|not applicable|nothing|无|否|没有|不涉及)[\s.。!！,，]*"
    r"(?:(?:user[- ]facing )?changes?[.。]?)?",
    re.IGNORECASE,
)
# vllm-ascend's bot adds the vLLM version and commit it was tested against to every PR.
_BOT_LINE = re.compile(r"^\s*[-*]?\s*vLLM (?:version|main)\s*:", re.IGNORECASE)


def described_message(body: str) -> str:
    """What a message says the change does: without PR-template boilerplate, the sections on how
    it was tested, a bare "No" to "any user-facing change?" and vllm-ascend's version lines."""
    kept = []
    for section in template_sections(body):
        if section.heading in TESTING_HEADINGS:
            continue
        if section.heading == USER_FACING_HEADING and _NO_ANSWER.fullmatch(section.text):
            continue
        kept.append("\n".join(line for line in section.text.splitlines() if not _BOT_LINE.match(line)).strip())
    return "\n\n".join(part for part in kept if part)
