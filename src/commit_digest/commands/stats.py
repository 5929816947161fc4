"""`stats`: LLM token usage per day and model, with an estimated cost from llm.prices.

Counts the usage stored with every LLM attempt the store still holds: the kept analysis,
the newest failed attempt of each commit, each translation `translate` made (counted in
its model's row, on the day it was made; a wording asked for in the analysis's own request is
in the analysis's usage), and each week narrative `narrate` wrote (counted in its model's row on
the day it was written; left out under --repo, as a narrative spans the site's repositories).
Earlier failed attempts that a later one replaced, failed translations and narratives, and
narratives a rewrite replaced, are not kept, so the figures are a lower bound. Batch API
discounts are not applied (prices are per model, as configured).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any
from zoneinfo import ZoneInfo

from commit_digest.commands.common import add_common_options, open_store, settings_from_args
from commit_digest.models import CommitRecord, Provenance
from commit_digest.settings import ModelPrice
from commit_digest.store.narratives import WeekNarrative


@dataclass
class UsageRow:
    day: date
    model: str
    analyses: int = 0
    translations: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    narratives: int = 0

    def cost(self, price: ModelPrice | None) -> float | None:
        if price is None:
            return None
        cached_price = price.cached_prompt if price.cached_prompt is not None else price.prompt
        uncached = max(self.prompt_tokens - self.cached_tokens, 0)
        return (
            uncached * price.prompt + self.cached_tokens * cached_price + self.completion_tokens * price.completion
        ) / 1e6


def _attempts(record: CommitRecord) -> Iterable[tuple[Provenance, str]]:
    """Every paid attempt the record keeps, each with the column that counts it."""
    if record.analysis is not None:
        yield record.analysis.provenance, "analyses"
        for text in record.analysis.translations.values():
            if text.provenance is not None:
                yield text.provenance, "translations"
    if record.failure is not None:
        yield record.failure, "analyses"


def usage_rows(
    records: Iterable[CommitRecord], zone: ZoneInfo, narratives: Iterable[WeekNarrative] = ()
) -> list[UsageRow]:
    rows: dict[tuple[date, str], UsageRow] = {}
    attempts = (
        *((provenance, kind) for record in records for provenance, kind in _attempts(record)),
        *((narrative.provenance, "narratives") for narrative in narratives),
    )
    for provenance, kind in attempts:
        if not provenance.is_llm or provenance.usage is None:
            continue
        day = provenance.created_at.astimezone(zone).date()
        model = provenance.analyzer.removeprefix("llm:")
        row = rows.setdefault((day, model), UsageRow(day, model))
        setattr(row, kind, getattr(row, kind) + 1)
        row.prompt_tokens += provenance.usage.prompt_tokens
        row.cached_tokens += provenance.usage.cached_tokens
        row.completion_tokens += provenance.usage.completion_tokens
    return [rows[key] for key in sorted(rows)]


def format_table(rows: list[UsageRow], prices: dict[str, ModelPrice]) -> list[str]:
    # The narratives column comes after the tokens: tools that read the first columns keep working.
    header = (
        "day",
        "model",
        "analyses",
        "translations",
        "prompt",
        "cached",
        "completion",
        "narratives",
        "est. cost USD",
    )
    body: list[tuple[str, ...]] = []
    totals: dict[str, Any] = defaultdict(int)
    total_cost = 0.0
    unpriced: set[str] = set()
    for row in rows:
        cost = row.cost(prices.get(row.model))
        if cost is None:
            unpriced.add(row.model)
        else:
            total_cost += cost
        body.append(
            (
                row.day.isoformat(),
                row.model,
                str(row.analyses),
                str(row.translations),
                str(row.prompt_tokens),
                str(row.cached_tokens),
                str(row.completion_tokens),
                str(row.narratives),
                "n/a" if cost is None else f"{cost:.4f}",
            )
        )
        for name in ("analyses", "translations", "prompt_tokens", "cached_tokens", "completion_tokens", "narratives"):
            totals[name] += getattr(row, name)
    body.append(
        (
            "total",
            "",
            str(totals["analyses"]),
            str(totals["translations"]),
            str(totals["prompt_tokens"]),
            str(totals["cached_tokens"]),
            str(totals["completion_tokens"]),
            str(totals["narratives"]),
            f"{total_cost:.4f}" + (" (+ unpriced)" if unpriced else ""),
        )
    )
    widths = [max(len(line[column]) for line in (header, *body)) for column in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in (header, *body)
    ]
    if unpriced:
        lines.append(f"no price configured (llm.prices) for: {', '.join(sorted(unpriced))}")
    return lines


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "stats",
        help="LLM token usage per day and model, with estimated cost",
        description="Totals of the prompt, cached and completion tokens stored with LLM analyses, "
        "translations and week narratives, per day (of the analysis, translation or narrative, site time "
        "zone) and model, priced with llm.prices (USD per million tokens).",
    )
    add_common_options(parser, repository=True)
    parser.set_defaults(handler=run_stats)


def run_stats(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    with open_store(settings) as store:
        if args.repo:
            rows = usage_rows(store.records(args.repo), settings.zone)
        else:
            rows = usage_rows(store.records(), settings.zone, store.narratives())
    if not rows:
        print("no LLM analyses in the store yet")
        return 0
    for line in format_table(rows, settings.llm.prices):
        print(line)
    return 0
