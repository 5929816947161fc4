"""Untrusted text made inert for each service's markup: it shows as the text it is, never as
formatting, a link or a mention.

Commit titles, author names, analyses (and the taxonomy's names, which a site owner writes) reach
five kinds of markup. Each function here turns plain text into text of one kind that a reader sees
as written:

- Slack's mrkdwn: ``&``, ``<`` and ``>`` as the entities Slack documents (so ``<!channel>``,
  ``<@U123>`` and ``<url|text>`` are only characters); the formatting characters ``* _ ~ ```
  after an invisible word joiner, so none opens bold, italic, strike or code.
- Feishu/Lark's lark_md: HTML entities for ``& < >`` (so ``<at user_id="all">`` is text) and
  numeric character references for every Markdown character.
- DingTalk's, WeCom's and Discord's Markdown: a backslash before each ASCII punctuation character
  Markdown reads as syntax inside a line, ``<`` and ``>`` too (CommonMark lets any be escaped so).
- HTML (e-mail): ``html.escape``.

Everywhere an ``@`` is followed by an invisible word joiner: ``@all``, ``@everyone``, ``@here`` and
``@channel`` then read the same but match no service's mention syntax (Discord's webhooks also say
``allowed_mentions: {parse: []}``; DingTalk's ``isAtAll: false``).
"""

from __future__ import annotations

import html
import re

WORD_JOINER = "\u2060"
# What Markdown reads as syntax inside a line (a line of ours always starts with our own "- ").
_MARKDOWN = re.compile(r"([\\`*_\[\]()<>~|#])")
# The same, and ``:`` (Feishu's emoji shortcodes) and ``$`` (its formulas).
_LARK_SYNTAX = re.compile(r"[\\`*_\[\]()~|#:$]")
_SLACK_FORMATTING = re.compile(r"([*_~`])")


def defuse_mentions(text: str) -> str:
    return text.replace("@", "@" + WORD_JOINER)


def slack_text(text: str) -> str:
    escaped = defuse_mentions(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SLACK_FORMATTING.sub(WORD_JOINER + r"\1", escaped)


def slack_link(url: str, text: str) -> str:
    """A link in mrkdwn: the URL is ours (site pages); ``|`` would end the text's start early."""
    return f"<{url}|{slack_text(text).replace('|', '¦')}>"


def lark_text(text: str) -> str:
    escaped = html.escape(defuse_mentions(text), quote=False)
    return _LARK_SYNTAX.sub(lambda match: f"&#{ord(match.group(0))};", escaped)


def markdown_text(text: str) -> str:
    return _MARKDOWN.sub(r"\\\1", defuse_mentions(text))


def markdown_link(url: str, text: str) -> str:
    """A Markdown link to one of the site's pages (its URL holds no ``(``, ``)`` or space)."""
    return f"[{markdown_text(text)}]({url})"


def html_text(text: str) -> str:
    return html.escape(text, quote=True)
