"""The release gate: the tutorial's decisions, every reason printed, exit codes."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from schemas import (
    ClaimResult,
    EvaluationRecord,
    Generator,
    JudgeRun,
    Scores,
    Source,
    Trace,
    Versions,
)
from sidecar.cli import cli
from sidecar.config import Settings
from sidecar.pipeline import Pipeline
from sidecar.quality.gate import GateError, GateSummary, decide, load_summary, summarise

WHEN = datetime(2025, 3, 3, 9, tzinfo=UTC)


def _record(
    n: int,
    overall: float,
    *,
    invalid: tuple[str, ...] = (),
    critical: str | None = None,
    rubric: str = "r1",
) -> EvaluationRecord:
    claim = ClaimResult(
        claim_id="c1",
        text="A claim.",
        importance=3 if critical else 2,
        kind="factual",
        status="cited",
        citation_ids=["S1"],
        verdict="unsupported" if critical else "supported",
        critical_reason=critical,
    )  # type: ignore[arg-type]
    return EvaluationRecord(
        trace_id=f"{n + 1:032x}",
        app="support",
        trace_timestamp=WHEN,
        evaluated_at=WHEN,
        generator=Generator(model="gen", prompt_version="p1"),
        findings=[],
        claims=[claim],
        scores=Scores(
            validity=1.0,
            correctness=overall,
            completeness=overall,
            overall=overall,
            invalid_citation_ids=list(invalid),
        ),
        judged=True,
        sampled_by="base",
        judge=JudgeRun(judge="openai-responses", model="m", rubric_version=rubric, outcome="ok"),
        versions=Versions(citewatch="0.1.0", trace_schema="1", rubric=rubric),
    )


def _write(path: Path, records: list[EvaluationRecord]) -> Path:
    path.write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    return path


def _summary(path: Path, overall: float, **extra: object) -> Path:
    path.write_text(
        json.dumps({"overall": overall, "traces": 50, "judged": 50, **extra}), encoding="utf-8"
    )
    return path


def _gate(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["gate", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("candidate", "exit_code"),
    [
        pytest.param(0.84, 0, id="0.84-passes"),
        pytest.param(0.82, 1, id="0.82-fails"),
        pytest.param(0.83, 0, id="exactly-at-tolerance-passes"),
        pytest.param(0.90, 0, id="improvement-passes"),
    ],
)
def test_tutorial_decisions_on_summaries(tmp_path: Path, candidate: float, exit_code: int) -> None:
    baseline = _summary(tmp_path / "baseline.json", 0.86)
    cand = _summary(tmp_path / "candidate.json", candidate)
    code, output = _gate("--baseline", str(baseline), "--candidate", str(cand))
    assert code == exit_code, output
    if exit_code:
        assert (
            "FAIL: overall regressed from 0.8600 to 0.8200 (-0.0400, more than the "
            "tolerance 0.0300)" in output
        )
    else:
        assert output.rstrip().endswith("gate: PASS")


def test_tutorial_decisions_on_evaluation_records(tmp_path: Path) -> None:
    baseline = _write(tmp_path / "base.jsonl", [_record(0, 0.90), _record(1, 0.82)])
    passing = _write(tmp_path / "pass.jsonl", [_record(0, 0.88), _record(1, 0.80)])
    failing = _write(tmp_path / "fail.jsonl", [_record(0, 0.86), _record(1, 0.78)])
    assert _gate("--baseline", str(baseline), "--candidate", str(passing))[0] == 0
    code, output = _gate("--baseline", str(baseline), "--candidate", str(failing))
    assert code == 1
    assert "overall regressed from 0.8600 to 0.8200" in output


def test_one_invalid_id_fails_whatever_the_score(tmp_path: Path) -> None:
    baseline = _summary(tmp_path / "baseline.json", 0.86)
    records = [_record(i, 0.99) for i in range(9)] + [_record(9, 0.99, invalid=("S9",))]
    cand = _write(tmp_path / "candidate.jsonl", records)
    code, output = _gate("--baseline", str(baseline), "--candidate", str(cand))
    assert code == 1
    reasons = [line for line in output.splitlines() if line.startswith("FAIL:")]
    assert reasons == [f"FAIL: 1 unresolved citation ID(s) in 1 trace(s): S9 in trace {10:032x}"]


def test_every_reason_is_printed(tmp_path: Path) -> None:
    baseline = _summary(tmp_path / "baseline.json", 0.86)
    records = [
        _record(0, 0.70, invalid=("S7", "S8")),
        _record(1, 0.70, critical="judged_unsupported"),
    ]
    cand = _write(tmp_path / "candidate.jsonl", records)
    code, output = _gate(
        "--baseline", str(baseline), "--candidate", str(cand), "--tolerance", "0.05"
    )
    assert code == 1
    reasons = [line for line in output.splitlines() if line.startswith("FAIL:")]
    assert reasons == [
        "FAIL: overall regressed from 0.8600 to 0.7000 (-0.1600, more than the tolerance 0.0500)",
        f"FAIL: 2 unresolved citation ID(s) in 1 trace(s): S7,S8 in trace {1:032x}",
        f"FAIL: 1 critical unsupported claim(s): c1 in trace {2:032x} (judged_unsupported)",
    ]
    assert "gate: FAIL (3 reason(s))" in output


def test_tolerance_comes_from_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    baseline = _summary(tmp_path / "baseline.json", 0.86)
    cand = _summary(tmp_path / "candidate.json", 0.82)
    monkeypatch.setenv("CITEWATCH_GATE_TOLERANCE", "0.05")
    code, output = _gate("--baseline", str(baseline), "--candidate", str(cand))
    assert code == 0, output
    assert "tolerance 0.0500" in output
    config = tmp_path / "citewatch.yaml"
    config.write_text("gate:\n  tolerance: 0.01\n", encoding="utf-8")
    monkeypatch.delenv("CITEWATCH_GATE_TOLERANCE")
    assert (
        _gate("--baseline", str(baseline), "--candidate", str(cand), "--config", str(config))[0]
        == 1
    )


def test_tutorial_trace_through_the_pipeline_fails_on_its_unknown_id(tmp_path: Path) -> None:
    trace = Trace(
        trace_id="a" * 32,
        timestamp=WHEN,
        app="support",
        generator=Generator(model="gen", prompt_version="p1"),
        question="q?",
        answer="Fact [S1], other [S9].",
        sources=[Source(id="S1", text="Fact.")],
        claims=[],
    )
    record = asyncio.run(Pipeline(Settings()).evaluate(trace))
    summary = summarise([record])
    assert summary.unresolved_citations[0].ids == ["S9"]
    decision = decide(
        GateSummary(overall=0.5), summary.model_copy(update={"overall": 0.99}), tolerance=0.03
    )
    assert not decision.passed
    assert decision.reasons == [
        f"1 unresolved citation ID(s) in 1 trace(s): S9 in trace {'a' * 32}"
    ]


def test_summary_out_freezes_a_baseline(tmp_path: Path) -> None:
    records = [_record(0, 0.9), _record(1, 0.8)]
    cand = _write(tmp_path / "candidate.jsonl", records)
    frozen = tmp_path / "frozen.json"
    code, _ = _gate("--baseline", str(cand), "--candidate", str(cand), "--summary-out", str(frozen))
    assert code == 0
    summary = load_summary(frozen)
    assert summary == summarise(records)
    assert summary.overall == pytest.approx(0.85)
    assert (summary.traces, summary.judged, summary.rubric_versions) == (2, 2, ["r1"])


def test_judge_series_change_is_noted(tmp_path: Path) -> None:
    base = _write(tmp_path / "base.jsonl", [_record(0, 0.9)])
    cand = _write(tmp_path / "cand.jsonl", [_record(0, 0.9, rubric="r2")])
    code, output = _gate("--baseline", str(base), "--candidate", str(cand))
    assert code == 0
    assert "note: rubric version differs (baseline r1, candidate r2)" in output


def test_unreadable_inputs_are_one_line_errors(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n", encoding="utf-8")
    with pytest.raises(GateError, match="no evaluation records"):
        load_summary(junk)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"overall": "high"}), encoding="utf-8")
    code, output = _gate("--baseline", str(bad), "--candidate", str(junk))
    assert code == 2  # unreadable input, not a regression (exit 1)
    assert output.startswith("Error: ") and "not a gate summary (bad fields: overall)" in output
    empty_judged = _write(tmp_path / "unjudged.jsonl", [])
    empty_judged.write_text("", encoding="utf-8")
    assert _gate("--baseline", str(bad), "--candidate", str(empty_judged))[0] == 2


def test_a_trace_written_twice_counts_once(tmp_path: Path) -> None:
    """The evaluations topic is at-least-once: a dump may hold a record twice. Counted twice,
    one failing trace would weigh double in the mean and be listed twice."""
    records = [_record(0, 0.2, critical="judged_unsupported"), _record(1, 1.0)]
    once = load_summary(_write(tmp_path / "once.jsonl", records))
    twice = load_summary(_write(tmp_path / "twice.jsonl", [*records, records[0]]))
    assert (twice.traces, twice.overall) == (once.traces, once.overall) == (2, 0.6)
    assert len(twice.critical_claims) == 1
    assert (once.duplicates, twice.duplicates) == (0, 1)
    # the same trace_id in another app is another trace
    other = records[0].model_copy(update={"app": "billing"})
    assert load_summary(_write(tmp_path / "apps.jsonl", [*records, other])).traces == 3
    code, output = _gate(
        "--baseline",
        str(tmp_path / "once.jsonl"),
        "--candidate",
        str(tmp_path / "twice.jsonl"),
        "--tolerance",
        "0.5",
    )
    assert "note: candidate: 1 record(s) of traces already counted were skipped" in output
    assert code == 1 and output.count("critical unsupported claim(s)") == 1, output
