"""The quality floor's loop rule, applied to a reply as it streams: a model in a loop is stopped at
its third repeat instead of being paid to the output limit (SmolLM2-135M wrote one list item until
4,000 tokens, 391 s on two cores).

The reply is read as JSON text arrives: each string is a list's item or an object's value (or a
key, which is not judged). One item ``LOOP_REPEATS`` times in a list, or one sentence
``LOOP_REPEATS`` times in a text, is the loop the floor refuses once the reply is whole (see
``quality_floor``); here it is seen the moment the third repeat is complete. Text before the
first ``{`` (a plain-text reply's prose) counts as one text. Pure: text in, the first problem out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from commit_digest.analysis.quality_floor import LOOP_REPEATS, loop_key, looped_sentence

# A text still arriving is judged again each time a sentence in it ends, or it has grown by this
# many characters.
_RECHECK_CHARACTERS = 200
_SENTENCE_ENDS = tuple(".!?;。！？；\n")


@dataclass
class _Container:
    is_list: bool
    expecting_key: bool = True
    items: dict[str, int] = field(default_factory=dict)  # a list's string items, by loop key
    count: int = 0  # a list's items so far


class LoopWatch:
    """Feed it a reply's text as it streams; ``problem`` says why it should be stopped, if it should.

    ``longest_text`` (characters, as written in the JSON text) and ``most_items`` are past what any
    valid reply holds: a text or a list that runs past them is refused as the schema would refuse
    it once whole (a model under a grammar with no length in it writes one phrase for ever, with no
    sentence end for the loop rule to see)."""

    def __init__(self, longest_text: int | None = None, most_items: int | None = None) -> None:
        self._longest_text = longest_text
        self._most_items = most_items
        self.problem: str | None = None
        self._stack: list[_Container] = []
        self._string: list[str] | None = None  # the raw characters of the string being read
        self._is_key = False
        self._escaped = False
        self._judged_at = 0
        self._prose: list[str] = []  # text outside any JSON object

    def feed(self, text: str) -> str | None:
        for character in text:
            if self.problem is not None:
                break
            if self._string is not None:
                self._in_string(character)
            else:
                self._outside_string(character)
        if self.problem is None and self._string is not None and not self._is_key:
            self._judge_growing("".join(self._string))
        if self.problem is None and not self._stack and self._prose:
            self._judge_growing("".join(self._prose))
        return self.problem

    def _outside_string(self, character: str) -> None:
        top = self._stack[-1] if self._stack else None
        if top is not None and top.is_list and character in '"{[':
            top.count += 1
            if self._most_items is not None and top.count > self._most_items:
                self.problem = f"a list runs past {self._most_items} items, more than the schema allows"
                return
        if character == '"' and top is not None:
            self._string, self._escaped, self._judged_at = [], False, 0
            self._is_key = not top.is_list and top.expecting_key
        elif character in "{[":
            self._stack.append(_Container(is_list=character == "["))
        elif character in "}]" and top is not None:
            self._stack.pop()
        elif character == "," and top is not None and not top.is_list:
            top.expecting_key = True
        elif character == ":" and top is not None:
            top.expecting_key = False
        elif top is None:
            self._prose.append(character)

    def _in_string(self, character: str) -> None:
        assert self._string is not None
        if self._escaped:
            self._escaped = False
        elif character == "\\":
            self._escaped = True
        elif character == '"':
            self._string_ended("".join(self._string))
            self._string = None
            return
        self._string.append(character)
        if self._longest_text is not None and not self._is_key and len(self._string) > self._longest_text:
            self.problem = f"a text runs past {self._longest_text:,} characters, longer than the schema allows"

    def _string_ended(self, raw: str) -> None:
        if self._is_key:
            return
        text = _decoded(raw)
        top = self._stack[-1]
        if top.is_list and (key := loop_key(text)) is not None:
            top.items[key] = top.items.get(key, 0) + 1
            if top.items[key] >= LOOP_REPEATS:
                self.problem = f"a list repeats one item {LOOP_REPEATS} times: {_shown(text)!r}"
                return
        self._judge(text)

    def _judge_growing(self, raw: str) -> None:
        grown = raw[self._judged_at :]
        if len(grown) >= _RECHECK_CHARACTERS or any(end in grown for end in _SENTENCE_ENDS):
            self._judged_at = len(raw)
            self._judge(_decoded(raw))

    def _judge(self, text: str) -> None:
        sentence = looped_sentence(text)
        if sentence is not None:
            self.problem = f"a text repeats one sentence {LOOP_REPEATS} times: {_shown(sentence)!r}"


def most_items_in(schema: object) -> int | None:
    """The most items any list of a JSON schema (anywhere in a request body) may hold."""
    if isinstance(schema, dict):
        found = [most_items_in(value) for value in schema.values()]
        found.append(schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else None)
    elif isinstance(schema, list):
        found = [most_items_in(value) for value in schema]
    else:
        return None
    return max((count for count in found if count is not None), default=None)


def _decoded(raw: str) -> str:
    """A JSON string's characters as text (a string cut inside an escape is read as it stands)."""
    try:
        return str(json.loads(f'"{raw}"'))
    except ValueError:
        return raw


def _shown(value: str) -> str:
    return value if len(value) <= 40 else value[:40] + "…"
