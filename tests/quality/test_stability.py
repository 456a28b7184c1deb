"""Judge stability: spread of repeated judgements, with a real and a noisy judge stage."""

from __future__ import annotations

import asyncio
import random
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner

from schemas import JudgeRun, Trace
from sidecar.assembly import build_pipeline
from sidecar.checks.analysis import Analysis
from sidecar.cli import cli
from sidecar.config import Settings, load_settings
from sidecar.pipeline import JudgeOutcome, Pipeline
from sidecar.quality.labels import load_labels
from sidecar.quality.replay import traces_from_labels
from sidecar.quality.stability import measure_stability
from sidecar.scoring import ClaimVerdict

REPLAY = Path(__file__).parents[1] / "fixtures" / "calibration" / "replay.jsonl"


@pytest.fixture(scope="module")
def traces() -> list[Trace]:
    return traces_from_labels(load_labels(REPLAY))


class NoisyJudge:
    """A judge stage that draws verdicts at random and remembers what it said."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.said: dict[tuple[str, str], list[str]] = {}

    async def judge(self, trace: Trace, analysis: Analysis) -> JudgeOutcome:
        verdicts = {}
        for item in analysis.claims:
            if item.needs_judge:
                label = self.rng.choice(("supported", "supported", "partial", "unsupported"))
                verdicts[item.claim.id] = ClaimVerdict(label)  # type: ignore[arg-type]
                self.said.setdefault((trace.trace_id, item.claim.id), []).append(label)
        run = JudgeRun(judge="fake", model="noisy", rubric_version="r1", outcome="ok")
        return JudgeOutcome(verdicts=verdicts, run=run, sampled_by="base")


def test_deterministic_judge_has_no_spread(traces: list[Trace]) -> None:
    settings = load_settings(
        overrides={"judge.backend": "lexical", "sampling.rate": 1.0, "judge.cache_size": 0}
    )
    result = asyncio.run(measure_stability(build_pipeline(settings), traces, repeats=3))
    assert result.traces == len(traces) and result.repeats == 3
    assert len(set(result.run_means)) == 1 and result.run_means[0] is not None
    assert (result.run_sd, result.within_trace_sd, result.max_trace_range) == (0.0, 0.0, 0.0)
    # The screen judges the five verbatim claims and abstains on the rest; the two traces
    # whose every cited claim abstained have no scores, in each of the three runs.
    assert (result.claims_judged, result.claims_flipped, result.unjudged_runs) == (5, 0, 6)
    assert result.suggested_tolerance == 0.005


def test_noisy_judge_spread_is_measured(traces: list[Trace]) -> None:
    judge = NoisyJudge(seed=3)
    result = asyncio.run(measure_stability(Pipeline(Settings(), judge=judge), traces, repeats=6))
    means = [m for m in result.run_means if m is not None]
    assert len(means) == 6
    assert result.run_sd == pytest.approx(statistics.stdev(means))
    assert result.run_sd is not None and result.run_sd > 0
    flipped = sum(len(set(v)) > 1 for v in judge.said.values())
    assert (result.claims_judged, result.claims_flipped) == (len(judge.said), flipped)
    assert result.suggested_tolerance == pytest.approx(2 * 2**0.5 * result.run_sd)
    assert result.max_trace_range is not None and result.max_trace_range > 0


def test_stability_rejects_a_single_repeat(traces: list[Trace]) -> None:
    with pytest.raises(ValueError, match="two repeats"):
        asyncio.run(measure_stability(Pipeline(Settings()), traces, repeats=1))


def test_cli_stability_prints_the_spread(traces: list[Trace], tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(t.model_dump_json() + "\n" for t in traces), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["stability", str(path), "--judge", "lexical", "--repeats", "2"]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"{len(traces)} traces x 2 repeats"
    assert "claims whose verdict changed: 0 of 5" in lines
    assert lines[-1] == "suggested gate.tolerance: 0.0050"
