"""The old offline lexical judge (lexical-v1), kept here as the screen's baseline.

A copy of ``sidecar/judge/lexical.py``'s ``judge_claim`` rules on plain strings, so the
benchmark keeps its baseline when that module goes: the best single sentence by content
word coverage, then numbers and negation compared with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sidecar.checks.prescreen import has_negation, normalise, numbers_in

__all__ = ["lexical_verdict", "overlap"]

_SENTENCE = re.compile(r"[^.!?;\n]+(?:[.!?;]+|$)")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOPWORDS = frozenset(
    "a an and are as at be been by for from has have in into is it its of on or that the "
    "their them then there these they this to was were will with within which who can may "
    "our your you we i".split()
)


def _content_words(text: str) -> set[str]:
    words = set()
    for word in _WORD.findall(normalise(text)):
        if word in _STOPWORDS or word.isdigit():
            continue
        for suffix in ("ies", "es", "s", "ed"):
            if len(word) > len(suffix) + 3 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
        words.add(word)
    return words


def _sentences(text: str) -> list[str]:
    return [m.group(0).strip() for m in _SENTENCE.finditer(text) if m.group(0).strip()]


def overlap(claim: str, passages: Sequence[str]) -> float:
    """Share of the claim's content words found anywhere in the passages."""
    words = _content_words(claim)
    if not words:
        return 0.0
    found: set[str] = set()
    for passage in passages:
        found |= _content_words(passage)
    return len(words & found) / len(words)


def lexical_verdict(
    claim: str, passages: Sequence[str], *, supported_at: float = 0.8, partial_at: float = 0.5
) -> str:
    """lexical-v1's verdict: supported, partial or unsupported (it never abstains)."""
    claim_words = _content_words(claim)
    claim_numbers = numbers_in(claim)
    claim_negated = has_negation(claim)
    best: tuple[float, str] | None = None
    for passage in passages:
        for sentence in _sentences(passage):
            words = _content_words(sentence)
            coverage = len(claim_words & words) / len(claim_words) if claim_words else 0.0
            matched = len(claim_numbers & numbers_in(sentence))
            rank = coverage + 0.01 * matched
            if best is None or rank > best[0]:
                best = (rank, sentence)
    if best is None:
        return "unsupported"
    sentence = best[1]
    words = _content_words(sentence)
    coverage = len(claim_words & words) / len(claim_words) if claim_words else 0.0
    sentence_numbers = numbers_in(sentence)
    missing = claim_numbers - sentence_numbers
    if claim_negated != has_negation(sentence) and coverage >= partial_at:
        return "unsupported"
    if missing and sentence_numbers - claim_numbers:
        return "unsupported"
    if coverage >= supported_at and not missing:
        return "supported"
    if coverage >= partial_at:
        return "partial"
    return "unsupported"
