"""How the site names things in its language: labels, change types, statuses, times, counts.

The first layer of the rendering helpers, read by the HTML fragments, the meaning helpers and the
page templates alike (``context.SiteContext`` adds what pages link and render). Every method
returns Markup built from trusted parts or escaped text.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from markupsafe import Markup

from commit_digest.meaning.label_rules import LabelRule
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import AnalysisStatus, Label, Provenance
from commit_digest.site import paths
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.index import Day, SiteIndex, SiteRepository
from commit_digest.site.model.weeks import LabelWeek
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.escape import html_text
from commit_digest.site.rendering.i18n import Texts
from commit_digest.site.rendering.reasons import reason_html

LABEL_KINDS = ("platforms", "subsystems")


class SiteNaming:
    """The build's words and names, for one language."""

    def __init__(self, index: SiteIndex, taxonomy: Taxonomy, options: SiteOptions) -> None:
        self.index = index
        self.taxonomy = taxonomy
        self.options = options
        self.texts = Texts(options.language)
        self.zone = ZoneInfo(options.timezone)
        self._zone_name = html_text(options.timezone)  # shown after every time on the site

    def commit_page(self, item: SiteCommit) -> str:
        return paths.commit_page(item.sha, item.repository if self.index.several_repositories else None)

    @property
    def label_kinds(self) -> tuple[str, ...]:
        """Platforms and subsystems; and repositories, on a site of several."""
        return (*LABEL_KINDS, "repositories") if self.index.several_repositories else LABEL_KINDS

    def _rule(self, kind: str, label_id: str) -> LabelRule | None:
        return self.taxonomy.platform(label_id) if kind == "platforms" else self.taxonomy.subsystem(label_id)

    def _repository(self, name: str) -> SiteRepository | None:
        return next((item for item in self.index.repositories if item.name == name), None)

    def label_name(self, kind: str, label_id: str) -> Markup:
        if kind == "repositories":
            repository = self._repository(label_id)
            return html_text(repository.title if repository else label_id)
        rule = self._rule(kind, label_id)
        return html_text(rule.name.in_language(self.options.language) if rule else label_id)

    def label_description(self, kind: str, label_id: str) -> Markup:
        if kind == "repositories":
            return html_text(label_id)
        rule = self._rule(kind, label_id)
        if rule is None:
            return self.texts("unknown_label")
        return html_text(rule.description.in_language(self.options.language)) if rule.description else Markup("")

    def label_counts(self, day: Day, kind: str) -> list[tuple[str, int]]:
        if kind == "repositories":
            order = [item.name for item in self.index.repositories]
        else:
            order = [rule.id for rule in (self.taxonomy.platforms if kind == "platforms" else self.taxonomy.subsystems)]
        return day.label_counts(kind, order)

    def change_text(self, change: int) -> Markup:
        """ "▲ 6", "▼ 2" or "no change": never a colour alone."""
        if change > 0:
            return self.texts("change_up", count=change)
        if change < 0:
            return self.texts("change_down", count=-change)
        return self.texts("change_none")

    def related_text(self, label: LabelWeek) -> Markup:
        kind = label.related_kind or "subsystems"
        parts = [
            self.texts("week_related", name=self.label_name(kind, other), count=count) for other, count in label.related
        ]
        return self.texts("list_separator").join(parts)

    def label_reason(self, label: Label) -> Markup:
        return reason_html(label, self.texts)

    def type_name(self, item: SiteCommit) -> Markup:
        return self.texts.change_type(item.change_type) if item.change_type else Markup("-")

    def status_name(self, status: AnalysisStatus | str) -> Markup:
        return self.texts(f"status_{AnalysisStatus(status).value}")

    def analysed_by(self, provenance: Provenance) -> Markup:
        """Who wrote an analysis, as a reader understands it: the offline rules, a model by its
        name, or an old daily report by its day. Never the analyzer's id or a report's file
        name: those are the store's (`commit-digest show` gives them)."""
        if provenance.model is not None:
            return self.texts("analysed_by_model", model=provenance.model)
        if provenance.is_legacy:
            # The importer dates a report's analyses at the report's midnight in the site's zone.
            day = provenance.created_at.astimezone(self.zone).date().isoformat()
            return self.texts("analysed_by_legacy", day=day)
        return self.texts("analysed_by_offline")

    def format_time(self, moment: datetime) -> Markup:
        local = moment.astimezone(self.zone)
        return Markup(f"{local.strftime('%Y-%m-%d %H:%M:%S')} ({self._zone_name})")

    def insight_items(self, analysis: Any) -> list[tuple[Markup, str]]:
        insights = analysis.insights
        return [
            (self.texts(f"insight_{name}"), getattr(insights, name))
            for name in ("architecture", "performance", "security", "maintainability", "compatibility")
            if getattr(insights, name)
        ]
