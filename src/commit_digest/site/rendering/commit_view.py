"""What a commit page shows beyond the analysis: the message, the PR description and the files.

Pure: a commit and the page's texts in, Markup and plain values out; the template lays them out.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from commit_digest.meaning.pr_template import strip_template
from commit_digest.models import Commit, FileChange
from commit_digest.site.rendering.escape import html_fill
from commit_digest.site.rendering.i18n import Texts
from commit_digest.site.rendering.markdown_body import BODY_LIMIT, body_html

# Files listed on a commit page; a larger change says how many more it touched.
FILES_SHOWN = 50


@dataclass(frozen=True)
class FileRow:
    path: str  # untrusted text: the template escapes it
    previous_path: str | None
    status: Markup
    additions: int
    deletions: int


@dataclass(frozen=True)
class CommitView:
    message: Markup  # the commit body as HTML; "" when nothing is left once the template is gone
    description: Markup  # the PR description, "" when empty or the same text as the message
    files: tuple[FileRow, ...]  # the first changed files (FILES_SHOWN unless the page is over its budget)
    more_files: int  # how many files were left out of ``files``


def _same_text(first: str, second: str) -> bool:
    return " ".join(first.split()) == " ".join(second.split())


def _file_row(change: FileChange, texts: Texts) -> FileRow:
    return FileRow(
        path=change.path,
        previous_path=change.previous_path if change.previous_path != change.path else None,
        status=texts(f"file_{change.status.value}"),
        additions=change.additions,
        deletions=change.deletions,
    )


def commit_view(
    commit: Commit, texts: Texts, *, body_limit: int = BODY_LIMIT, files_shown: int = FILES_SHOWN
) -> CommitView:
    """``body_limit`` characters of the message and the description each, the first ``files_shown`` files:
    less than the defaults for a page that would not fit its budget."""
    cut_note = html_fill('<a href="%s">%s</a>', commit.web_url, texts("message_cut", limit=body_limit))
    message = strip_template(commit.body)
    description = strip_template(commit.pull_request.description) if commit.pull_request else ""
    # A squash merge often copies the description into the message: show it once.
    if _same_text(message, description):
        description = ""
    return CommitView(
        message=body_html(message, limit=body_limit, cut_note=cut_note) if message else Markup(""),
        description=body_html(description, limit=body_limit, cut_note=cut_note) if description else Markup(""),
        files=tuple(_file_row(change, texts) for change in commit.files[:files_shown]),
        more_files=max(0, len(commit.files) - files_shown),
    )
