"""Claims left without a verdict: the screen's abstentions (not judged, never scored, never
critical) and a failing judge's critical claims (critical_unjudged, never silently dropped)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemas import EvaluationRecord, Trace
from tests.support.factories import claim, make_trace, source
from tests.support.judged import Judged
from tests.support.openai_server import Action, FakeOpenAI, Reply, Status, verdicts_reply

S1 = "Pro plan customers can request a refund within 30 days of purchase."
S2 = "Approved refunds are returned to the original card."
VERBATIM = "Pro plan customers can request a refund within 30 days"
PARAPHRASE = "Approved refunds are returned to the card used at checkout."
UNJUDGED = "citewatch_critical_unjudged_claims_total"
CRITICAL = "citewatch_critical_unsupported_claims_total"


def trace(c1: str = VERBATIM, **overrides: Any) -> Trace:
    """c1 (importance 2) verbatim in S1; c2 (importance 3) a paraphrase of S2
    no screen settles; c3 uncited."""
    fields: dict[str, Any] = {
        "answer": f"{c1} [S1]. {PARAPHRASE} [S2]. Same-day payout.",
        "sources": [source("S1", S1), source("S2", S2)],
        "claims": [
            claim("c1", c1, ["S1"], 2),
            claim("c2", PARAPHRASE, ["S2"], 3),
            claim("c3", "Refunds are paid out the same day.", [], 1),
        ],
    }
    fields.update(overrides)
    return make_trace(**fields)


def states(record: EvaluationRecord) -> dict[str, tuple[Any, ...]]:
    return {
        c.claim_id: (c.verdict, c.not_judged, c.critical_reason, c.critical_unjudged)
        for c in record.claims
    }


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


# -- abstention ------------------------------------------------------------------------------


def test_an_abstained_claim_is_not_scored_and_not_critical() -> None:
    judged = Judged(None)
    [record] = judged.evaluate(trace())
    assert states(record) == {
        "c1": ("supported", None, None, False),
        "c2": (None, "abstained", None, False),
        "c3": (None, None, None, False),
    }
    # c2 leaves numerator and denominator: correctness over c1 alone, completeness
    # 2 x 1.0 / (2 + 1) with the uncited c3 in the denominator only.
    assert record.judged
    assert (record.scores.correctness, record.scores.completeness) == (1.0, 0.666667)
    assert (record.scores.critical_unsupported, record.scores.critical_unjudged) == (0, 0)
    assert judged.value("citewatch_claims_abstained_total", app="support", importance="3") == 1
    assert (
        sum(
            judged.value(CRITICAL, app="support", reason=r)
            for r in ("judged_unsupported", "quote_not_found")
        )
        == 0
    )


def test_when_every_cited_claim_abstains_scores_are_null() -> None:
    judged = Judged(None)
    [record] = judged.evaluate(trace(c1="Shipping is free for members."))
    assert [c.not_judged for c in record.claims] == ["abstained", "abstained", None]
    assert (record.scores.correctness, record.scores.completeness, record.scores.overall) == (
        None,
        None,
        None,
    )
    assert not record.judged and record.scores.critical_unjudged == 0
    assert judged.value("citewatch_claims_abstained_total", app="support", importance="2") == 1


# -- a failing judge -------------------------------------------------------------------------

ID_MISMATCH = verdicts_reply(
    [{"claim_id": "c9", "verdict": "supported", "evidence_quote": "", "reason": "r"}]
)


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        pytest.param(ID_MISMATCH, "id_mismatch", id="id_mismatch"),
        pytest.param(Reply(refusal="I cannot help with that."), "refusal", id="refusal"),
        pytest.param(Status(400), "api_error", id="api_error"),
        pytest.param(Reply(text="not json"), "parse_error", id="parse_error"),
    ],
)
def test_a_failed_call_counts_its_critical_claim_unjudged(
    server: FakeOpenAI, action: Action, reason: str
) -> None:
    server.script(action)
    judged = Judged(server)
    [record] = judged.evaluate(trace())
    assert record.judge is not None and record.judge.outcome == reason
    # The screen's verdict on c1 stays; c2, sent to the failing LLM, is critical_unjudged.
    assert states(record) == {
        "c1": ("supported", None, None, False),
        "c2": (None, "judge_failed", None, True),
        "c3": (None, None, None, False),
    }
    assert record.scores.critical_unjudged == 1 and record.scores.correctness is None
    assert judged.value(UNJUDGED, app="support", reason=reason) == 1
    assert judged.value(CRITICAL, app="support", reason="judged_unsupported") == 0


def test_an_open_circuit_leaves_critical_claims_unjudged(server: FakeOpenAI) -> None:
    server.script(Status(500))
    judged = Judged(server, circuit_failures=1, circuit_reset_seconds=600)
    first, second = judged.evaluate(trace(), trace(trace_id="1" * 32))
    assert first.judge is not None and first.judge.outcome == "api_error"
    assert (second.judge, second.skip_reason, second.sampled_by) == (None, "circuit_open", "base")
    assert states(second)["c2"] == (None, "judge_failed", None, True)
    assert judged.value(UNJUDGED, app="support", reason="api_error") == 1
    assert judged.value(UNJUDGED, app="support", reason="circuit_open") == 1
    assert len(server.recorded()) == 1


def test_a_budget_skip_of_a_sampled_trace_leaves_critical_claims_unjudged(
    server: FakeOpenAI,
) -> None:
    judged = Judged(server, sampling={"tokens_per_minute": 1})
    [record] = judged.evaluate(trace())
    assert server.recorded() == []
    assert record.skip_reason == "budget_tokens_per_minute"
    assert states(record)["c2"] == (None, "judge_failed", None, True)
    assert judged.value(UNJUDGED, app="support", reason="budget_tokens_per_minute") == 1


def test_an_unsampled_trace_is_not_a_failure(server: FakeOpenAI) -> None:
    judged = Judged(
        server,
        sampling={
            "rate": 0.0,
            "priority_critical": False,
            "priority_prescreen": False,
            "priority_new_generator_traces": 0,
        },
    )
    [record] = judged.evaluate(trace())
    assert record.skip_reason == "not_sampled"
    assert all(not c.critical_unjudged and c.not_judged is None for c in record.claims)
    assert record.scores.critical_unjudged == 0
    assert server.recorded() == []


def test_a_judged_trace_has_no_unjudged_claims(server: FakeOpenAI) -> None:
    judged = Judged(server)
    [record] = judged.evaluate(trace())
    assert states(record)["c2"] == ("supported", None, None, False)
    assert record.scores.critical_unjudged == 0
    assert (
        sum(
            judged.value(UNJUDGED, app="support", reason=r)
            for r in ("id_mismatch", "api_error", "other")
        )
        == 0
    )
