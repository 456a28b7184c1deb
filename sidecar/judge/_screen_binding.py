"""What the screen's words may be bound to: when finding every word of a claim in the cited
text still does not mean the text says it.

- The matched sentence is a question ("Does the plan include support?"): it asserts
  nothing, and its answer may be "No".
- The matched text reports the statement as someone's claim or mistake ("critics falsely
  alleged that ...", "a common myth is that ..."): it does not assert it either.
- The claim refers by a personal pronoun or a bare definite description ("He founded it",
  "The company was founded in 1998") to someone or something it never names, and the
  matched text names several: the screen cannot tell that the text's "he" is the one the
  claim means.

Each is a reason to abstain, never a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sidecar.judge._screen_text import Prepared, Token

__all__ = ["reported_or_asked", "several_named", "unnamed_referent"]

_REPORTED = frozenset(
    {
        "allege",
        "allegedly",
        "falsely",
        "wrongly",
        "mistakenly",
        "erroneously",
        "incorrectly",
        "myth",
        "misconception",
        "rumor",
        "rumour",
        "supposedly",
        "purportedly",
        "hoax",
        "debunk",
        "misinformation",
    }
)
"""Words that mark a statement as someone's claim or a mistake, not the text's own."""
_SAYING = frozenset({"claim", "say", "believe", "think", "argue", "insist", "suggest"})
"""Verbs of saying that report a statement when "that" or a colon follows them."""


def reported_or_asked(
    units: frozenset[str], span: Sequence[tuple[int, Token]], passage: Prepared
) -> str:
    """Why the matched ``span`` of ``passage`` does not assert a clause with content
    ``units``, or "" when it does."""
    if not span:
        return ""
    text = passage.text
    for sent in sorted({token.sent for _, token in span}):
        if sent < len(passage.sentences):
            start, end = passage.sentences[sent]
            if text[start:end].rstrip().endswith("?"):
                return "abstained: the cited text asks a question, it does not assert"
    keys = [token.key for _, token in span]
    for key, following in zip(keys, [*keys[1:], ""], strict=True):
        if key in _REPORTED and key not in units:
            return "abstained: the cited text reports the statement as a claim or a mistake"
        if key in _SAYING and following == "that" and key not in units:
            return "abstained: the cited text reports what someone says"
    return ""


_PRONOUN = re.compile(r"\b(?:he|she|him|his|her|hers|they|them|their|theirs)\b", re.IGNORECASE)
_DEFINITE_START = re.compile(
    r"^\s*(?:the\s+(?:company|firm|group|organi[sz]ation|band|team|man|woman|author|"
    r"player|singer|actor|actress|film|book|album|show|series)|it|its|this|these)\b",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w'-]*")


def unnamed_referent(claim: str) -> str:
    """Why the claim refers to someone or something it never names (a personal pronoun with
    no capitalised name before it, or a bare "the company", "it" opening it), or ""."""
    if _DEFINITE_START.match(claim):
        return "abstained: the claim refers to something it does not name"
    pronoun = _PRONOUN.search(claim)
    if pronoun is None:
        return ""
    if pronoun.start() == 0 or not _NAME.search(claim, 0, pronoun.start()):
        if not claim[: pronoun.start()].strip()[:1].isupper() or pronoun.start() == 0:
            return "abstained: the claim refers by a pronoun to someone it does not name"
        first = claim.split(None, 1)[0]
        if first.lower() in ("the", "a", "an", "in", "on", "at", "after", "before"):
            return "abstained: the claim refers by a pronoun to someone it does not name"
    return ""


_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z][\w'-]*")


def several_named(span: Sequence[tuple[int, Token]], passage: Prepared) -> bool:
    """Whether the sentences of the matched ``span`` name two or more different things
    (capitalised words inside a sentence), so an unnamed referent may be any of them."""
    if not span:
        return False
    text = passage.text
    names: set[str] = set()
    for sent in sorted({token.sent for _, token in span}):
        if sent < len(passage.sentences):
            start, end = passage.sentences[sent]
            names.update(m.group() for m in _CAPITALISED.finditer(text[start:end]))
    return len(names) >= 2
