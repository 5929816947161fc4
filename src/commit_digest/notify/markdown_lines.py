"""A commit's line in the Markdown that DingTalk, WeCom and Discord read: the same list item for
the three services, every untrusted text made inert (``inert``)."""

from __future__ import annotations

from commit_digest.notify.inert import markdown_link, markdown_text
from commit_digest.notify.message import MessageLine


def markdown_line(line: MessageLine) -> str:
    """The linked title, short sha, importance and change type, and the summary indented below."""
    facts = " · ".join(markdown_text(fact) for fact in (line.importance, line.change_type) if fact)
    repository = f"\\[{markdown_text(line.repository)}\\] " if line.repository else ""
    text = f"- {repository}{markdown_link(line.url, line.title)} `{line.short_sha}` ({facts})"
    if line.summary:
        text += f"\n  {markdown_text(line.summary)}"
    return text
