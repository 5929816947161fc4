"""Why a commit carries a label, worded in the page's language.

The taxonomy rules store their reasons as fixed English phrases (``tag [cpu]``, ``path
vllm/x.py``, ``word “moe” in title``, ``repository owner/name`` for a repository's own
platforms), joined by ``; ``, with `` (+N)`` when more matched; they are read back here and
worded from the i18n table. An LLM's reason is its own text and is shown as written; a phrase
of an unknown shape is shown as it is, escaped.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markupsafe import Markup

from commit_digest.models import Label, LabelSource
from commit_digest.site.rendering.escape import html_text
from commit_digest.site.rendering.i18n import Texts

_MORE = re.compile(r"\s*\(\+(\d+)\)\s*$")
_TAG = re.compile(r"^tag (\[.+\])$")
_PATH = re.compile(r"^path (.+)$")
_REPOSITORY = re.compile(r"^repository (\S+/\S+)$")
_WORD = re.compile(r"^word “(.+)” in (\w+)$")
_FIELDS = frozenset({"title", "message"})


# A rule's phrases repeat across commits (the same paths, tags and words): each worded once per
# language, a bounded number of them kept.
@lru_cache(maxsize=2048)
def _phrase(part: str, texts: Texts) -> Markup:
    if match := _TAG.match(part):
        return texts("reason_tag", tag=match.group(1))
    if match := _PATH.match(part):
        return texts("reason_path", path=Markup("<code>%s</code>") % match.group(1))
    if match := _REPOSITORY.match(part):
        return texts("reason_repository", repository=match.group(1))
    if (match := _WORD.match(part)) and match.group(2) in _FIELDS:
        return texts("reason_word", word=match.group(1), field=texts(f"reason_field_{match.group(2)}"))
    return html_text(part)


def reason_html(label: Label, texts: Texts) -> Markup:
    """The label's reason as HTML in the language of ``texts`` (empty when it has none)."""
    reason = label.reason.strip()
    if not reason:
        return Markup("")
    if label.source is not LabelSource.RULE:
        return texts("reason_llm", reason=reason) if label.source is LabelSource.LLM else html_text(reason)
    more = _MORE.search(reason)
    if more:
        reason = reason[: more.start()]
    worded = texts("semicolon").join(_phrase(part.strip(), texts) for part in reason.split(";") if part.strip())
    if more:
        worded += Markup(" ") + texts("reason_more", count=int(more.group(1)))
    return worded
