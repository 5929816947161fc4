"""An analysis with every text clipped, for the rare commit page that would not fit its budget whole.

An analysis within the store's caps can hold some 80 texts of 2,000 characters: half a megabyte
of Chinese. Rather than drop sections, each text keeps its start (to a sentence end where one is
near), so every section, item and label of the analysis is still there, only shorter.
"""

from __future__ import annotations

from commit_digest.meaning.offline import clip_sentence
from commit_digest.models import Analysis, ImpactItem, Recommendation, TechnicalInsights


def _clipped(text: str | None, chars: int) -> str | None:
    return None if text is None else clip_sentence(text, chars)


def clipped_analysis(analysis: Analysis, chars: int) -> Analysis:
    """``analysis`` with each of its texts at most ``chars`` characters; its lists keep every item."""
    insights = analysis.insights
    return analysis.model_copy(
        update={
            "summary": tuple(clip_sentence(text, chars) for text in analysis.summary),
            "impact_scope": tuple(
                ImpactItem.model_construct(area=clip_sentence(item.area, chars), note=clip_sentence(item.note, chars))
                for item in analysis.impact_scope
            ),
            "insights": TechnicalInsights.model_construct(
                **{name: _clipped(getattr(insights, name), chars) for name in TechnicalInsights.model_fields}
            ),
            "risks": tuple(clip_sentence(text, chars) for text in analysis.risks),
            "recommendations": tuple(
                Recommendation.model_construct(
                    audience=clip_sentence(item.audience, chars), advice=clip_sentence(item.advice, chars)
                )
                for item in analysis.recommendations
            ),
            "conclusion": clip_sentence(analysis.conclusion, chars),
        }
    )
