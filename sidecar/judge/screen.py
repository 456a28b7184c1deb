"""The offline screen: a verdict only when it is sure, otherwise none.

It judges one claim against the whole text of the passages the claim cites. ``supported``
only when the claim's content is found in the cited text after normalisation;
``unsupported`` only on a detected conflict in the matched text; otherwise it abstains
(``verdict`` is None) and the claim is reported as not judged, never scored 0.

This first version keeps the lexical rules of the old offline judge but abstains where they
guessed; see docs/architecture.md for what the screen does and does not do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from schemas import VerdictLabel
from sidecar.checks.prescreen import has_negation, normalise, numbers_in

__all__ = ["ScreenVerdict", "screen_claim", "find_support"]


@dataclass(frozen=True, slots=True)
class ScreenVerdict:
    """The screen's conclusion on one claim.

    ``verdict`` None means it abstained. ``reason`` is a short code and explanation (no trace
    text). ``evidence_quote`` is a verbatim span of one cited passage for supported and
    partial, empty otherwise.
    """

    verdict: VerdictLabel | None
    reason: str
    evidence_quote: str = ""


def screen_claim(claim_text: str, passages: Sequence[str]) -> ScreenVerdict:
    """The screen's verdict on ``claim_text`` against its cited ``passages``."""
    if not any(p.strip() for p in passages):
        return ScreenVerdict(None, "abstained: no cited passage text")
    claim = normalise(claim_text)
    for passage in passages:
        if claim and claim in normalise(passage):
            start = normalise(passage).find(claim)
            quote = normalise(passage)[start:start + len(claim)]
            return ScreenVerdict("supported", "claim text found in the cited passage", quote)
    joined = " ".join(passages)
    if has_negation(claim_text) != has_negation(joined) and numbers_in(claim_text) <= numbers_in(
        joined
    ):
        return ScreenVerdict(None, "abstained: negation differs but no aligned conflict")
    return ScreenVerdict(None, "abstained: content not found and no conflict detected")


def find_support(claim_text: str, sources: Sequence[tuple[str, str]]) -> str | None:
    """The ID of the first of ``sources`` (id, text) that the screen says supports the claim."""
    for source_id, text in sources:
        if screen_claim(claim_text, [text]).verdict == "supported":
            return source_id
    return None
