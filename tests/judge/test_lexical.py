from __future__ import annotations

import asyncio

import pytest

from sidecar.judge import (
    ClaimRequest,
    JudgePacket,
    LexicalBackend,
    Passage,
    load_rubric,
    quote_found,
)
from sidecar.judge.lexical import judge_claim

PASSAGE = ("Pro plan customers can request a full refund within 30 days of purchase. "
           "Refunds are not available for the Free plan.")


@pytest.mark.parametrize(("claim", "expected"), [
    pytest.param("Pro plan customers can request a full refund within 30 days.", "supported",
                 id="same-facts"),
    pytest.param("Pro plan customers can request a full refund within 14 days.", "unsupported",
                 id="another-quantity"),
    pytest.param("Pro plan customers cannot request a full refund within 30 days.",
                 "unsupported", id="negation"),
    pytest.param("Pro plan customers can request a full refund within 30 days when usage is "
                 "below 100 requests.", "partial", id="weaker-statement"),
    pytest.param("The office is closed on public holidays.", "unsupported", id="off-topic"),
])
def test_lexical_verdicts(claim: str, expected: str) -> None:
    request = ClaimRequest("c1", claim, (Passage("S1", PASSAGE),))
    verdict = judge_claim(request)
    assert verdict.verdict == expected
    if expected == "unsupported":
        assert verdict.evidence_quote == ""
    else:
        assert verdict.evidence_quote in PASSAGE and quote_found(verdict.evidence_quote, request)


def test_negated_claim_is_supported_by_a_negated_passage() -> None:
    request = ClaimRequest("c1", "Refunds are not available for the Free plan.",
                           (Passage("S1", PASSAGE),))
    verdict = judge_claim(request)
    assert (verdict.verdict, verdict.evidence_quote) == (
        "supported", "Refunds are not available for the Free plan.")


def test_lexical_backend_answers_every_claim_without_tokens() -> None:
    backend = LexicalBackend()
    packet = JudgePacket("q", (
        ClaimRequest("a", "Pro plan refunds within 30 days of purchase.",
                     (Passage("S1", PASSAGE),)),
        ClaimRequest("b", "Nothing in common here at all.", ()),
    ))
    reply = asyncio.run(backend.judge(packet, load_rubric(), timeout=1.0))
    assert [(v.claim_id, v.verdict) for v in reply.result.verdicts] == [
        ("a", "supported"), ("b", "unsupported")]
    assert (reply.input_tokens, reply.output_tokens) == (0, 0)
    assert (backend.name, backend.metered) == ("lexical", False)
