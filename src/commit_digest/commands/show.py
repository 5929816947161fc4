"""One stored record as plain text for a terminal (`commit-digest show`)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from commit_digest.commands.terminal import one_line
from commit_digest.models import CommitRecord

# Commit text is untrusted: control characters (terminal escapes; a newline that starts a forged
# line), bidi controls that make text read reversed, and line separators are shown escaped.
_CONTINUED = "\n    "


def plain(text: str) -> str:
    """Prose that may hold several lines: each line after the first indented under its item."""
    return _CONTINUED.join(one_line(line) for line in text.split("\n"))


def format_record(record: CommitRecord, zone: ZoneInfo) -> str:
    commit = record.commit
    lines = [
        one_line(commit.title),
        f"  sha        {commit.sha}",
        f"  author     {one_line(commit.author_name)}"
        + (f" (@{one_line(commit.author_login)})" if commit.author_login else ""),
        f"  landed     {commit.committed_at.astimezone(zone).isoformat()} (day {commit.day(zone)})",
        f"  commit     {commit.web_url}",
    ]
    if commit.pr_url:
        lines.append(f"  pull       {commit.pr_url}")
    lines.append(f"  files      {len(commit.files)} (+{commit.additions}/-{commit.deletions})")
    for change in commit.files[:20]:
        lines.append(f"    {change.status.value:<9} {one_line(change.path)} (+{change.additions}/-{change.deletions})")
    if len(commit.files) > 20:
        lines.append(f"    … and {len(commit.files) - 20} more")
    analysis = record.analysis
    if analysis is None:
        lines.append("analysis: none yet (pending)")
        return "\n".join(lines)
    provenance = analysis.provenance
    lines.append(
        f"analysis: {provenance.status.value} by {one_line(provenance.analyzer)} "
        f"({one_line(provenance.prompt_version) or '-'}, {provenance.created_at.isoformat()})"
    )
    if provenance.error:
        lines.append(f"  error      {plain(provenance.error)}")
    if analysis.ok:
        lines.append(f"  type       {analysis.change_type.value}")
        lines.append(f"  importance {analysis.importance.value if analysis.importance else '-'}")
        for label in analysis.platforms:
            lines.append(f"  platform   {label.id} [{label.source.value}] {one_line(label.reason)}")
        for label in analysis.subsystems:
            lines.append(f"  subsystem  {label.id} [{label.source.value}] {one_line(label.reason)}")
        sections = [
            ("summary", [plain(text) for text in analysis.summary]),
            ("impact", [f"{one_line(item.area)}: {plain(item.note)}" for item in analysis.impact_scope]),
            ("insights", [f"{name}: {plain(text)}" for name, text in analysis.insights.model_dump().items() if text]),
            ("risks", [plain(text) for text in analysis.risks]),
            ("advice", [f"{one_line(item.audience)}: {plain(item.advice)}" for item in analysis.recommendations]),
        ]
        for heading, items in sections:
            if items:
                lines.append(f"{heading}:")
                lines.extend(f"  - {item}" for item in items)
        if analysis.conclusion:
            lines.append(f"conclusion: {plain(analysis.conclusion)}")
    if record.failure is not None:
        failure = record.failure
        lines.append(
            f"last attempt: {failure.status.value} by {one_line(failure.analyzer)}: {plain(failure.error or '')}"
        )
    return "\n".join(lines)
