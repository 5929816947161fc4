"""One stored record as plain text for a terminal (`commit-digest show`)."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

from commit_digest.models import CommitRecord

# Commit text is untrusted: escape sequences must not reach the terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(text: str) -> str:
    return _CONTROL.sub("\N{REPLACEMENT CHARACTER}", text)


def format_record(record: CommitRecord, zone: ZoneInfo) -> str:
    commit = record.commit
    lines = [
        plain(commit.title),
        f"  sha        {commit.sha}",
        f"  author     {plain(commit.author_name)}"
        + (f" (@{plain(commit.author_login)})" if commit.author_login else ""),
        f"  landed     {commit.committed_at.astimezone(zone).isoformat()} (day {commit.day(zone)})",
        f"  commit     {commit.web_url}",
    ]
    if commit.pr_url:
        lines.append(f"  pull       {commit.pr_url}")
    lines.append(f"  files      {len(commit.files)} (+{commit.additions}/-{commit.deletions})")
    for change in commit.files[:20]:
        lines.append(f"    {change.status.value:<9} {plain(change.path)} (+{change.additions}/-{change.deletions})")
    if len(commit.files) > 20:
        lines.append(f"    … and {len(commit.files) - 20} more")
    analysis = record.analysis
    if analysis is None:
        lines.append("analysis: none yet (pending)")
        return "\n".join(lines)
    provenance = analysis.provenance
    lines.append(
        f"analysis: {provenance.status.value} by {provenance.analyzer} "
        f"({provenance.prompt_version or '-'}, {provenance.created_at.isoformat()})"
    )
    if provenance.error:
        lines.append(f"  error      {plain(provenance.error)}")
    if analysis.ok:
        lines.append(f"  type       {analysis.change_type.value}")
        lines.append(f"  importance {analysis.importance.value if analysis.importance else '-'}")
        for label in analysis.platforms:
            lines.append(f"  platform   {label.id} [{label.source.value}] {plain(label.reason)}")
        for label in analysis.subsystems:
            lines.append(f"  subsystem  {label.id} [{label.source.value}] {plain(label.reason)}")
        sections = [
            ("summary", list(analysis.summary)),
            ("impact", [f"{item.area}: {item.note}" for item in analysis.impact_scope]),
            ("insights", [f"{name}: {text}" for name, text in analysis.insights.model_dump().items() if text]),
            ("risks", list(analysis.risks)),
            ("advice", [f"{item.audience}: {item.advice}" for item in analysis.recommendations]),
        ]
        for heading, items in sections:
            if items:
                lines.append(f"{heading}:")
                lines.extend(f"  - {plain(item)}" for item in items)
        if analysis.conclusion:
            lines.append(f"conclusion: {plain(analysis.conclusion)}")
    if record.failure is not None:
        failure = record.failure
        lines.append(f"last attempt: {failure.status.value} by {failure.analyzer}: {plain(failure.error or '')}")
    return "\n".join(lines)
