"""What a reader reads on a built site, and the slips in it that no person would write: a noun in
the wrong number after its count ("1 files", "3 commit"), an internal value ("llm:gpt-4o-mini",
"offline-2", a legacy report's file name), a bracket inside a bracket ("（CUDA（NVIDIA））").

Used by ``test_reader_copy`` on both demo sites, and runnable on any built site to count the
slips before and after a change: ``python -m tests.site.reader_copy SITE=STORE ...``.
"""

from __future__ import annotations

import html
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

from commit_digest.store.analysis_store import AnalysisStore
from tests.site.html import visible_text

_SCRIPT_OR_STYLE = re.compile(r"<(script|style|template)\b.*?</\1>", re.S)
_META = re.compile(r'<meta (?:name|property)="(?:description|og:description|og:title)" content="([^"]*)"')
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_CODE = re.compile(r"<(code|pre)\b.*?</\1>", re.S)
_BLOCK = re.compile(
    r"</?(?:p|li|h[1-6]|div|td|th|tr|table|ul|ol|section|article|header|footer|nav|main|aside|summary|details|"
    r"blockquote|dt|dd|dl|figure|figcaption|caption|br|hr|option|label|button|form|svg)\b[^>]*>"
)
_ATOM = "{http://www.w3.org/2005/Atom}"

# The nouns the site counts, singular and plural: a count of one takes the first, any other the second.
NOUNS: tuple[tuple[str, str], ...] = (
    ("commit", "commits"),
    ("file", "files"),
    ("line", "lines"),
    ("day", "days"),
    ("week", "weeks"),
    ("analysis", "analyses"),
    ("platform", "platforms"),
    ("subsystem", "subsystems"),
    ("release", "releases"),
    ("result", "results"),
    ("part", "parts"),
    ("operator change", "operator changes"),
    ("character", "characters"),
    ("token", "tokens"),
    ("record", "records"),
    ("partition", "partitions"),
    ("batch", "batches"),
    ("worker", "workers"),
    ("page", "pages"),
    ("feed", "feeds"),
    ("brief", "briefs"),
    ("narrative", "narratives"),
    ("translation", "translations"),
    ("request", "requests"),
    ("error", "errors"),
)
_SINGULARS = "|".join(sorted((one for one, _ in NOUNS), key=len, reverse=True))
_PLURALS = "|".join(sorted((other for _, other in NOUNS), key=len, reverse=True))
# A count stands alone: not the end of "+30/−1", "3.1", "v1", "2026-01" or "#1". "more" may stand
# between the count and its noun ("and 1 more files").
_ALONE = r"(?<![\w.,/+−\-#:])"
ONE_WITH_PLURAL = re.compile(rf"{_ALONE}1 (?:more )?(?:{_PLURALS})\b")
MANY_WITH_SINGULAR = re.compile(rf"{_ALONE}(?:0|[2-9]|[1-9]\d+) (?:more )?(?:{_SINGULARS})\b(?![-'’])")

# What the store and the code call things, which a reader is never shown.
INTERNAL = re.compile(
    r"offline-\d|\bllm:|\blegacy:|prompt_version|schema_version|\bschema version\b|提示词版本|Prompt version|"
    r"\b\d{3}_[0-9a-f]{16}\.txt\b|分析器：|\bAnalyzer: |(?:模型：|\bModel: )-(?!\w)"
)
# An opening bracket, then another before any closes (either width: "（即 x)" is closed).
NESTED = re.compile(r"[（(][^（）()\n]*[（(]")

KINDS = ("one_with_plural", "many_with_singular", "internal", "nested")
_FINDERS = {
    "one_with_plural": ONE_WITH_PLURAL,
    "many_with_singular": MANY_WITH_SINGULAR,
    "internal": INTERNAL,
    "nested": NESTED,
}


def _blocks(fragment: str) -> str:
    """The visible text of an HTML fragment, one line per block (a paragraph, a list item, a
    cell, a heading), so that no slip is found across two blocks; code is left out, as its
    brackets are the code's."""
    fragment = _CODE.sub(" ", _SCRIPT_OR_STYLE.sub(" ", fragment))
    lines = _BLOCK.sub("\n", fragment).split("\n")
    return "\n".join(text for line in lines if (text := visible_text(line)))


