"""Redaction inside the pipeline: the judge and the record only see redacted text."""

from __future__ import annotations

import asyncio

from schemas import Trace
from sidecar.assembly import build_pipeline
from sidecar.checks import Analysis
from sidecar.config import load_settings
from sidecar.pipeline import JudgeOutcome, Pipeline
from sidecar.redaction import PatternDetector, Redactor
from tests.support.factories import make_trace

TRACE = make_trace(
    answer="Write to anna@example.com for refunds [S1].",
    sources=[
        {
            "id": "S1",
            "title": "Support",
            "text": "Refund requests go to anna@example.com. Replies come within 30 days.",
        }
    ],
    claims=[
        {
            "id": "c1",
            "text": "Refund requests go to anna@example.com.",
            "citation_ids": ["S1"],
            "importance": 3,
        }
    ],
)


class RecordingJudge:
    """A judge stage that keeps what it was given and judges nothing."""

    def __init__(self) -> None:
        self.seen: list[Trace] = []

    async def judge(self, trace: Trace, analysis: Analysis) -> JudgeOutcome:
        self.seen.append(trace)
        return JudgeOutcome(skip_reason="recorded")


def test_record_claims_and_judge_input_are_redacted() -> None:
    judge = RecordingJudge()
    settings = load_settings()
    pipeline = Pipeline(settings, redactor=Redactor([PatternDetector()]), judge=judge)
    record = asyncio.run(pipeline.evaluate(TRACE))
    assert [claim.text for claim in record.claims] == ["Refund requests go to <EMAIL_1>."]
    assert record.redactions == {"EMAIL": 3}
    seen = judge.seen[0]
    assert seen.sources[0].text == "Refund requests go to <EMAIL_1>. Replies come within 30 days."
    assert seen.claims[0].text == "Refund requests go to <EMAIL_1>."


def test_build_pipeline_wires_the_redactor_unless_disabled() -> None:
    on = build_pipeline(load_settings(overrides={"judge.backend": "none"}))
    off = build_pipeline(
        load_settings(overrides={"judge.backend": "none", "redaction.enabled": False})
    )
    assert off.redactor is None
    assert asyncio.run(on.evaluate(TRACE)).claims[0].text == "Refund requests go to <EMAIL_1>."
    assert asyncio.run(off.evaluate(TRACE)).claims[0].text == TRACE.claims[0].text


def test_redaction_keeps_the_judges_verdict() -> None:
    judged = {"judge.backend": "lexical", "sampling.rate": 1.0}
    on = build_pipeline(load_settings(overrides=judged))
    off = build_pipeline(load_settings(overrides={**judged, "redaction.enabled": False}))
    redacted = asyncio.run(on.evaluate(TRACE)).claims[0]
    raw = asyncio.run(off.evaluate(TRACE)).claims[0]
    assert redacted.text == "Refund requests go to <EMAIL_1>."
    assert raw.text == TRACE.claims[0].text
    # The placeholder is the same in claim and passage, so the judge reaches the same verdict
    # and its evidence quote is verified against the redacted passage.
    assert redacted.verdict == raw.verdict
    assert redacted.verdict in ("supported", "partial")
    assert redacted.evidence_quote is not None and redacted.critical_reason is None
    assert "anna@" not in redacted.evidence_quote
