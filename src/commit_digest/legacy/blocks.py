"""A field's Markdown as items: list entries, table rows and paragraphs, each with its bold label.

markdown-it-py does the Markdown (nesting, lazy lines, tables, inline marks); this module only
turns its tree into plain text items. Inline marks are dropped (bold, links become their
text), code spans keep their backticks and ``<br>`` becomes a line break, so nothing of the
LLM's Markdown or HTML survives into the stored analysis.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

ItemKind = Literal["list", "row", "paragraph"]

_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable("table")
_BREAK_TAG = re.compile(r"^<br\s*/?>$", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_CJK = re.compile(r"[\u2e80-\u9fff\uff00-\uffef\u3000-\u303f]")
_LABEL_SEPARATOR = re.compile(r"^\s*[:：]\s*")


@dataclass(frozen=True)
class Item:
    kind: ItemKind
    label: str | None
    text: str
    children: tuple[Item, ...] = field(default=())

    def body(self) -> str:
        """The item's text and its children's, one per line."""
        parts = [self.text] + [child.labelled() for child in self.children]
        return "\n".join(part for part in parts if part)

    def labelled(self) -> str:
        body = self.body()
        if self.label and body:
            return f"{self.label}：{body}"
        return self.label or body


def _separate_tables(lines: Sequence[str]) -> str:
    """A table needs a blank line before it, or CommonMark reads it as part of a paragraph."""
    out: list[str] = []
    for line in lines:
        if line.lstrip().startswith("|") and out and out[-1].strip() and not out[-1].lstrip().startswith("|"):
            out.append("")
        out.append(line)
    return "\n".join(out)


def parse_items(lines: Sequence[str]) -> list[Item]:
    root = SyntaxTreeNode(_MARKDOWN.parse(_separate_tables(lines)))
    return _block_items(root.children)


def _block_items(nodes: Sequence[SyntaxTreeNode]) -> list[Item]:
    items: list[Item] = []
    for node in nodes:
        if node.type in ("bullet_list", "ordered_list"):
            items.extend(_list_item(child) for child in node.children)
        elif node.type == "table":
            items.extend(_table_rows(node))
        elif node.type in ("paragraph", "heading"):
            label, text = _labelled_inline(node)
            if label or text:
                items.append(Item("paragraph", label, text))
        elif node.type in ("fence", "code_block"):
            text = node.content.strip()
            if text:
                items.append(Item("paragraph", None, text))
        elif node.type == "html_block":
            text = _TAG.sub("", node.content).strip()
            if text:
                items.append(Item("paragraph", None, text))
        elif node.type == "blockquote":
            items.extend(_block_items(node.children))
        # hr: a separator, not text
    return items


def _list_item(node: SyntaxTreeNode) -> Item:
    label: str | None = None
    texts: list[str] = []
    children: list[Item] = []
    for index, child in enumerate(node.children):
        if child.type in ("paragraph", "heading") and index == 0:
            label, text = _labelled_inline(child)
            texts.append(text)
        elif child.type in ("paragraph", "heading"):
            texts.append(_inline_text(child))
        else:
            children.extend(_block_items([child]))
    return Item("list", label, "\n".join(text for text in texts if text), tuple(children))


def _table_rows(table: SyntaxTreeNode) -> list[Item]:
    header: list[str] = []
    rows: list[list[str]] = []
    for section in table.children:
        for row in section.children:
            cells = [_inline_text(cell) for cell in row.children]
            if section.type == "thead":
                header = cells
            else:
                rows.append(cells)
    items = []
    for cells in rows:
        label = cells[0] if cells else ""
        rest = cells[1:]
        if len(rest) <= 1:
            text = rest[0] if rest else ""
        else:
            names = header[1:] if len(header) == len(cells) else [""] * len(rest)
            text = "\n".join(
                f"{name}：{cell}" if name else cell for name, cell in zip(names, rest, strict=True) if cell
            )
        if label or text:
            items.append(Item("row", label or None, text))
    return items


def _labelled_inline(node: SyntaxTreeNode) -> tuple[str | None, str]:
    """``(label, text)`` of a paragraph that starts with ``**label**：`` (or is only bold)."""
    inline = node.children[0] if node.children else None
    if inline is None:
        return None, ""
    parts = [child for child in inline.children if not (child.type == "text" and not child.content.strip())]
    if parts and parts[0].type == "strong":
        label = _render(parts[0].children).strip()
        rest = _render(inline.children[inline.children.index(parts[0]) + 1 :])
        ends_with_colon = label.endswith((":", "："))
        if rest.strip() == "" or ends_with_colon or _LABEL_SEPARATOR.match(rest):
            label = label.rstrip(":： ").strip()
            return label or None, _LABEL_SEPARATOR.sub("", rest, count=1).strip()
    return None, _render(inline.children).strip()


def _inline_text(node: SyntaxTreeNode) -> str:
    return "".join(_render(child.children) for child in node.children if child.type == "inline").strip()


def _render(nodes: Sequence[SyntaxTreeNode]) -> str:
    out: list[str] = []
    for node in nodes:
        if node.type == "text":
            out.append(node.content)
        elif node.type == "code_inline":
            out.append(f"`{node.content}`")
        elif node.type == "softbreak":
            previous = out[-1][-1:] if out and out[-1] else ""
            out.append("" if _CJK.match(previous) else " ")
        elif node.type == "hardbreak":
            out.append("\n")
        elif node.type == "html_inline":
            out.append("\n" if _BREAK_TAG.match(node.content.strip()) else "")
        elif node.type == "image":
            continue
        else:  # strong, em, link, s: their text only
            out.append(_render(node.children))
    text = "".join(out)
    return "\n".join(line.strip() for line in text.split("\n"))
