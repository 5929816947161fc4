"""The languages analyses are worded in: the site's, the first its default.

One helper, so the analysis and translation code reads the site's languages in one way
whichever shape the settings give them (``languages: [zh, en]``, or ``language: zh`` alone).
"""

from __future__ import annotations

from commit_digest.models import LanguageCode
from commit_digest.settings import DigestSettings


def analysis_languages(settings: DigestSettings) -> tuple[LanguageCode, ...]:
    """Every language an analysis should be worded in, the site's default first."""
    languages = getattr(settings, "languages", None)
    if languages:
        return tuple(languages)
    return (settings.language,)
