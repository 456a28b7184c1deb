"""A claim its citation does not support, found in another retrieved source: misattributed."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence

import pytest

from schemas import EvaluationRecord, FindingRecord, Trace
from sidecar.config import Settings
from sidecar.judge import JudgeStageImpl, LexicalBackend
from sidecar.judge.screen import ScreenVerdict
from sidecar.pipeline import Pipeline
from tests.support.factories import claim, make_trace, source
from tests.support.judged import Judged
from tests.support.openai_server import FakeOpenAI, verdicts_reply

S1 = "Approved refunds are returned to the original card."
PAYOUT = "Refunds are paid out the same day by bank transfer."
S3 = f"Payout terms. {PAYOUT}"


def trace(*, others: list[dict[str, str]] | None = None) -> Trace:
    """c1 cites S1, which says nothing of payout times; S3, retrieved but not cited, holds
    the claim verbatim."""
    return make_trace(
        answer=f"{PAYOUT} [S1]",
        sources=[source("S1", S1), *(others if others is not None else [source("S3", S3)])],
        claims=[claim("c1", PAYOUT, ["S1"], 3)],
    )


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def misattributed(record: EvaluationRecord) -> list[FindingRecord]:
    return [f for f in record.findings if f.code == "misattributed"]


def test_the_supporting_uncited_source_is_reported(server: FakeOpenAI) -> None:
    server.script(
        verdicts_reply(
            [
                {
                    "claim_id": "C1",
                    "verdict": "unsupported",
                    "evidence_quote": "",
                    "reason": "Not about timing.",
                }
            ]
        )
    )
    judged = Judged(server)
    [record] = judged.evaluate(trace())
    assert misattributed(record) == [
        FindingRecord(
            code="misattributed",
            severity="warning",
            claim_id="c1",
            source_id="S3",
            detail="supported_by_uncited_source",
        )
    ]
    # Correctness stays judged on the cited source, and the LLM never saw the other one.
    [c1] = record.claims
    assert (c1.verdict, c1.critical_reason) == ("unsupported", "judged_unsupported")
    assert record.scores.correctness == 0.0
    [request] = server.recorded()
    assert (
        PAYOUT
        not in request.body["messages"][-1]["content"].split('"passages"')[1].split('"claims"')[0]
    )
    assert (
        judged.value(
            "citewatch_findings_total", app="support", code="misattributed", severity="warning"
        )
        == 1
    )


def test_no_finding_when_no_other_source_supports_the_claim(server: FakeOpenAI) -> None:
    server.script(
        verdicts_reply(
            [{"claim_id": "C1", "verdict": "unsupported", "evidence_quote": "", "reason": "r"}]
        )
    )
    [record] = Judged(server).evaluate(
        trace(others=[source("S3", "Shipping is free for members.")])
    )
    assert misattributed(record) == []


def test_no_finding_for_a_supported_claim(server: FakeOpenAI) -> None:
    server.script(
        verdicts_reply(
            [
                {
                    "claim_id": "C1",
                    "verdict": "supported",
                    "evidence_quote": "refunds are returned to the original card",
                    "reason": "r",
                }
            ]
        )
    )
    supported = "Approved refunds are returned to the card used at checkout."
    [record] = Judged(server).evaluate(
        make_trace(
            answer=f"{supported} [S1]",
            sources=[source("S1", S1), source("S3", S3)],
            claims=[claim("c1", supported, ["S1"], 3)],
        )
    )
    assert record.claims[0].verdict == "supported"
    assert misattributed(record) == []


def test_the_screen_backend_reports_misattribution_of_its_suspicions() -> None:
    def screen(claim_text: str, passages: Sequence[str]) -> ScreenVerdict:
        return ScreenVerdict("unsupported", "conflict_date: another date")

    settings = Settings(judge={"backend": "lexical"}, sampling={"rate": 1.0})
    stage = JudgeStageImpl(
        LexicalBackend(screen=screen),
        judge_settings=settings.judge,
        sampling_settings=settings.sampling,
    )
    record = asyncio.run(Pipeline(settings, judge=stage).evaluate(trace()))
    # The screen alone never gives "unsupported": the claim is suspect, not a verdict, and
    # another source supporting it is still reported.
    [c1] = record.claims
    assert (c1.verdict, c1.not_judged, c1.not_judged_detail) == (None, "suspect", "date")
    assert c1.critical_reason is None
    assert [(f.claim_id, f.source_id) for f in misattributed(record)] == [("c1", "S3")]


def test_an_abstained_claim_is_not_reported() -> None:
    [record] = Judged(None).evaluate(trace())
    assert record.claims[0].not_judged == "abstained" and misattributed(record) == []


def test_a_withheld_supported_is_not_reported_as_misattributed() -> None:
    # The LLM called the critical claim supported, but its quote's sentence lacks part of
    # the claim: the verdict is withheld (unverified), which says nothing against the
    # citation, so no other source is put forward for it.

    text = (
        "Refunds are accepted within 30 days of purchase when the customer holds a "
        "premium membership card."
    )
    with FakeOpenAI() as server:
        server.script(
            verdicts_reply(
                [
                    {
                        "claim_id": "C1",
                        "verdict": "supported",
                        "evidence_quote": "Refunds are accepted within 30 days",
                        "reason": "Stated.",
                    }
                ]
            )
        )
        [record] = Judged(server).evaluate(
            make_trace(
                answer=f"{text} [S1]",
                sources=[
                    source("S1", "Refunds are accepted within 30 days of purchase."),
                    source("S3", text),
                ],
                claims=[claim("c1", text, ["S1"], 3)],
            )
        )
    [c1] = record.claims
    assert (c1.not_judged, c1.not_judged_detail) == ("unverified", "quote_incomplete")
    assert misattributed(record) == []
