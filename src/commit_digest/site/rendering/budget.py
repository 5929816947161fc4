"""Pages that keep to a byte budget whatever the commits they list hold: a page is rendered in
its fullest form first, then in shorter ones, until one keeps within the budget.

The home and day pages keep theirs in their views; the commit, impact and release pages use this one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

# A list page's content keeps under this many bytes: the theme adds about 20 KB around it, and
# its table of contents a little more, so the page stays under 150 KB (as the home page's).
LIST_PAGE_BUDGET = 120_000


def size(html: str) -> int:
    return len(html.encode("utf-8"))


def first_within(budget: int, forms: Iterable[Callable[[], str]]) -> str:
    """The first of ``forms`` (fullest first) whose HTML keeps within ``budget`` bytes; the
    last, shortest one when none does."""
    html = ""
    for form in forms:
        html = form()
        if size(html) <= budget:
            return html
    return html
