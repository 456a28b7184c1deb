"""For a critical claim the LLM calls supported, the evidence quote's sentence must carry
the whole claim: the screen, run on the claim against that sentence, may withhold the
verdict (unverified, quote_incomplete), never reverse it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from schemas import ClaimResult
from sidecar.judge.coverage import quote_context
from sidecar.judge.packet import Passage
from tests.support.factories import claim, make_trace, source
from tests.support.judged import Judged
from tests.support.openai_server import FakeOpenAI, verdicts_reply

PASSAGE = (
    "Our refund policy changed in May. Refunds are accepted within 30 days of "
    "purchase. Shipping is free."
)
QUOTE = "Refunds are accepted within 30 days"


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def judged_supported(
    server: FakeOpenAI, text: str, importance: int, quote: str = QUOTE
) -> ClaimResult:
    server.script(
        verdicts_reply(
            [
                {
                    "claim_id": "C1",
                    "verdict": "supported",
                    "evidence_quote": quote,
                    "reason": "Stated.",
                }
            ]
        )
    )
    trace = make_trace(
        answer=f"{text} [S1]",
        sources=[source("S1", PASSAGE)],
        claims=[claim("c1", text, ["S1"], importance)],
    )
    [record] = Judged(server).evaluate(trace)
    return record.claims[0]


def test_the_quote_widens_to_its_sentence() -> None:
    assert quote_context("accepted within 30", [Passage("S1", PASSAGE)]) == (
        "Refunds are accepted within 30 days of purchase."
    )
    assert quote_context("not there", [Passage("S1", PASSAGE)]) == "not there"


def test_a_critical_claim_the_quote_covers_in_part_is_unverified(server: FakeOpenAI) -> None:
    c1 = judged_supported(
        server,
        "Refunds are accepted within 30 days of purchase when "
        "the customer holds a premium membership card.",
        3,
    )
    assert (c1.verdict, c1.not_judged, c1.not_judged_detail) == (
        None,
        "unverified",
        "quote_incomplete",
    )
    assert c1.critical_reason is None
    assert c1.path is not None and c1.path.llm == "supported"


def test_a_withheld_verdict_is_counted(server: FakeOpenAI) -> None:
    server.script(
        verdicts_reply(
            [
                {
                    "claim_id": "C1",
                    "verdict": "supported",
                    "evidence_quote": QUOTE,
                    "reason": "Stated.",
                }
            ]
        )
    )
    text = "Refunds are accepted within 90 days of purchase."
    judged = Judged(server)
    judged.evaluate(
        make_trace(
            answer=f"{text} [S1]",
            sources=[source("S1", PASSAGE)],
            claims=[claim("c1", text, ["S1"], 3)],
        )
    )
    assert (
        judged.value(
            "citewatch_claims_unverified_total",
            app="support",
            importance="3",
            reason="quote_incomplete",
        )
        == 1
    )


def test_a_critical_claim_whose_quote_conflicts_is_unverified(server: FakeOpenAI) -> None:
    c1 = judged_supported(server, "Refunds are accepted within 90 days of purchase.", 3)
    assert (c1.not_judged, c1.not_judged_detail) == ("unverified", "quote_incomplete")


def test_a_covering_quote_keeps_the_verdict(server: FakeOpenAI) -> None:
    c1 = judged_supported(server, "Refunds are accepted within 30 days of purchase.", 3)
    assert (c1.verdict, c1.not_judged) == ("supported", None)


def test_below_importance_3_the_verdict_stands(server: FakeOpenAI) -> None:
    c1 = judged_supported(
        server,
        "Refunds are accepted within 30 days of purchase when "
        "the customer holds a premium membership card.",
        2,
    )
    assert (c1.verdict, c1.not_judged) == ("supported", None)


def test_a_cached_verdict_is_held_to_the_same_quote(server: FakeOpenAI) -> None:
    # The LLM's verdict is cached before the coverage check; a second trace with the same
    # claim and passage is served from the cache, and its quote is checked all the same.
    server.script(
        verdicts_reply(
            [
                {
                    "claim_id": "C1",
                    "verdict": "supported",
                    "evidence_quote": QUOTE,
                    "reason": "Stated.",
                }
            ]
        )
    )
    text = "Refunds are accepted within 90 days of purchase."
    traces = [
        make_trace(
            trace_id=f"{n:032x}",
            answer=f"{text} [S1]",
            sources=[source("S1", PASSAGE)],
            claims=[claim("c1", text, ["S1"], 3)],
        )
        for n in (1, 2)
    ]
    first, second = Judged(server).evaluate(*traces)
    assert len(server.recorded()) == 1
    for record in (first, second):
        [c1] = record.claims
        assert (c1.verdict, c1.not_judged_detail) == (None, "quote_incomplete")
    assert second.judge is not None and second.judge.cached_claims == 1
