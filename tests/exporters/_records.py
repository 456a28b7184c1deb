"""Evaluation records for exporter tests, built from the schemas alone."""

from __future__ import annotations

from datetime import UTC, datetime

from schemas import (
    ClaimResult,
    EvaluationRecord,
    FindingRecord,
    Generator,
    JudgeRun,
    Scores,
    Versions,
)

__all__ = ["TRACE_ID", "claim", "record"]

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


def claim(
    claim_id: str,
    *,
    importance: int = 2,
    status: str = "cited",
    verdict: str | None = None,
    critical_reason: str | None = None,
    resolved_by: str | None = None,
    not_judged: str | None = None,
    not_judged_detail: str | None = None,
    critical_unjudged: bool = False,
    path: dict[str, object] | None = None,
) -> ClaimResult:
    """A claim result with the given status, verdict, critical reason and judge facts."""
    return ClaimResult.model_validate(
        {
            "claim_id": claim_id,
            "text": "redacted claim text",
            "importance": importance,
            "kind": "factual",
            "status": status,
            "citation_ids": ["S1"] if status == "cited" else [],
            "verdict": verdict,
            "critical_reason": critical_reason,
            "resolved_by": resolved_by,
            "not_judged": not_judged,
            "not_judged_detail": not_judged_detail,
            "critical_unjudged": critical_unjudged,
            "path": path,
        }
    )


def record(
    *,
    app: str = "shop",
    claims: list[ClaimResult] | None = None,
    validity: float = 1.0,
    correctness: float | None = None,
    completeness: float | None = None,
    invalid_ids: list[str] | None = None,
    sampled_by: str | None = None,
    judge: str | None = None,
    redactions: dict[str, int] | None = None,
    trace_id: str = TRACE_ID,
    findings: list[FindingRecord] | None = None,
    outcome: str = "ok",
    skip_reason: str | None = None,
) -> EvaluationRecord:
    """An evaluation record; judged when ``judge`` names a backend and ``outcome`` is ok."""
    now = datetime(2025, 1, 1, tzinfo=UTC)
    run = (
        JudgeRun(judge=judge, model="gpt-test", rubric_version="r1", outcome=outcome)
        if judge is not None
        else None
    )
    return EvaluationRecord.model_validate(
        {
            "trace_id": trace_id,
            "app": app,
            "trace_timestamp": now,
            "evaluated_at": now,
            "generator": Generator(model="gen", prompt_version="p1"),
            "findings": findings or [],
            "claims": claims or [],
            "scores": Scores(
                validity=validity,
                correctness=correctness,
                completeness=completeness,
                invalid_citation_ids=invalid_ids or [],
            ),
            "judged": judge is not None and outcome == "ok",
            "skip_reason": skip_reason,
            "sampled_by": sampled_by,
            "judge": run,
            "redactions": redactions or {},
            "versions": Versions(citewatch="0.1.0", trace_schema="1"),
        }
    )
