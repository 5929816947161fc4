"""The theme's page frame (head, header, navigation, footer) rendered once, filled per page.

Every generated page of one kind shows the same frame around its content: only its title, its
address, its table of contents and its content differ. The site generator renders the frame once
with a marker in each of those places (``FrameMarkers``) and ``Frame.fill`` puts a page's values
where the markers were: a string join per page instead of the theme's whole template.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from commit_digest.site.build.compact import compact_parts


class Slot(Enum):
    """A place in the frame that differs from page to page."""

    TITLE = "title"  # the page title, as HTML (escaped text)
    CANONICAL = "canonical"  # the page's absolute URL
    URL = "url"  # the page's URL relative to the site root
    TOC = "toc"  # the rendered table of contents
    SKIP = "skip"  # the anchor of the first heading (the theme's "skip to content" link)
    CONTENT = "content"  # the page's content HTML
    DESCRIPTION = "description"  # the page's meta description, attribute-escaped
    HEAD = "head"  # what the page adds just before </head> (its card, languages and feeds), HTML


class FrameError(ValueError):
    """The theme's output did not hold a marker as expected (a theme that prints a value twice
    in different forms, or not at all): the site cannot be built from frames."""


@dataclass(frozen=True)
class FrameMarkers:
    """Words the theme prints unchanged (letters and digits: no escaping or filter alters them),
    random per build so no page text can be taken for one."""

    title: str
    canonical: str
    toc_anchor: str
    content: str
    description: str
    head: str

    @classmethod
    def new(cls) -> FrameMarkers:
        token = secrets.token_hex(8)
        return cls(
            title=f"cdframetitle{token}",
            canonical=f"https://cdframe{token}.invalid/page/",
            toc_anchor=f"cdframeskip{token}",
            content=f"cdframecontent{token}",
            description=f"cdframedescription{token}",
            head=f"cdframehead{token}",
        )


@dataclass(frozen=True)
class Frame:
    """The frame as text between slots: ``parts`` has one more item than ``slots``."""

    parts: tuple[str, ...]
    slots: tuple[Slot, ...]

    @classmethod
    def of(cls, rendered: str, places: Mapping[str, Slot], *, required: tuple[Slot, ...] = ()) -> Frame:
        """The frame of ``rendered`` (a page the theme made with markers): every occurrence of each
        text in ``places`` becomes its slot. A required slot that is missing, or a slot that
        appears in more than one form, raises FrameError."""
        pattern = re.compile("|".join(re.escape(text) for text in sorted(places, key=len, reverse=True)))
        parts: list[str] = []
        slots: list[Slot] = []
        position = 0
        for match in pattern.finditer(rendered):
            parts.append(rendered[position : match.start()])
            slots.append(places[match.group(0)])
            position = match.end()
        parts.append(rendered[position:])
        missing = [slot.value for slot in required if slot not in slots]
        if missing:
            raise FrameError(f"the theme's page does not show the page's {', '.join(missing)}")
        return cls(tuple(parts), tuple(slots))

    def fill(self, values: Mapping[Slot, str]) -> str:
        """The page: the frame with each slot holding the page's value."""
        pieces = [self.parts[0]]
        for slot, part in zip(self.slots, self.parts[1:], strict=True):
            pieces.append(values[slot])
            pieces.append(part)
        return "".join(pieces)

    def compacted(self) -> Frame:
        """The frame without the whitespace a browser never shows (``compact.compact_parts``)."""
        return Frame(compact_parts(self.parts), self.slots)
