"""Whether a critical claim's evidence quote covers the whole claim.

An LLM may quote a sentence that establishes part of a critical claim and call the whole of
it supported ("Refunds are accepted within 30 days" for "Pro customers get refunds within
30 days"). For an importance-3 claim the LLM called supported, the offline screen runs on
the claim against the quote's sentence (the quote widened to the sentences it sits in):
when the screen finds part of the claim absent there (a partial) or in conflict with it,
the verdict is not taken, and the claim is ``unverified`` (``quote_incomplete``). When the
screen is unsure it says nothing and the verdict stands: this check only ever withholds a
"supported", it never makes a claim unsupported or critical.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sidecar.judge.packet import Passage, unmark

__all__ = ["quote_context", "quote_gap"]

_SPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f](?=\s|$)")


def _plain(text: str) -> str:
    return _SPACE.sub(" ", unmark(text)).strip()


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
