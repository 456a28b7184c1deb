"""The citewatch Prometheus metric set, registered on an injected registry.

Every metric is prefixed ``citewatch_``. Label values stay bounded: the ``app`` label
comes from a configured allow-list, or without one from the first ``max_apps`` apps seen
(anything else is reported as ``other``), and trace
IDs travel only as exemplars on ``citewatch_critical_unsupported_claims_total``.
The names, labels and buckets here are a public contract documented in docs/metrics.md.
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import CollectorRegistry

from exporters._judge_metrics import CIRCUIT_STATES, JUDGE_LATENCY_BUCKETS, JudgeMetrics
from exporters._record_metrics import (
    CRITICAL_REASONS,
    OTHER_APP,
    RATIO_BUCKETS,
    UNJUDGED_REASONS,
    UNKNOWN_APP,
    RecordMetrics,
)
from exporters._runtime_metrics import STAGE_BUCKETS, STAGES, RuntimeMetrics
from schemas import EvaluationRecord
from schemas.vocabulary import CircuitState, SkipReason, Stage

__all__ = [
    "CIRCUIT_STATES",
    "CRITICAL_REASONS",
    "UNJUDGED_REASONS",
    "JUDGE_LATENCY_BUCKETS",
    "OTHER_APP",
    "RATIO_BUCKETS",
    "STAGE_BUCKETS",
    "STAGES",
    "UNKNOWN_APP",
    "CitewatchMetrics",
]


class CitewatchMetrics:
    """All citewatch metrics on one registry; the pipeline reports through these methods.

    Composed per concern, registered in this order: :attr:`records` (evaluated and
    dead-lettered records, with the bounded ``app`` label), :attr:`judge` (the judge's calls
    and its circuit breaker; ``CitewatchMetrics`` is a
    :class:`sidecar.judge.observer.JudgeObserver` through it) and :attr:`runtime` (lag, slow
    records, stage durations, the build).
    """

    def __init__(
        self,
        *,
        registry: CollectorRegistry,
        apps: Iterable[str] = (),
        max_apps: int = 0,
        version: str = "",
        rubric_version: str = "",
        judge_model: str = "",
    ) -> None:
        self.records = RecordMetrics(registry=registry, apps=apps, max_apps=max_apps)
        self.judge = JudgeMetrics(registry=registry)
        self.runtime = RuntimeMetrics(
            registry=registry,
            version=version,
            rubric_version=rubric_version,
            judge_model=judge_model,
        )

    # -- records --------------------------------------------------------------------------

    def app_label(self, app: str, *, admit: bool = True) -> str:
        """The ``app`` label value for ``app`` (see :meth:`RecordMetrics.app_label`)."""
        return self.records.app_label(app, admit=admit)

    def observe_record(self, record: EvaluationRecord) -> None:
        """Count one evaluated trace: claims, verdicts, ratios, critical findings, redactions."""
        self.records.observe_record(record)

    def trace_duplicate(self, app: str) -> None:
        """Count a replayed trace that was already counted."""
        self.records.trace_duplicate(app)

    def dead_letter(self, reason: str, app: str = UNKNOWN_APP) -> None:
        """Count a record sent to the dead-letter topic; ``app`` is ``unknown`` if unreadable."""
        self.records.dead_letter(reason, app)

    # -- the judge ------------------------------------------------------------------------

    def judge_request(
        self,
        *,
        model: str,
        outcome: str,
        latency_seconds: float,
        input_tokens: int,
        output_tokens: int,
    ) -> None:
        """Count one judge call with its outcome, latency and token usage."""
        self.judge.judge_request(
            model=model,
            outcome=outcome,
            latency_seconds=latency_seconds,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
        )

    def judge_skip(self, reason: SkipReason) -> None:
        """Count a trace the judge did not see, with the reason (sampling, budget, circuit)."""
        self.judge.judge_skip(reason)

    def judge_cache_hit(self, count: int = 1) -> None:
        """Count claim verdicts served from the cache."""
        self.judge.judge_cache_hit(count)

    def quote_not_found(self) -> None:
        """Count a verdict downgraded because its evidence quote was not found."""
        self.judge.quote_not_found()

    def set_circuit_state(self, state: CircuitState) -> None:
        """Set the circuit breaker state gauge; never raises (an unknown state is logged)."""
        self.judge.set_circuit_state(state)

    # -- the runtime ----------------------------------------------------------------------

    def set_build_info(self, *, version: str, rubric_version: str, judge_model: str) -> None:
        """Name what is running: set once the judge stage is built (it knows its rubric
        version and model); empty strings when there is no judge."""
        self.runtime.set_build_info(
            version=version, rubric_version=rubric_version, judge_model=judge_model
        )

    def set_lag(self, topic: str, partition: int, lag: int) -> None:
        """Record the consumer lag of one partition (end offset minus committed offset)."""
        self.runtime.set_lag(topic, partition, lag)

    def mark_processed(self, timestamp: float) -> None:
        """Record the unix time at which the last record was processed."""
        self.runtime.mark_processed(timestamp)

    def slow_record(self) -> None:
        """Count a record that crossed the slow-record threshold (once per record)."""
        self.runtime.slow_record()

    def set_slow_in_progress(self, count: int) -> None:
        """Set how many records are in evaluation beyond the slow-record threshold."""
        self.runtime.set_slow_in_progress(count)

    def observe_stage(self, stage: Stage, seconds: float) -> None:
        """Record the duration of one pipeline stage for one trace."""
        self.runtime.observe_stage(stage, seconds)
