"""A page per commit: its message, files, analysis, operator changes and relations."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from commit_digest.site.fingerprint import digest
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.rendering.budget import LIST_PAGE_BUDGET, first_within
from commit_digest.site.rendering.commit_view import FILES_SHOWN, commit_view
from commit_digest.site.rendering.context import SiteContext
from commit_digest.site.rendering.describe import commit_description
from commit_digest.site.rendering.escape import title_plain
from commit_digest.site.rendering.markdown_body import BODY_LIMIT
from commit_digest.site.rendering.render import render
from commit_digest.site.views.base import PageSpec, View

# A commit page's forms, fullest first, as (characters of the message and of the PR description,
# files listed, characters per analysis text or None for whole): the first within LIST_PAGE_BUDGET
# is written. Only a commit far past any real one (a 200,000-character message, thousands of
# files, an analysis at the store's caps) gets past the first.
COMMIT_PAGE_FORMS: tuple[tuple[int, int, int | None], ...] = (
    (BODY_LIMIT, FILES_SHOWN, None),
    (4_000, 20, None),
    (4_000, 20, 600),
    (2_000, 10, 300),
    (1_000, 0, 150),
)


def commit_pages(context: SiteContext) -> Iterator[PageSpec]:
    for day in context.index.days:
        for position, item in enumerate(day.commits):
            uri = context.commit_page(item)
            previous = day.commits[position - 1] if position > 0 else None
            following = day.commits[position + 1] if position + 1 < len(day.commits) else None

            def content(
                uri: str = uri, item: SiteCommit = item, previous: Any = previous, following: Any = following
            ) -> str:
                def form(body_limit: int, files_shown: int, analysis_chars: int | None) -> Callable[[], str]:
                    def rendered() -> str:
                        commit = item.record.commit
                        view = commit_view(commit, context.texts, body_limit=body_limit, files_shown=files_shown)
                        page = context.for_page(
                            uri,
                            item=item,
                            previous=previous,
                            following=following,
                            view=view,
                            analysis_chars=analysis_chars,
                        )
                        return render("commit.html.j2", **page)

                    return rendered

                return first_within(LIST_PAGE_BUDGET, (form(*shape) for shape in COMMIT_PAGE_FORMS))

            inputs = digest(
                "commit",
                item.fingerprint,
                context.index.facts.page_input(item),
                previous.fingerprint if previous else None,
                following.fingerprint if following else None,
            )
            yield PageSpec(
                uri,
                title_plain(item.title),
                content,
                inputs,
                group=day.iso,
                describe=lambda item=item: commit_description(item, context.texts),
                article=True,
            )


class CommitsView(View):
    def pages(self, context: SiteContext) -> Iterator[PageSpec]:
        return commit_pages(context)
