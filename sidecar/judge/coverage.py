"""Whether a claim's evidence quote carries the whole claim.

An LLM may quote a real sentence that establishes part of a claim, or none of it, and call
the whole of it supported: "Refunds are accepted within 30 days" for "Pro customers get
refunds within 30 days", or, told to by a passage, "The Basic plan is our most popular
choice" for "The Basic plan costs 9 EUR a month". Two checks stand between such a quote
and a verdict on a claim of importance ``judge.quote_coverage_min_importance`` or more
(3 by default):

- Structural (:func:`missing_carriers`): the quote itself must carry every *carrier* of the
  claim, read as the screen reads text (:mod:`sidecar.judge._screen_text`): its numbers,
  dates and quantities by dimension and value ("9 EUR" and "€9", "two weeks" and "14 days"),
  its months and weekdays, a negation when it negates, and its named entities (a capitalised
  word inside a sentence, a word written with inner or all capitals, a capitalised first
  word the English lexicon does not know), compared as lemmas whatever their case. A
  "supported" or "partial" whose quote misses one is not taken, whatever the screen said.
- The screen's view (:func:`quote_gap`): for a "supported", the screen runs on the claim
  against the quote's sentence (the quote widened to the sentences it sits in,
  :func:`quote_context`); when it finds part of the claim absent there (a partial) or in
  conflict with it, the verdict is not taken. When it is unsure it says nothing.

A verdict not taken leaves the claim ``unverified`` (``quote_incomplete``): counted, routed
to review, never scored. The checks only ever withhold a verdict: they never make a claim
unsupported or critical.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lemminflect import getAllLemmas

from sidecar.judge import _lexicon as lx
from sidecar.judge._screen_text import prepare
from sidecar.judge.packet import Passage, unmark

__all__ = ["claim_carriers", "missing_carriers", "quote_context", "quote_gap"]

_SPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f](?=\s|$)")
_LOOSE_DIMS = frozenset({"", "year", "day_of_month"})
"""Dimensions a number may be read with or without in a short quote ("2019" a year in one
text, a bare number in another): such numbers are compared by value alone."""
_CALENDAR = lx.MONTHS | lx.WEEKDAYS


def _plain(text: str) -> str:
    return _SPACE.sub(" ", unmark(text)).strip()


def _named(word: str, *, first: bool) -> bool:
    """Whether ``word`` (as written) names something: capitalised inside a sentence,
    written with inner or all capitals, or a capitalised first word the lexicon lacks."""
    if not word[:1].isupper():
        return False
    if len(word) > 1 and any(char.isupper() for char in word[1:]):
        return True  # EUR, iPhone-like inner capitals, McDonald
    if not first:
        return True
    # A first word is capitalised anyway: it names something when the English lexicon does
    # not know it (in another script nothing tells, and it is left out).
    return word.isascii() and not getAllLemmas(word.lower())


def claim_carriers(text: str) -> frozenset[str]:
    """What a quote must carry to carry ``text``: ``#value`` or ``dim=value`` for each
    number and quantity, and the key of each month, weekday and named entity."""
    plain = _plain(text)
    prepared = prepare(plain)
    carriers = {_quantity_key(q.dim, q.value) for q in prepared.quantities}
    last_sent = -1
    for token in prepared.tokens:
        first = token.sent != last_sent
        last_sent = token.sent
        if token.kind == "q":
            continue
        if token.kind == "n":
            carriers.add(_NEGATION)
            continue
        written = plain[token.start : token.end]
        if token.key in _CALENDAR or (
            token.kind in ("w", "s")
            and token.key not in lx.STOPWORDS
            and _named(written, first=first)
        ):
            carriers.add(token.key)
    return frozenset(carriers)


_NEGATION = "NOT"
"""The carrier of a claim that negates: a quote that negates nothing does not carry it."""


def _quantity_key(dim: str, value: float) -> str:
    return f"#{value:g}" if dim in _LOOSE_DIMS else f"{dim}={value:g}"


def _carried(text: str) -> frozenset[str]:
    """Every key ``text`` offers a carrier: its quantities both ways and all its tokens."""
    prepared = prepare(_plain(text))
    keys = {token.key for token in prepared.tokens}
    if any(token.kind == "n" for token in prepared.tokens):
        keys.add(_NEGATION)
    for q in prepared.quantities:
        keys.add(_quantity_key(q.dim, q.value))
        keys.add(f"#{q.value:g}")  # a bare or year-like number in the claim
    return frozenset(keys)


def missing_carriers(claim: str, quote: str) -> tuple[str, ...]:
    """The carriers of ``claim`` that ``quote`` does not carry, sorted (empty when it
    carries them all)."""
    wanted = claim_carriers(claim)
    if not wanted:
        return ()
    return tuple(sorted(wanted - _carried(quote)))


def quote_context(quote: str, passages: Sequence[Passage]) -> str:
    """The sentence or sentences of a cited passage the quote lies in (the quote itself when
    it is found in none, whitespace and case aside)."""
    needle = _plain(quote).lower()
    if not needle:
        return ""
    for passage in passages:
        text = _plain(passage.text)
        at = text.lower().find(needle)
        if at < 0:
            continue
        ends = [m.end() for m in _SENTENCE_END.finditer(text)]
        start = max((end for end in ends if end <= at), default=0)
        stop = min((end for end in ends if end >= at + len(needle)), default=len(text))
        return text[start:stop].strip()
    return _plain(quote)


def quote_gap(verdict: str | None, reason: str) -> str | None:
    """Why the screen's view of the claim against its quote's sentence withholds an LLM
    "supported" (``verdict`` the screen's, on that sentence), or None when it does not."""
    if verdict == "partial":
        return "part of the claim is not in the quoted sentence"
    if verdict == "unsupported":
        return f"the quoted sentence conflicts with the claim ({reason.partition(':')[0]})"
    return None
