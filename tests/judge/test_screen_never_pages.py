"""The offline screen alone never pages: its "unsupported" is a suspicion, counted and sent
to review; pages without an LLM come from deterministic facts only."""

from __future__ import annotations

import pytest

from tests.support.factories import claim, make_trace, source
from tests.support.judged import Judged

PASSAGE = "Refunds are accepted within 30 days of purchase. Shipping is free over 50 EUR."


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        pytest.param("Refunds are accepted within 14 days of purchase.", "number", id="number"),
        pytest.param(
            "Refunds are not accepted within 30 days of purchase.", "negation", id="negation"
        ),
    ],
)
def test_a_critical_claim_the_screen_finds_in_conflict_is_suspect_not_critical(
    text: str, detail: str
) -> None:
    judged = Judged(None)
    trace = make_trace(
        answer=f"{text} [S1]",
        sources=[source("S1", PASSAGE)],
        claims=[claim("c1", text, ["S1"], 3)],
    )
    [record] = judged.evaluate(trace)
    [c1] = record.claims
    assert (c1.verdict, c1.not_judged, c1.not_judged_detail) == (None, "suspect", detail)
    assert c1.critical_reason is None and record.scores.critical_unsupported == 0
    assert c1.path is not None and (c1.path.screen, c1.path.llm) == ("suspect", None)
    # Not scored 0: the trace has no other cited claim, so it is not scored at all.
    assert record.scores.correctness is None
    assert judged.value("citewatch_claims_suspect_total", app="support", reason=detail) == 1
    assert (
        judged.value(
            "citewatch_critical_unsupported_claims_total",
            app="support",
            reason="judged_unsupported",
        )
        == 0
    )


def test_deterministic_facts_still_page_without_an_llm() -> None:
    judged = Judged(None)
    trace = make_trace(
        answer="Refunds are accepted within 30 days [S9]. Shipping is free over 50 EUR.",
        sources=[source("S1", PASSAGE)],
        claims=[
            claim("c1", "Refunds are accepted within 30 days.", ["S9"], 3),
            claim("c2", "Shipping is free over 50 EUR.", [], 3),
        ],
    )
    [record] = judged.evaluate(trace)
    assert {c.claim_id: c.critical_reason for c in record.claims} == {
        "c1": "invalid_citation",
        "c2": "uncited",
    }
    assert (
        judged.value("citewatch_critical_unsupported_claims_total", app="support", reason="uncited")
        == 1
    )


def test_a_supported_claim_beside_a_suspect_one_is_scored_alone() -> None:
    judged = Judged(None)
    good = "Refunds are accepted within 30 days of purchase."
    bad = "Shipping is free over 80 EUR."
    trace = make_trace(
        answer=f"{good} [S1] {bad} [S1]",
        sources=[source("S1", PASSAGE)],
        claims=[claim("c1", good, ["S1"], 3), claim("c2", bad, ["S1"], 3)],
    )
    [record] = judged.evaluate(trace)
    states = {c.claim_id: (c.verdict, c.not_judged) for c in record.claims}
    assert states == {"c1": ("supported", None), "c2": (None, "suspect")}
    # The suspicion leaves numerator and denominator: completeness is 3/3, not 3/6.
    assert (record.scores.correctness, record.scores.completeness) == (1.0, 1.0)
