"""Judge stability: re-judge a fixed slice several times and measure the spread.

The gate's tolerance should sit above what judge noise alone moves the mean overall score
by. If one run's mean has standard deviation ``s`` across repeats, the difference of two
runs has ``sqrt(2) * s``; :attr:`StabilityResult.suggested_tolerance` is two of those
(about a 95% bound), never below the rounding of the scores.
"""

from __future__ import annotations

import logging
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from schemas import Trace
from sidecar.pipeline import Pipeline

__all__ = ["StabilityResult", "measure_stability"]

logger = logging.getLogger(__name__)

_MIN_TOLERANCE = 0.005


@dataclass(frozen=True, slots=True)
class StabilityResult:
    """The spread of repeated judgements of one slice of traces."""

    traces: int
    repeats: int
    run_means: tuple[float | None, ...]
    """Mean overall score of each repeat over the traces judged in it."""
    run_sd: float | None
    """Standard deviation of the run means across repeats."""
    within_trace_sd: float | None
    """Pooled standard deviation of one trace's overall score across repeats."""
    max_trace_range: float | None
    """Largest max - min of one trace's overall score across repeats."""
    claims_judged: int
    """Claims with a verdict in every repeat."""
    claims_flipped: int
    """Of those, claims whose verdict was not the same in every repeat."""
    unjudged_runs: int
    """Trace-repeats without an overall score (skipped or failed judge calls)."""

    @property
    def suggested_tolerance(self) -> float | None:
        """2 x sqrt(2) x run_sd, at least 0.005; None without two judged repeats."""
        if self.run_sd is None:
            return None
        return max(_MIN_TOLERANCE, 2 * math.sqrt(2) * self.run_sd)


async def measure_stability(
    pipeline: Pipeline, traces: Sequence[Trace], *, repeats: int
) -> StabilityResult:
    """Evaluate every trace ``repeats`` times through ``pipeline``.

    The pipeline should judge every trace and bypass its verdict cache (sample rate 1,
    cache size 0), or the repeats measure the cache. Raises ValueError for fewer than
    two repeats or no traces.
    """
    if repeats < 2:
        raise ValueError("stability needs at least two repeats")
    if not traces:
        raise ValueError("stability needs at least one trace")
    scores: dict[str, list[float]] = {}
    verdicts: dict[tuple[str, str], list[str]] = {}
    run_means: list[float | None] = []
    unjudged = 0
    for run in range(repeats):
        values = []
        for trace in traces:
            record = await pipeline.evaluate(trace)
            if record.scores.overall is None:
                unjudged += 1
            else:
                values.append(record.scores.overall)
                scores.setdefault(trace.trace_id, []).append(record.scores.overall)
            for claim in record.claims:
                if claim.verdict is not None:
                    verdicts.setdefault((trace.trace_id, claim.claim_id), []).append(claim.verdict)
        run_means.append(math.fsum(values) / len(values) if values else None)
        logger.info(
            "stability run %d of %d: %d of %d traces judged",
            run + 1,
            repeats,
            len(values),
            len(traces),
        )
    judged_means = [m for m in run_means if m is not None]
    full = [v for v in scores.values() if len(v) >= 2]
    pooled = (
        math.sqrt(
            math.fsum(statistics.variance(v) * (len(v) - 1) for v in full)
            / sum(len(v) - 1 for v in full)
        )
        if full
        else None
    )
    complete = [v for v in verdicts.values() if len(v) == repeats]
    return StabilityResult(
        traces=len(traces),
        repeats=repeats,
        run_means=tuple(run_means),
        run_sd=statistics.stdev(judged_means) if len(judged_means) >= 2 else None,
        within_trace_sd=pooled,
        max_trace_range=max((max(v) - min(v) for v in full), default=None),
        claims_judged=len(complete),
        claims_flipped=sum(len(set(v)) > 1 for v in complete),
        unjudged_runs=unjudged,
    )
