"""The one record processor: what the Kafka consumer and the file source do around
:func:`~sidecar.runtime.guard.evaluate_raw` for every record (dedup by trace_id, stage
timings, the slow-record watch, the metrics of an outcome)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from schemas import EvaluationRecord, Trace
from sidecar.decode import DecodeLimits
from sidecar.pipeline import Pipeline
from sidecar.runtime.dedup import DEFAULT_MAX_BYTES, RecentIds
from sidecar.runtime.guard import Evaluated, Failure, Skipped, evaluate_raw
from sidecar.runtime.slow import SlowRecords

if TYPE_CHECKING:  # `citewatch check` imports this module and never the metrics
    from exporters.prometheus import CitewatchMetrics

__all__ = ["RecordProcessor", "evaluates_inline"]


class RecordProcessor:
    """Evaluates raw records for a runtime and keeps its dedup window and metrics.

    A trace_id seen recently is skipped before evaluation and counted as a duplicate; once
    a record's outcome is written, :meth:`is_new` and :meth:`emitted` count it.
    """

    def __init__(
        self,
        *,
        pipeline: Pipeline,
        limits: DecodeLimits,
        metrics: CitewatchMetrics,
        slow: SlowRecords,
        dedup_window: int,
        dedup_max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.pipeline = pipeline
        self.limits = limits
        self.metrics = metrics
        self.slow = slow
        self.recent = RecentIds(dedup_window, max_bytes=dedup_max_bytes)

    async def evaluate(
        self,
        value: bytes,
        *,
        token: int,
        wait_for: Callable[[Trace], Awaitable[None]] | None = None,
        on_admit: Callable[[Trace], None] | None = None,
    ) -> Evaluated | Failure | Skipped:
        """Decode and evaluate one record (never raises but for cancellation).

        ``token`` is the record's slow-record watch token, named with the trace ID once it
        decodes. ``wait_for`` runs before the dedup check (the consumer waits there for a
        copy already in flight); ``on_admit`` right after a trace is admitted.
        """
        started = time.perf_counter()

        async def admit(trace: Trace) -> bool:
            self.slow.identify(token, trace.trace_id)
            self.metrics.observe_stage("decode", time.perf_counter() - started)
            if wait_for is not None:
                await wait_for(trace)
            if trace.trace_id in self.recent:
                self.metrics.trace_duplicate(trace.app)
                return False
            if on_admit is not None:
                on_admit(trace)
            return True

        return await evaluate_raw(self.pipeline, value, self.limits, admit=admit)

    def is_new(self, record: EvaluationRecord) -> bool:
        """Remember the record's trace_id; False (counted as a duplicate) if it was seen."""
        if self.recent.add(record.trace_id):
            return True
        self.metrics.trace_duplicate(record.app)
        return False

    def emitted(self, record: EvaluationRecord, *, emit_seconds: float, new: bool) -> None:
        """Count a record whose outcome was written (and, for Kafka, acknowledged)."""
        self.metrics.observe_stage("emit", emit_seconds)
        if new:
            self.metrics.observe_record(record)
        self.metrics.mark_processed(time.time())

    def dead_lettered(self, failure: Failure, app: str) -> None:
        """Count a dead letter by its reason."""
        self.metrics.dead_letter(failure.reason, app)


def evaluates_inline(pipeline: Pipeline) -> bool:
    """Whether the pipeline's evaluations may start inline in the ordered loop (see
    :func:`~sidecar.runtime.ordered.evaluate_in_order`): with no judge, or with one whose
    backend calls no service (the offline screen, not metered), an evaluation waits on no
    network and never waits inside a timer. An LLM judge's calls run in tasks of their own.
    """
    judge = pipeline.judge
    if judge is None:
        return True
    backend = getattr(judge, "backend", None)
    return backend is not None and getattr(backend, "metered", True) is False
