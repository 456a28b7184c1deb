from __future__ import annotations

import asyncio
import logging

import pytest

from schemas import Trace
from sidecar.checks import Analysis, Finding, default_checks
from sidecar.config import Settings
from sidecar.pipeline import JudgeOutcome, Pipeline
from sidecar.scoring import ClaimVerdict
from tests.support.factories import worked_example


class _ExplodingCheck:
    name = "exploding"
    codes: tuple[str, ...] = ()

    def run(self, analysis: Analysis) -> list[Finding]:
        raise RuntimeError("boom")


class _FixedJudge:
    """A judge stage that returns the given verdicts for every trace."""

    def __init__(self, verdicts: dict[str, ClaimVerdict]) -> None:
        self.verdicts = verdicts
        self.seen: list[Trace] = []

    async def judge(self, trace: Trace, analysis: Analysis) -> JudgeOutcome:
        self.seen.append(trace)
        return JudgeOutcome(verdicts=self.verdicts, sampled_by="base")


def test_worked_example_through_the_pipeline() -> None:
    judge = _FixedJudge(
        {
            "c1": ClaimVerdict("supported", "ok", "Pro plan refunds"),
            "c2": ClaimVerdict("supported", "ok", "returned"),
        }
    )
    record = asyncio.run(Pipeline(Settings(), judge=judge).evaluate(worked_example()))
    assert record.judged and record.sampled_by == "base"
    assert (record.scores.correctness, record.scores.completeness, record.scores.overall) == (
        1.0,
        0.714286,
        0.885714,
    )
    assert [c.status for c in record.claims] == ["cited", "cited", "uncited"]
    assert record.claims[0].evidence_quote == "Pro plan refunds"


def test_record_carries_no_source_text_or_question() -> None:
    trace = worked_example()
    record = asyncio.run(Pipeline(Settings()).evaluate(trace))
    dumped = record.model_dump_json()
    assert trace.question not in dumped
    assert all(source.text not in dumped for source in trace.sources)
    assert trace.answer not in dumped


def test_a_failing_check_is_isolated_logged_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    pipeline = Pipeline(Settings(), checks=[_ExplodingCheck(), *default_checks()])
    with caplog.at_level(logging.ERROR):
        record = asyncio.run(pipeline.evaluate(worked_example()))
    assert [(f.severity, f.detail) for f in record.findings if f.code == "check_error"] == [
        ("warning", "exploding")
    ]
    assert any(f.code == "uncited_claim" for f in record.findings)
    assert "check exploding failed" in caplog.text


def test_stage_timings_are_reported() -> None:
    seen: list[tuple[str, float]] = []
    pipeline = Pipeline(
        Settings(),
        judge=_FixedJudge({}),
        on_stage=lambda stage, seconds: seen.append((stage, seconds)),
    )
    asyncio.run(pipeline.evaluate(worked_example()))
    assert [stage for stage, _ in seen] == ["checks", "redaction", "judge", "scoring"]
    assert all(seconds >= 0 for _, seconds in seen)
