"""A verdict a passage may have bought is judged again without the text that tried.

A claim is *exposed* when its cited passages, the question or the claim itself carry text
flagged as addressed to a model (:mod:`sidecar.checks.injection`). An LLM's verdict on an
exposed claim is never taken on the judge's word: not a "supported" a passage may have
bought, and not an "unsupported" one may have ordered to make someone be paged. The claim
goes out once more in a packet with every flagged span removed, and the first verdict
stands only when the second one is the same. Otherwise, or when nothing is left to judge,
or when the second call cannot be made, the claim is ``unverified``
(``injection_influenced``): not scored, not critical, a finding on the trace, and, at
importance 3, a security event.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from schemas import VerdictLabel
from sidecar.checks.injection import injection_rules, outside_injections
from sidecar.judge.packet import ClaimRequest, JudgePacket, Passage, unmark
from sidecar.judge.validation import PassageIndex
from sidecar.scoring import ClaimVerdict

__all__ = ["RejudgeRequest", "exposed_claims", "rejudge_request", "second_opinion_holds"]

_JUDGED_AGAIN: frozenset[VerdictLabel] = frozenset({"supported", "partial", "unsupported"})


def _cut(text: str) -> str:
    """``text`` without its flagged spans (the parts left joined by a blank line)."""
    return "\n\n".join(part.strip() for part in outside_injections(unmark(text)) if part.strip())


def exposed_claims(packet: JudgePacket, index: PassageIndex) -> frozenset[str]:
    """IDs of the packet's claims whose cited passages, question or own text carry a flagged
    span."""
    question_flagged = bool(injection_rules(packet.question))
    return frozenset(
        claim.claim_id
        for claim in packet.claims
        if question_flagged
        or injection_rules(claim.text)
        or any(index.flagged(passage) for passage in claim.passages)
    )


@dataclass(frozen=True, slots=True)
class RejudgeRequest:
    """The claims whose verdict needs a second opinion (``asked``), the second packet with
    those that have text left to judge (None when none has), and the others (the claim or
    every cited passage was flagged text only)."""

    asked: frozenset[str]
    packet: JudgePacket | None
    nothing_left: frozenset[str]


def rejudge_request(
    packet: JudgePacket,
    verdicts: Mapping[str, ClaimVerdict],
    exposed: frozenset[str],
) -> RejudgeRequest:
    """The packet that judges again, without flagged spans, each exposed claim the LLM
    judged."""
    claims: list[ClaimRequest] = []
    asked: set[str] = set()
    nothing_left: set[str] = set()
    for claim in packet.claims:
        verdict = verdicts.get(claim.claim_id)
        if (
            claim.claim_id not in exposed
            or verdict is None
            or verdict.resolved_by != "llm"
            or verdict.verdict not in _JUDGED_AGAIN
        ):
            continue
        asked.add(claim.claim_id)
        text = _cut(claim.text)
        passages = tuple(Passage(p.passage_id, _cut(p.text)) for p in claim.passages)
        kept = tuple(p for p in passages if p.text)
        if not text or not kept:
            nothing_left.add(claim.claim_id)
            continue
        claims.append(ClaimRequest(claim.claim_id, text, kept))
    second = replace(packet, question=_cut(packet.question), claims=tuple(claims))
    return RejudgeRequest(frozenset(asked), second if claims else None, frozenset(nothing_left))


def second_opinion_holds(first: ClaimVerdict, second: ClaimVerdict | None) -> bool:
    """Whether the verdict without the flagged text confirms the first one."""
    return second is not None and second.verdict == first.verdict
