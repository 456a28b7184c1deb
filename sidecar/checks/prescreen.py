"""The lexical pre-screen: numbers and negations in a claim missing from its cited passages.

It only flags; flags raise a trace's judging priority and feed the offline lexical judge.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = ["PassageFacts", "normalise", "numbers_in", "has_negation", "prescreen_flags"]

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|can't|won't|"
    r"isn't|aren't|wasn't|weren't|doesn't|don't|didn't|hasn't|haven't|hadn't|shouldn't|"
    r"mustn't|excluding|except)\b",
    re.IGNORECASE,
)
_SPACE = re.compile(r"\s+")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")


def normalise(text: str) -> str:
    """NFKC, curly quotes and dashes folded, whitespace collapsed, lower case."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_FOLD)
    return _SPACE.sub(" ", text).strip().lower()


_FOLD = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
    "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " ",
})


def numbers_in(text: str) -> set[str]:
    """Numbers as written, with thousands separators removed ('1,000' -> '1000')."""
    out = set()
    for raw in _NUMBER.findall(text):
        value = raw.replace(",", "") if _THOUSANDS.fullmatch(raw) else raw
        if "." in value:
            # 99.0 and 99 state the same number
            value = value.rstrip("0").rstrip(".") or "0"
        out.add(value)
    return out


def has_negation(text: str) -> bool:
    """True when the text contains a negation word."""
    return _NEGATION.search(text) is not None


class PassageFacts:
    """Per-passage facts computed once per trace and shared by every claim citing it."""

    __slots__ = ("numbers", "negated")

    def __init__(self, text: str) -> None:
        self.numbers = numbers_in(text)
        self.negated = has_negation(text)


def prescreen_flags(claim_text: str, passages: Iterable[PassageFacts]) -> list[str]:
    """Flags for one cited claim: ``number_missing`` and/or ``negation_missing``."""
    facts = list(passages)
    flags = []
    claim_numbers = numbers_in(claim_text)
    if claim_numbers:
        available: set[str] = set()
        for fact in facts:
            available |= fact.numbers
        if not claim_numbers <= available:
            flags.append("number_missing")
    if has_negation(claim_text) and not any(fact.negated for fact in facts):
        flags.append("negation_missing")
    return flags
