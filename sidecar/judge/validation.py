"""Checks a judge reply against its request before any verdict is scored.

- Exactly one verdict per requested claim_id (or, from the offline screen, one abstention):
  a missing, extra or duplicate ID makes the whole reply a judge error of kind
  ``id_mismatch`` (never silently scored).
- For supported and partial, the evidence quote must occur in one of that claim's cited
  passages after whitespace and Unicode normalisation, outside every span flagged as text
  addressed to a model (:mod:`sidecar.checks.injection`); otherwise the verdict becomes
  unsupported with ``quote_not_found`` or ``quote_in_injection``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from typing import Literal

from schemas import JudgeResult, JudgeVerdict, ResolvedBy
from sidecar.checks.injection import outside_injections
from sidecar.checks.prescreen import normalise
from sidecar.errors import JudgeError
from sidecar.judge.packet import ClaimRequest, JudgePacket, Passage, unmark
from sidecar.scoring import ClaimVerdict

__all__ = [
    "PassageIndex", "QuoteStatus", "check_verdict", "quote_found", "quote_status",
    "validate_reply",
]

_QUOTE_EDGES = " \t\n\"'`\u201c\u201d\u2018\u2019"

QuoteStatus = Literal["found", "not_found", "in_injection"]


class PassageIndex:
    """Each cited passage normalised once, whole and outside its flagged spans, however many
    claims of a packet cite it (passage IDs are unique within a trace)."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, tuple[str, ...]]] = {}

    def get(self, passage: Passage) -> tuple[str, tuple[str, ...]]:
        """The passage normalised whole, and each part outside flagged spans normalised."""
        found = self._seen.get(passage.passage_id)
        if found is None:
            text = unmark(passage.text)
            parts = tuple(normalise(part) for part in outside_injections(text))
            found = self._seen[passage.passage_id] = (normalise(text), parts)
        return found


def quote_status(
    quote: str, claim: ClaimRequest, index: PassageIndex | None = None
) -> QuoteStatus:
    """Where a quote stands against the claim's cited passages: found outside every flagged
    span, found only inside a flagged span, or not found (an empty quote is not found)."""
    needle = normalise(unmark(quote).strip(_QUOTE_EDGES))
    if not needle:
        return "not_found"
    index = index if index is not None else PassageIndex()
    inside = False
    for passage in claim.passages:
        whole, outside = index.get(passage)
        if needle not in whole:
            continue
        if any(needle in part for part in outside):
            return "found"
        inside = True
    return "in_injection" if inside else "not_found"


def quote_found(quote: str, claim: ClaimRequest) -> bool:
    """Whether a non-empty ``quote`` occurs in one of the claim's cited passages, outside
    every span flagged as addressed to a model."""
    return quote_status(quote, claim) == "found"


def check_verdict(
    claim: ClaimRequest,
    verdict: JudgeVerdict,
    *,
    resolved_by: ResolvedBy = "llm",
    index: PassageIndex | None = None,
) -> ClaimVerdict:
    """One verdict after the quote check (``index`` shares passage work across claims)."""
    if verdict.verdict in ("supported", "partial"):
        status = quote_status(verdict.evidence_quote, claim, index)
        if status != "found":
            where = ("only inside text addressed to a model" if status == "in_injection"
                     else "not found in the cited passages")
            return ClaimVerdict(
                verdict="unsupported",
                reason=f"evidence quote {where} (judge said {verdict.verdict}): "
                       f"{verdict.reason}",
                evidence_quote=verdict.evidence_quote,
                quote_not_found=status == "not_found",
                quote_in_injection=status == "in_injection",
                resolved_by=resolved_by,
            )
    return ClaimVerdict(
        verdict=verdict.verdict,
        reason=verdict.reason,
        evidence_quote=verdict.evidence_quote,
        resolved_by=resolved_by,
    )


def validate_reply(
    packet: JudgePacket,
    result: JudgeResult,
    *,
    abstained: Collection[str] = (),
    resolved_by: ResolvedBy = "llm",
) -> dict[str, ClaimVerdict]:
    """Checked verdicts by claim_id; ``abstained`` are the claim IDs the backend declined to
    judge (only the offline screen does). Raises :class:`JudgeError` (kind ``id_mismatch``)."""
    requested = set(packet.claim_ids)
    counts = Counter(v.claim_id for v in result.verdicts)
    counts.update(abstained)
    missing = requested - set(counts)
    extra = set(counts) - requested
    duplicated = {claim_id for claim_id, n in counts.items() if n > 1}
    if missing or extra or duplicated:
        raise JudgeError(
            f"judge reply ids do not match the request: {len(missing)} missing, "
            f"{len(extra)} extra, {len(duplicated)} duplicated",
            kind="id_mismatch",
        )
    checked: dict[str, ClaimVerdict] = {}
    index = PassageIndex()
    for verdict in result.verdicts:
        claim = packet.claim(verdict.claim_id)
        assert claim is not None  # every ID was just matched against the request
        checked[verdict.claim_id] = check_verdict(claim, verdict, resolved_by=resolved_by,
                                                  index=index)
    return checked
