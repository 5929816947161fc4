"""Reading a legacy daily report: Markdown text in, report structure out (pure, no I/O).

The legacy script wrote one Chinese report per day in two formats over time:

* newer: commit table, stats line, table of contents, then ``#### 🔴 高重要度变更 (n)`` groups
  holding ``### <title>`` sections that start with ``**SHA**: `abc1234` | 🔗 [查看提交](…)``;
* older: commit table, then ``### <40-hex sha>`` sections holding the commit link, the full
  commit message and the analysis; only some rows of the table have a section.

The analysis text was written by an LLM and its headings drift in level (``## 🔍 技术洞察``
inside a ``###`` section), so sections and fields are found line by line from what starts
them (a ``**SHA**`` line, a sha heading, a known field label), never from heading levels.
What a field holds is left as raw lines for ``mapping`` to read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date as Date
from typing import Literal

from commit_digest.errors import InputError
from commit_digest.fields import REPOSITORY_PATTERN

FieldKey = Literal[
    "sha",
    "change_type",
    "importance",
    "summary",
    "impact",
    "insights",
    "risks",
    "recommendations",
    "conclusion",
]
Group = Literal["high", "medium", "low"]

# Every label the reports used for a top-level field, by field. A label may be followed by
# a parenthetical ("变更类型（简述）"); anything else with a bold label stays inside the
# field it appears in (e.g. "**架构影响**" inside 技术洞察).
FIELD_LABELS: dict[str, FieldKey] = {
    "sha": "sha",
    "变更类型": "change_type",
    "类型": "change_type",
    "重要程度": "importance",
    "重要性": "importance",
    "变更摘要": "summary",
    "摘要": "summary",
    "变更概述": "summary",
    "核心改动": "summary",
    "核心变更": "summary",
    "主要改动": "summary",
    "主要变更": "summary",
    "概述": "summary",
    "影响范围": "impact",
    "技术洞察": "insights",
    "技术分析": "insights",
    "潜在风险": "risks",
    "风险": "risks",
    "风险评估": "risks",
    "关注建议": "recommendations",
    "建议": "recommendations",
    "结论": "conclusion",
    "总结": "conclusion",
    "综合评价": "conclusion",
    "总体评价": "conclusion",
}

_TITLE = re.compile(r"^#\s*每日更新报告\s*[（(]\s*(\d{4})-(\d{2})-(\d{2})\s*[）)]\s*$")
_TABLE_HEADER = ("提交时间", "作者", "提交信息")
_ROW_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$")
_REPOSITORY_HEADING = re.compile(r"^##\s+(\S+)\s*$")
_STATS = re.compile(
    r"本日共\s*(\d+)\s*个提交\s*\|\s*🔴\s*高\s*(\d+)\s*\|\s*🟡\s*中\s*(\d+)\s*\|\s*🟢\s*低\s*(\d+)"
)
_GROUP = re.compile(r"^#{1,6}\s*(🔴|🟡|🟢)\s*(高|中|低)重要度变更")
_SHA_HEADING = re.compile(r"^#{1,6}\s+([0-9a-fA-F]{40})\s*$")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_SHA_LINE = re.compile(r"^\*\*\s*SHA\s*\*\*")
_SHORT_SHA = re.compile(r"`([0-9a-fA-F]{7,40})`")
_COMMIT_LINK = re.compile(r"/commit/([0-9a-fA-F]{40})\b")
_BOLD_LABEL = re.compile(r"^\*\*(?P<inner>[^*]+?)\*\*\s*(?P<rest>.*)$")
_PLAIN_LABEL = re.compile(r"^(?P<inner>[^:：*|`\[]{1,20}?)\s*[:：]\s*(?P<rest>.*)$")
_LABEL_WITH_NOTE = re.compile(r"^(?P<label>[^（(]+?)\s*(?:[（(].*[）)])?$")
_DECORATION = re.compile(r"^[^\w`]+|[\s:：]+$")
_RULE = re.compile(r"^\s*(-{3,}|\*{3,}|_{3,})\s*$")
_GROUPS: dict[str, Group] = {"🔴": "high", "🟡": "medium", "🟢": "low"}

# How a sentence or a Markdown construct may legitimately end; anything else at the very end
# of a section means the LLM's answer was cut off.
_COMPLETE_ENDINGS = tuple("。！？.!?；;）)」』\"”'’`>]】…~*_")


@dataclass(frozen=True)
class TableRow:
    line: int
    time_text: str
    author: str
    title: str


@dataclass(frozen=True)
class StatsLine:
    total: int
    high: int
    medium: int
    low: int


@dataclass(frozen=True)
class FieldBlock:
    key: FieldKey
    label: str  # as written, decoration removed
    inline: str  # text after the label on the label's own line
    lines: tuple[str, ...]  # the lines that follow, up to the next field
    line: int


@dataclass(frozen=True)
class Section:
    line: int
    title: str | None  # the heading (newer format) or the message's first line (older)
    sha: str | None  # the full sha from the heading or the commit link
    short_sha: str | None
    message_body: str  # the commit message after its title (older format only)
    group: Group | None  # the importance group the section sits under (newer format)
    preamble: tuple[str, ...]  # text before the first field that is not sha, link or message
    fields: tuple[FieldBlock, ...]
    cut_off: bool  # the section's last text ends mid-sentence

    def field(self, key: FieldKey) -> list[FieldBlock]:
        return [block for block in self.fields if block.key == key]


@dataclass(frozen=True)
class LegacyReport:
    source_name: str
    day: Date
    repository: str | None
    rows: tuple[TableRow, ...]
    stats: StatsLine | None
    sections: tuple[Section, ...]


def _cells(line: str) -> list[str] | None:
    stripped = line.strip()
    if not stripped.startswith("|"):
        return None
    body = stripped[1:-1] if stripped.endswith("|") and len(stripped) > 1 else stripped[1:]
    return [cell.strip() for cell in body.split("|")]


def _is_separator_row(cells: list[str]) -> bool:
    return all(re.fullmatch(r":?-{2,}:?", cell) for cell in cells if cell) and any(cells)


def field_label(line: str) -> tuple[FieldKey, str, str] | None:
    """``(field, label, rest of line)`` when ``line`` starts a top-level field, else None."""
    stripped = line.strip()
    if not stripped or stripped[0] in "|-+>" or re.match(r"^\d+[.)]\s", stripped):
        return None
    candidates: list[tuple[str, str]] = []
    heading = _HEADING.match(stripped)
    if heading:
        candidates.append((heading.group(1), ""))
    else:
        bold = _BOLD_LABEL.match(stripped)
        if bold:
            candidates.append((bold.group("inner"), bold.group("rest")))
        plain = _PLAIN_LABEL.match(stripped)
        if plain:
            candidates.append((plain.group("inner"), plain.group("rest")))
    for inner, rest in candidates:
        label = _DECORATION.sub("", inner.replace("*", "")).strip()
        head = _LABEL_WITH_NOTE.match(label)
        if head is None:
            continue
        key = FIELD_LABELS.get(head.group("label").strip().lower())
        if key is None and heading:
            # A heading may carry its value: "### 🎯 变更类型：功能增强".
            split = re.match(r"^(?P<label>[^:：]+?)\s*[:：]\s*(?P<rest>.*)$", label)
            if split:
                key = FIELD_LABELS.get(split.group("label").strip().lower())
                label, rest = split.group("label"), split.group("rest")
        if key is not None:
            return key, label, re.sub(r"^[\s:：]+", "", rest).strip()
    return None


def ends_mid_sentence(lines: list[str]) -> bool:
    """Whether the last text of ``lines`` stops mid-sentence (the report was cut off there)."""
    content = [line.rstrip() for line in lines if line.strip() and not _RULE.match(line)]
    if not content:
        return False
    last = content[-1].strip()
    if last.startswith("|"):
        return not last.endswith("|")
    label = field_label(last)
    if label is not None:
        # A field label with nothing after it ("**结论**：" as the last line) lost its text.
        return not label[2]
    if last.startswith("```"):
        return False
    if last.count("`") % 2 or last.count("**") % 2:
        return True  # an unclosed code span or bold run
    return not last.endswith(_COMPLETE_ENDINGS)


def _strip_trailing_rules(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and (not lines[end - 1].strip() or _RULE.match(lines[end - 1])):
        end -= 1
    start = 0
    while start < end and not lines[start].strip():
        start += 1
    return lines[start:end]


def parse_report(text: str, source_name: str) -> LegacyReport:
    """Parses one report; raises InputError naming the file and line when it is not one."""
    lines = text.splitlines()
    first = next((index for index, line in enumerate(lines) if line.strip()), None)
    title = _TITLE.match(lines[first].strip()) if first is not None else None
    if title is None:
        raise InputError(
            f"{source_name}: not a legacy daily report: "
            "its first line should be '# 每日更新报告（YYYY-MM-DD）'"
        )
    try:
        day = Date(int(title.group(1)), int(title.group(2)), int(title.group(3)))
    except ValueError as error:
        raise InputError(f"{source_name}:{first + 1}: the report date is not a date: {error}") from error

    header = next(
        (index for index, line in enumerate(lines) if tuple(_cells(line) or ()) == _TABLE_HEADER), None
    )
    if header is None:
        raise InputError(
            f"{source_name}: not a legacy daily report: no commit table ('| 提交时间 | 作者 | 提交信息 |')"
        )
    repository = None
    for line in lines[:header]:
        heading = _REPOSITORY_HEADING.match(line.strip())
        if heading and re.match(REPOSITORY_PATTERN, heading.group(1)):
            repository = heading.group(1)
    rows, index = _parse_rows(lines, header, source_name)
    stats_match = next((_STATS.search(line) for line in lines if _STATS.search(line)), None)
    stats = StatsLine(*(int(value) for value in stats_match.groups())) if stats_match else None
    sections = _parse_sections(lines, index, source_name)
    return LegacyReport(
        source_name=source_name,
        day=day,
        repository=repository,
        rows=tuple(rows),
        stats=stats,
        sections=tuple(sections),
    )


def _parse_rows(lines: list[str], header: int, source_name: str) -> tuple[list[TableRow], int]:
    rows: list[TableRow] = []
    index = header + 1
    while index < len(lines):
        cells = _cells(lines[index])
        if cells is None:
            break
        if not _is_separator_row(cells):
            if len(cells) < 3 or not _ROW_TIME.match(cells[0]):
                raise InputError(
                    f"{source_name}:{index + 1}: a commit table row should be "
                    f"'| YYYY-MM-DD HH:MM:SS | author | title |', got {lines[index].strip()[:120]!r}"
                )
            # A title may itself hold '|': everything after the author cell is the title.
            rows.append(TableRow(index + 1, cells[0], cells[1], "|".join(cells[2:]).strip()))
        index += 1
    return rows, index


def _section_start(lines: list[str], index: int) -> tuple[str, str | None] | None:
    """``(heading text, sha from the heading)`` when a commit section starts at ``index``."""
    line = lines[index].strip()
    sha_heading = _SHA_HEADING.match(line)
    if sha_heading:
        return sha_heading.group(1), sha_heading.group(1).lower()
    heading = _HEADING.match(line)
    if heading is None:
        return None
    following = next((candidate for candidate in lines[index + 1 :] if candidate.strip()), "")
    if _SHA_LINE.match(following.strip()):
        return heading.group(1), None
    return None


def _parse_sections(lines: list[str], start: int, source_name: str) -> list[Section]:
    sections: list[Section] = []
    group: Group | None = None
    current: tuple[int, str, str | None, Group | None] | None = None
    body: list[str] = []

    def close() -> None:
        if current is not None:
            sections.append(_build_section(current, body))

    for index in range(start, len(lines)):
        group_match = _GROUP.match(lines[index].strip())
        if group_match:
            close()
            current, body = None, []
            group = _GROUPS[group_match.group(1)]
            continue
        found = _section_start(lines, index)
        if found is not None:
            close()
            current, body = (index + 1, found[0], found[1], group), []
            continue
        if current is not None:
            body.append(lines[index])
    close()
    return sections


def _build_section(head: tuple[int, str, str | None, Group | None], body: list[str]) -> Section:
    line_number, heading, heading_sha, group = head
    lines = _strip_trailing_rules(body)
    cut_off = ends_mid_sentence(lines)
    sha, short_sha, title = heading_sha, None, None if heading_sha else heading
    message: list[str] = []
    position = 0
    if heading_sha is None:
        # Newer format: the first line is "**SHA**: `abc1234` | 🔗 [查看提交](…/commit/<sha>)".
        sha_line = lines[0] if lines else ""
        short = _SHORT_SHA.search(sha_line)
        link = _COMMIT_LINK.search(sha_line)
        short_sha = short.group(1).lower() if short else None
        sha = link.group(1).lower() if link else None
        position = 1
    else:
        # Older format: the commit link, then the whole commit message up to the first field.
        while position < len(lines) and not lines[position].strip():
            position += 1
        if position < len(lines) and _COMMIT_LINK.search(lines[position]):
            position += 1
        while position < len(lines) and field_label(lines[position]) is None:
            message.append(lines[position])
            position += 1
        message = _strip_trailing_rules(message)
        title = message[0].strip() if message else None
        message = message[1:]
    preamble: list[str] = []
    fields: list[FieldBlock] = []
    open_field: tuple[FieldKey, str, str, int] | None = None
    field_lines: list[str] = []
    for offset, line in enumerate(lines[position:], start=position):
        label = field_label(line)
        if label is not None:
            if open_field is not None:
                fields.append(
                    FieldBlock(*open_field[:3], tuple(_strip_trailing_rules(field_lines)), open_field[3])
                )
            open_field = (*label, line_number + 1 + offset)
            field_lines = []
        elif open_field is not None:
            field_lines.append(line)
        elif line.strip() and not _RULE.match(line):
            preamble.append(line)
    if open_field is not None:
        fields.append(FieldBlock(*open_field[:3], tuple(_strip_trailing_rules(field_lines)), open_field[3]))
    return Section(
        line=line_number,
        title=title,
        sha=sha,
        short_sha=short_sha or (sha[:7] if sha else None),
        message_body="\n".join(_strip_trailing_rules(message)).strip(),
        group=group,
        preamble=tuple(preamble),
        fields=tuple(field for field in fields if field.key != "sha"),
        cut_off=cut_off,
    )