def page_text(page: str) -> str:
    """What a reader of an HTML page reads: its title, its description (a link preview shows it)
    and its body's visible text, without scripts, styles and attribute values."""
    head = [html.unescape(found) for found in _TITLE.findall(page) + _META.findall(page)]
    start = page.find("<body")
    return "\n".join([*head, _blocks(page[start:] if start >= 0 else page)])


def feed_text(feed: str) -> str:
    """What a feed reader shows of an Atom feed: titles, subtitles, summaries, contents (their
    HTML as a reader renders it) and category labels."""
    root = ElementTree.fromstring(feed.encode("utf-8"))
    parts: list[str] = []
    for element in root.iter():
        if element.tag == f"{_ATOM}category":
            parts.append(element.get("label") or "")
        elif element.tag in {f"{_ATOM}{name}" for name in ("title", "subtitle", "summary", "content", "name")}:
            text = element.text or ""
            parts.append(_blocks(text) if element.get("type") == "html" else text.strip())
    return "\n".join(parts)


def site_texts(site: Path) -> Iterator[tuple[str, str]]:
    """Each page and feed of a built site, by its path, with the text a reader reads in it."""
    for path in sorted(site.rglob("*.html")):
        yield str(path.relative_to(site)), page_text(path.read_text(encoding="utf-8"))
    for path in sorted((site / "feeds").rglob("*.xml")):
        yield str(path.relative_to(site)), feed_text(path.read_text(encoding="utf-8"))
    status = site / "status.json"  # the footer's line and the stale-data notice, set by the page's script
    if status.exists():
        document = json.loads(status.read_text(encoding="utf-8"))
        yield "status.json", "\n".join(str(document.get(key, "")) for key in ("text", "notice"))


def authored_text(store_dir: Path) -> str:
    """Every text a person or a model wrote that a site quotes: commits (titles, messages, PR
    descriptions) and the analyses, narratives and briefs a model wrote, spaces folded. Their
    brackets are their authors' (a model's "（O(1)）"): the site's own words are judged, not theirs.
    The offline analyses are the site's own words, so they are left out."""
    texts: list[str] = []
    with AnalysisStore(store_dir) as store:
        for record in store.records():
            texts += _strings(record.commit.model_dump(mode="json"))
            if record.analysis is not None and record.analysis.provenance.analyzer != "offline":
                texts += _strings(record.analysis.model_dump(mode="json"))
        for written in [*store.narratives(), *store.briefs()]:
            texts += _strings(written.model_dump(mode="json"))
    return "\n".join(" ".join(text.split()) for text in texts)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def slips_in(text: str, *, english: bool, authored: str = "") -> dict[str, list[str]]:
    """Each kind of slip found in ``text``, with a little of the text around each; a bracket
    inside a bracket that ``authored`` holds as written is its author's, not a slip."""
    found: dict[str, list[str]] = {}
    for kind, finder in _FINDERS.items():
        if kind in ("one_with_plural", "many_with_singular") and not english:
            continue
        for match in finder.finditer(text):
            if kind == "nested" and " ".join(match.group().split()) in authored:
                continue
            found.setdefault(kind, []).append(text[max(0, match.start() - 30) : match.end() + 20])
    return found


def site_slips(site: Path, *, english: bool, authored: str = "") -> dict[str, dict[str, list[str]]]:
    """Every slip on a built site: kind -> page -> the slips found on it."""
    slips: dict[str, dict[str, list[str]]] = {kind: {} for kind in KINDS}
    for page, text in site_texts(site):
        for kind, found in slips_in(text, english=english, authored=authored).items():
            slips[kind][page] = found
    return slips


def counts(slips: dict[str, dict[str, list[str]]]) -> Counter[str]:
    return Counter({kind: sum(len(found) for found in pages.values()) for kind, pages in slips.items()})


def main(arguments: list[str]) -> None:
    """``SITE[=STORE] ...``: each built site's slips, forgiving what its store's authors wrote."""
    for argument in arguments:
        site, _, store = argument.partition("=")
        root = Path(site)
        english = '<html lang="en"' in (root / "index.html").read_text(encoding="utf-8")
        slips = site_slips(root, english=english, authored=authored_text(Path(store)) if store else "")
        print(site, dict(counts(slips)))
        for kind, pages in slips.items():
            examples = [text.replace("\n", " ⏎ ") for found in pages.values() for text in found]
            for example in Counter(examples).most_common(3):
                print(f"  {kind}: {example[1]}× …{example[0]}…")


if __name__ == "__main__":
    main(sys.argv[1:])
