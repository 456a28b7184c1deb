"""A verdict a passage may have bought is judged again without the text that tried.

A claim is *exposed* when its cited passages, the question or the claim itself carry text
flagged as addressed to a model (:mod:`sidecar.checks.injection`), or when an instruction is
split across two of its cited passages (read as the judge reads them, one after the other:
the end of one and the start of the next are cut from the second packet). An LLM's verdict
on an exposed claim is never taken on the judge's word: not a "supported" a passage may have
bought, and not an "unsupported" one may have ordered to make someone be paged. The claim
goes out once more in a packet with every flagged span removed, and the first verdict stands
only when the second one is the same. Otherwise, or when nothing is left to judge, or when
the second call cannot be made, the claim is ``unverified`` (``injection_influenced``): not
scored, not critical, a finding on the trace, and, at importance 3, a security event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from schemas import VerdictLabel
from sidecar.checks.injection import injection_rules, outside_injections, split_cuts
from sidecar.judge.packet import ClaimRequest, JudgePacket, Passage, unmark
from sidecar.judge.validation import PassageIndex
from sidecar.scoring import ClaimVerdict

__all__ = ["RejudgeRequest", "exposed_claims", "rejudge_request", "second_opinion_holds"]

_JUDGED_AGAIN: frozenset[VerdictLabel] = frozenset({"supported", "partial", "unsupported"})


def _cut(text: str) -> str:
    """``text`` without its flagged spans (the parts left joined by a blank line)."""
    return "\n\n".join(part.strip() for part in outside_injections(unmark(text)) if part.strip())


def _junctions(
    claim: ClaimRequest, seen: dict[tuple[str, str], tuple[int, int] | None]
) -> dict[int, tuple[int, int]]:
    """For each cited passage after the first whose junction with the one before carries a
    split instruction: its index and the cuts (from the previous passage, up to in it)."""
    found: dict[int, tuple[int, int]] = {}
    passages = claim.passages
    for at in range(1, len(passages)):
        before, after = passages[at - 1], passages[at]
        key = (before.passage_id, after.passage_id)
        if key not in seen:
            seen[key] = split_cuts(unmark(before.text), unmark(after.text))
        cuts = seen[key]
        if cuts is not None:
            found[at] = cuts
    return found


def exposed_claims(packet: JudgePacket, index: PassageIndex) -> frozenset[str]:
    """IDs of the packet's claims whose cited passages, question or own text carry a flagged
    span, or whose cited passages carry an instruction split across two of them."""
    question_flagged = bool(injection_rules(packet.question))
    seen: dict[tuple[str, str], tuple[int, int] | None] = {}
    return frozenset(
        claim.claim_id
        for claim in packet.claims
        if question_flagged
        or injection_rules(claim.text)
        or any(index.flagged(passage) for passage in claim.passages)
        or _junctions(claim, seen)
    )


def _cut_junctions(claim: ClaimRequest) -> tuple[Passage, ...]:
    """The claim's passages without the text of an instruction split across two of them."""
    junctions = _junctions(claim, {})
    if not junctions:
        return claim.passages
    texts = [unmark(p.text) for p in claim.passages]
    starts, ends = [0] * len(texts), [len(t) for t in texts]
    for at, (cut_from, cut_to) in junctions.items():
        ends[at - 1] = min(ends[at - 1], cut_from)
        starts[at] = max(starts[at], cut_to)
    return tuple(
        Passage(p.passage_id, texts[i][starts[i] : ends[i]] if starts[i] < ends[i] else "")
        for i, p in enumerate(claim.passages)
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
        passages = tuple(Passage(p.passage_id, _cut(p.text)) for p in _cut_junctions(claim))
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
