"""The offline screen as the judge backend: verdicts where it is sure, abstentions else."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from sidecar.judge import ClaimRequest, JudgePacket, LexicalBackend, Passage, load_rubric
from sidecar.judge.lexical import screen_verdict
from sidecar.judge.screen import ScreenVerdict

PASSAGE = (
    "Pro plan customers can request a full refund within 30 days of purchase. "
    "Refunds are not available for the Free plan."
)
VERBATIM = "Refunds are not available for the Free plan."
NO_OVERLAP = "The office cafeteria serves lunch at noon on Thursdays."


def packet(*claims: tuple[str, str]) -> JudgePacket:
    return JudgePacket("q", tuple(ClaimRequest(i, t, (Passage("S1", PASSAGE),)) for i, t in claims))


def test_verbatim_claims_are_judged_and_unrelated_ones_abstained_without_tokens() -> None:
    backend = LexicalBackend()
    reply = asyncio.run(
        backend.judge(packet(("a", VERBATIM), ("b", NO_OVERLAP)), load_rubric(), timeout=1.0)
    )
    assert [(v.claim_id, v.verdict) for v in reply.result.verdicts] == [("a", "supported")]
    assert reply.result.verdicts[0].reason.startswith("screen: ")
    assert reply.abstained == ("b",)
    assert (reply.input_tokens, reply.output_tokens) == (0, 0)
    assert (backend.name, backend.metered) == ("lexical", False)


def test_the_backend_uses_the_screen_it_is_given() -> None:
    seen: list[tuple[str, list[str]]] = []

    def screen(claim: str, passages: Sequence[str]) -> ScreenVerdict:
        seen.append((claim, list(passages)))
        return ScreenVerdict("unsupported", "conflict: 14 against 30", "ignored for unsupported")

    reply = asyncio.run(
        LexicalBackend(screen=screen).judge(packet(("a", "x")), load_rubric(), timeout=1.0)
    )
    assert seen == [("x", [PASSAGE])]
    [verdict] = reply.result.verdicts
    assert (verdict.verdict, verdict.evidence_quote, verdict.reason) == (
        "unsupported",
        "",
        "screen: conflict: 14 against 30",
    )
    assert reply.abstained == ()


def test_screen_verdict_is_none_when_the_screen_abstains() -> None:
    claim = ClaimRequest("c1", NO_OVERLAP, (Passage("S1", PASSAGE),))
    assert screen_verdict(claim) is None
