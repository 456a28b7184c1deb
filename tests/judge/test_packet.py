from __future__ import annotations

import json

from sidecar.judge import ClaimRequest, Passage, cache_key
from tests.judge.traces import UNCITED_SECRET, packet_for, refund_trace


def test_packet_holds_each_cited_claim_with_only_its_passages() -> None:
    packet = packet_for(refund_trace())
    assert json.loads(packet.render()) == {
        "question": "Can I get a refund?",
        "passages": [
            {"passage_id": "S1",
             "text": "Pro plan customers can request a refund within 30 days of purchase."},
            {"passage_id": "S2", "text": "Approved refunds are returned to the original card."},
        ],
        "claims": [
            {"claim_id": "c1", "claim": "Pro plan refunds are available within 30 days.",
             "passage_ids": ["S1"]},
            {"claim_id": "c2", "claim": "Refunds are returned to the original card.",
             "passage_ids": ["S2"]},
        ],
    }


def test_a_passage_cited_by_several_claims_is_sent_once() -> None:
    trace = refund_trace(claims=[
        {"id": "a", "text": "Refunds within 30 days.", "citation_ids": ["S1"], "importance": 2},
        {"id": "b", "text": "Pro plan refunds.", "citation_ids": ["S1", "S2"], "importance": 2},
    ])
    rendered = packet_for(trace).render()
    assert rendered.count("within 30 days of purchase") == 1
    assert [c["passage_ids"] for c in json.loads(rendered)["claims"]] == [["S1"], ["S1", "S2"]]


def test_packet_never_names_uncited_sources_or_the_generator() -> None:
    rendered = packet_for(refund_trace()).render()
    assert UNCITED_SECRET not in rendered
    for name in ("gen-a", "v3", '"support"', "Doc S1"):
        assert name not in rendered


def test_cache_key_changes_with_each_part() -> None:
    claim = ClaimRequest("c1", "Refunds in 30 days.", (Passage("S1", "Refunds within 30 days."),))
    base = cache_key("r1", "m1", claim)
    renamed = ClaimRequest("other-id", claim.text, claim.passages)
    assert cache_key("r1", "m1", renamed) == base
    variants = [
        cache_key("r2", "m1", claim),
        cache_key("r1", "m2", claim),
        cache_key("r1", "m1", ClaimRequest("c1", "Refunds in 31 days.", claim.passages)),
        cache_key("r1", "m1", ClaimRequest("c1", claim.text,
                                           (Passage("S1", "Refunds within 31 days."),))),
    ]
    assert base not in variants and len(set(variants)) == len(variants)
