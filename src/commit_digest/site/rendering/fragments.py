"""The small HTML fragments every listing and commit repeats, built in Python.

A Jinja macro call costs tens of microseconds (a new frame, a caller, every output finalized and
escaped again); commit pages, day pages' entries and label months call the same few fragments
thousands of times per build. Each function here prints exactly what its macro printed, and puts
every value in HTML through ``escape.html_fill``/``html_join``, that is through ``html_value`` —
what a template's ``{{ value }}`` goes through: untrusted text (titles, author names, LLM output)
is escaped once, on the same path as in the templates.

``Fragments`` holds one build's (one language's) fragments, with what no page changes made once;
``PageFragments`` those whose links are relative to the page.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.site import paths
from commit_digest.site.rendering.analysis_cut import clipped_analysis
from commit_digest.site.rendering.escape import html_fill, html_fill_each, html_join, html_paragraphs, title_html
from commit_digest.site.rendering.impact_view import change_html, kind_name

if TYPE_CHECKING:
    from commit_digest.meaning.impact.extract import OperatorChange
    from commit_digest.models import Analysis, Label
    from commit_digest.site.model.commit import RepositoryChip, SiteCommit
    from commit_digest.site.model.index import DayStats
    from commit_digest.site.rendering.naming import SiteNaming

# Commits whose analysis sections stay rendered: a day page and its commits' pages are rendered
# together (PageSpec.group keeps them in one batch), so a day's worth is enough; bounded, so
# memory stays flat however large the archive grows.
RECENT_ANALYSES = 512
# Label reasons worded (the rules' phrases repeat: the same paths, tags and words).
RECENT_REASONS = 2048

# Trusted HTML with %s slots, filled by html_fill.
_HEADING = '<h%s id="%s">%s<a class="headerlink" href="#%s">¶</a></h%s>\n'
_BOLD_LINE = "<p><strong>%s</strong></p>\n"
_BADGE = '<span class="digest-badge--%s">%s</span>'
_ITEM = "<li>%s</li>\n"
_NAMED_ITEM = "<li><strong>%s</strong>%s%s</li>\n"
_PARAGRAPH = "<p>%s</p>\n"
_CHIP = '<a href="%s">%s</a>\n'
# Chips of one kind share a wrapper that styles them: no class per chip on pages that show
# thousands of them.
_CHIPS = '<span class="digest-chips digest-chips--%s">%s</span>'
_LABEL_LINK = '<a href="%s">%s</a>%s'
_NOTE = '<div class="admonition warning"><p class="admonition-title">%s</p><p>%s</p></div>\n'
_IMPACT_LINE = (
    '<li data-kind="%s"><span class="digest-impact__kind">%s</span> %s '
    '<span class="digest-impact__path">%s</span></li>\n'
)
_COMMIT_LINE = '<li>%s <a href="%s">%s</a> <small>%s · %s</small></li>\n'
_NOTHING = Markup("")


def clock(item: SiteCommit) -> Markup:
    """When a commit landed, as the site's time of day (HH:MM): formatted by hand, ten times
    faster than strftime, on every line of every listing."""
    moment = item.local_time
    return Markup(f"{moment.hour:02d}:{moment.minute:02d}")


def heading(level: int, anchor: str, text: object) -> Markup:
    """A section heading with its permalink; level 0 is a bold line, so long pages keep a short
    table of contents."""
    if level:
        return html_fill(_HEADING, level, anchor, text, anchor, level)
    return html_fill(_BOLD_LINE, text)


def bullet_list(items: Iterable[object]) -> Markup:
    """Each item (untrusted text) as a bullet (with the list's line end)."""
    return html_fill("<ul>\n%s</ul>\n", html_fill_each(_ITEM, items))


@dataclass(frozen=True)
class Section:
    """One section of an analysis: its anchor, its heading's text and its body (with its line end)."""

    anchor: str
    title: Markup
    body: Markup


def _named_items(rows: Iterable[tuple[object, Markup, object]]) -> Markup:
    """Bullets of a bold name, then a colon and a text (untrusted; both left out when there is none)."""
    return html_fill("<ul>\n%s</ul>\n", html_join(html_fill(_NAMED_ITEM, *row) for row in rows))


def analysis_parts(analysis: Analysis, context: SiteNaming) -> tuple[Section, ...]:
    """The sections an analysis has, in order: the same on its commit page and on its day page."""
    texts = context.texts
    colon = texts("colon")
    sections = [Section("summary", texts("summary"), bullet_list(analysis.summary))]
    if analysis.impact_scope:
        # An area may come without a note: then without the colon too.
        scope = [(item.area, colon if item.note else _NOTHING, item.note) for item in analysis.impact_scope]
        sections.append(Section("impact-scope", texts("impact_scope"), _named_items(scope)))
    insights = context.insight_items(analysis)
    if insights:
        notes = [(name, colon, text) for name, text in insights]
        sections.append(Section("insights", texts("insights"), _named_items(notes)))
    if analysis.risks:
        sections.append(Section("risks", texts("risks"), bullet_list(analysis.risks)))
    if analysis.recommendations:
        advice = [(item.audience, colon, item.advice) for item in analysis.recommendations]
        sections.append(Section("recommendations", texts("recommendations"), _named_items(advice)))
    if analysis.conclusion:
        paragraphs = html_fill_each(_PARAGRAPH, html_paragraphs(analysis.conclusion))
        sections.append(Section("conclusion", texts("conclusion"), paragraphs))
    return tuple(sections)


class _Recent:
    """A mapping that keeps only its ``size`` most recently used entries."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        if key in self._entries:
            self._entries.move_to_end(key)
            return self._entries[key]
        value = self._entries[key] = make()
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return value


class Fragments:
    """The fragments of one build, in its language: what no page changes is made once."""

    def __init__(self, context: SiteNaming) -> None:
        self.context = context
        self._badges: dict[str, Markup] = {}
        self._names: dict[tuple[str, str], Markup] = {}
        self._analyses = _Recent(RECENT_ANALYSES)
        self._headings: dict[tuple[int, str, Markup], Markup] = {}
        self._reasons = _Recent(RECENT_REASONS)

    def badge(self, group: str) -> Markup:
        """An importance as a word on its colour (never a colour alone)."""
        if group not in self._badges:
            key = "importance_" + (group if group != "unanalysed" else "none")
            self._badges[group] = html_fill(_BADGE, group, self.context.texts(key))
        return self._badges[group]

    def label_name(self, kind: str, label_id: str) -> Markup:
        """A label's name (as ``SiteNaming.label_name``); labels are few, their names asked for often."""
        key = (kind, label_id)
        if key not in self._names:
            self._names[key] = self.context.label_name(kind, label_id)
        return self._names[key]

    def reason_note(self, label: Label) -> Markup:
        """Why a commit carries a label, as its label link's note ("" when no reason is stored).
        Reasons repeat across commits (the same rule phrases, the same LLM reason for a commit's
        labels): a bounded number of them kept, worded."""
        if not label.reason:
            return _NOTHING
        texts, reason = self.context.texts, self.context.label_reason
        return self._reasons.get((label.source, label.reason), lambda: texts("label_reason", reason=reason(label)))

    def stats_line(self, stats: DayStats) -> Markup:
        """A day's (or a release's) commits: the total, then each importance with its count (the
        unanalysed only when there are some)."""
        counts = (("high", stats.high), ("medium", stats.medium), ("low", stats.low), ("unanalysed", stats.unanalysed))
        groups = html_join(
            html_fill(" · %s %s", self.badge(group), count) for group, count in counts if count or group != "unanalysed"
        )
        total = self.context.texts("stats_total", total=stats.total)
        return html_fill('<p class="digest-stats">%s%s</p>', total, groups)

    def _note(self, text: Markup) -> Markup:
        """A warning box with ``text`` (trusted wording)."""
        return html_fill(_NOTE, self.context.texts("note_title"), text)

    def status_note(self, item: SiteCommit) -> Markup:
        """Why a commit shows no analysis, or that a newer attempt at one failed; "" when neither.
        Never the attempt's error: it names the LLM endpoint (a private gateway's address, the
        server's own file paths); the store (`show`) and the logs keep it. Nor the analyzer's id:
        a model is named as a reader knows it."""
        context = self.context
        texts, analysis, notes = context.texts, item.analysis, []
        if analysis is None:
            notes.append(self._note(texts("not_analysed_note")))
        elif not analysis.ok:
            notes.append(self._note(texts("not_ok_note", status=context.status_name(analysis.provenance.status))))
        failure = item.record.failure
        if failure:
            offline = analysis is not None and analysis.provenance.analyzer == OfflineAnalyzer.name
            shown = texts("failure_shown_offline" if offline else "failure_shown_earlier")
            time = context.format_time(failure.created_at)
            if failure.model is None:
                worded = texts("failure_note", time=time, shown=shown)
            else:
                worded = texts("failure_note_model", model=failure.model, time=time, shown=shown)
            notes.append(self._note(worded))
        return html_join(notes)

    def impact_list(self, changes: Iterable[OperatorChange]) -> Markup:
        """A commit's operator changes, one sentence each, with the file it is in."""
        texts = self.context.texts
        lines = (
            html_fill(
                _IMPACT_LINE,
                change.kind.value,
                kind_name(change.kind.value, texts),
                change_html(change, texts),
                texts("impact_in_file", path=change.path),
            )
            for change in changes
        )
        return html_fill('<ul class="digest-impact">\n%s</ul>', html_join(lines))

    def analysis_sections(self, item: SiteCommit, level: int, *, after_gist: bool = False) -> Markup:
        """A commit's analysis, its headings at ``level`` (0: bold lines): the sections are
        rendered once for the commit's page and its day's entry. ``after_gist``: without the
        first summary bullet, which the day's entry shows just above."""
        analysis = item.analysis
        assert analysis is not None
        parts = self._analyses.get((item.repository, item.sha), lambda: analysis_parts(analysis, self.context))
        if after_gist and parts and parts[0].anchor == "summary":
            rest = analysis.summary[1:]
            parts = ((dataclasses.replace(parts[0], body=bullet_list(rest)),) if rest else ()) + parts[1:]
        return self._sections(parts, level)

    def clipped_analysis_sections(self, item: SiteCommit, level: int, chars: int) -> Markup:
        """``analysis_sections`` with each text at most ``chars`` characters (a commit page over its budget)."""
        analysis = item.analysis
        assert analysis is not None
        return self._sections(analysis_parts(clipped_analysis(analysis, chars), self.context), level)

    def _sections(self, parts: tuple[Section, ...], level: int) -> Markup:
        return html_join(piece for part in parts for piece in (self._section_heading(level, part), part.body))

    def _section_heading(self, level: int, section: Section) -> Markup:
        """An analysis section's heading and the blank line after it: the same for every commit."""
        key = (level, section.anchor, section.title)
        if key not in self._headings:
            self._headings[key] = html_fill("%s\n", heading(level, section.anchor, section.title))
        return self._headings[key]


class PageFragments:
    """The fragments that link other pages: their URLs are relative to the page."""

    def __init__(self, fragments: Fragments, src_uri: str, directory_urls: bool) -> None:
        self.fragments = fragments
        self.src_uri = src_uri
        self.directory_urls = directory_urls
        # A page links the same few pages many times (a day's commits share labels): each once.
        self._links: dict[str, Markup] = {}
        self._chips: dict[tuple[str, str], Markup] = {}

    def link(self, target: str) -> Markup:
        """The relative URL of the page at ``target`` (a source path) from this page."""
        if target not in self._links:
            self._links[target] = paths.href(self.src_uri, target, self.directory_urls)
        return self._links[target]

    def chips(self, kind: str, labels: Sequence[Label] | Sequence[RepositoryChip]) -> Markup:
        """Each label as a chip linking its page."""
        if not labels:
            return _NOTHING
        return html_fill(_CHIPS, kind, html_join(self._chip(kind, label.id) for label in labels))

    def _chip(self, kind: str, label_id: str) -> Markup:
        # A day page shows a few labels' chips on most of its entries: each made once.
        key = (kind, label_id)
        if key not in self._chips:
            target, name = paths.label_page(kind, label_id), self.fragments.label_name(kind, label_id)
            self._chips[key] = html_fill(_CHIP, self.link(target), name)
        return self._chips[key]

    def label_links(self, kind: str, labels: Sequence[Label]) -> Markup:
        """The labels as links, each with why the commit carries it; "none" when there are none."""
        context = self.fragments.context
        texts = context.texts
        if not labels:
            return texts("none")
        links = (
            html_fill(
                _LABEL_LINK,
                self.link(paths.label_page(kind, label.id)),
                self.fragments.label_name(kind, label.id),
                self.fragments.reason_note(label),
            )
            for label in labels
        )
        return html_join(links, texts("semicolon"))

    def commit_rows(self, commits: Iterable[SiteCommit]) -> Markup:
        """A listing's lines (label and month pages): badge, title, then type and time."""
        context = self.fragments.context
        lines = (
            html_fill(
                _COMMIT_LINE,
                self.fragments.badge(item.group),
                self.link(context.commit_page(item)),
                title_html(item.title),
                context.type_name(item),
                clock(item),
            )
            for item in commits
        )
        return html_fill('<ul class="digest-lines">\n%s</ul>', html_join(lines))
