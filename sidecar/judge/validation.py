"""Checks a judge reply against its request before any verdict is scored.

- Exactly one verdict per requested claim_id: a missing, extra or duplicate ID makes the whole
  reply a judge error of kind ``id_mismatch`` (never silently scored).
- For supported and partial, the evidence quote must occur in one of that claim's cited
  passages after whitespace and Unicode normalisation; otherwise the verdict becomes
  unsupported with ``quote_not_found=True``.
"""

from __future__ import annotations

from collections import Counter

from schemas import JudgeResult
from sidecar.checks.prescreen import normalise
from sidecar.errors import JudgeError
from sidecar.judge.packet import ClaimRequest, JudgePacket
from sidecar.scoring import ClaimVerdict

__all__ = ["quote_found", "validate_reply"]

_QUOTE_EDGES = " \t\n\"'`\u201c\u201d\u2018\u2019"


def quote_found(quote: str, claim: ClaimRequest) -> bool:
    """Whether a non-empty ``quote`` occurs in one of the claim's cited passages."""
    needle = normalise(quote.strip(_QUOTE_EDGES))
    if not needle:
        return False
    return any(needle in normalise(passage.text) for passage in claim.passages)


def validate_reply(packet: JudgePacket, result: JudgeResult) -> dict[str, ClaimVerdict]:
    """Checked verdicts by claim_id. Raises :class:`JudgeError` (kind ``id_mismatch``)."""
    requested = set(packet.claim_ids)
    counts = Counter(v.claim_id for v in result.verdicts)
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
    for verdict in result.verdicts:
        claim = packet.claim(verdict.claim_id)
        assert claim is not None  # every ID was just matched against the request
        if verdict.verdict in ("supported", "partial") and not quote_found(
            verdict.evidence_quote, claim
        ):
            checked[verdict.claim_id] = ClaimVerdict(
                verdict="unsupported",
                reason=f"evidence quote not found in the cited passages (judge said "
                       f"{verdict.verdict}): {verdict.reason}",
                evidence_quote=verdict.evidence_quote,
                quote_not_found=True,
            )
        else:
            checked[verdict.claim_id] = ClaimVerdict(
                verdict=verdict.verdict,
                reason=verdict.reason,
                evidence_quote=verdict.evidence_quote,
            )
    return checked
