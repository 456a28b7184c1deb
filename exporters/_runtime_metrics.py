"""The metrics of the running service: consumer lag, the last record processed, slow
records, stage durations, and what is running (``citewatch_build_info``)."""

from __future__ import annotations

from typing import get_args

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info

from exporters._children import Children as _Children
from schemas.vocabulary import Stage

__all__ = ["STAGES", "STAGE_BUCKETS", "RuntimeMetrics"]

STAGE_BUCKETS: tuple[float, ...] = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
    80.0,
)  # fmt: skip
"""Pipeline stage durations: sub-millisecond checks up to a judge call."""

STAGES: tuple[Stage, ...] = get_args(Stage)


class RuntimeMetrics:
    """What the runtimes report about themselves, and the build they run."""

    def __init__(
        self,
        *,
        registry: CollectorRegistry,
        version: str = "",
        rubric_version: str = "",
        judge_model: str = "",
    ) -> None:
        self.consumer_lag = Gauge(
            "citewatch_consumer_lag_records",
            "Records behind: end offset minus committed offset, per partition.",
            ["topic", "partition"],
            registry=registry,
        )
        self.last_processed = Gauge(
            "citewatch_last_processed_timestamp_seconds",
            "Unix time at which the last record was processed.",
            registry=registry,
        )
        self.slow_records = Counter(
            "citewatch_slow_records",
            "Records still in evaluation after runtime.slow_record_seconds.",
            registry=registry,
        )
        self.slow_in_progress = Gauge(
            "citewatch_slow_records_in_progress",
            "Records in evaluation for longer than runtime.slow_record_seconds right now.",
            registry=registry,
        )
        self.stage_duration = Histogram(
            "citewatch_stage_duration_seconds",
            "Processing time per pipeline stage.",
            ["stage"],
            buckets=STAGE_BUCKETS,
            registry=registry,
        )
        # Exposed as the gauge citewatch_build_info (always 1, the values as labels).
        self.build_info = Info(
            "citewatch_build",
            "Always 1; labels name the running version, rubric version and judge model.",
            registry=registry,
        )
        self._stage_duration = _Children(self.stage_duration)
        self.set_build_info(version=version, rubric_version=rubric_version, judge_model=judge_model)
        # Starts at creation time, so a consumer that never processes a record still reads as
        # stalled ten minutes later instead of as "last processed in 1970".
        self.last_processed.set_to_current_time()

    def set_build_info(self, *, version: str, rubric_version: str, judge_model: str) -> None:
        """Name what is running: set once the judge stage is built (it knows its rubric
        version and model); empty strings when there is no judge."""
        self.build_info.info(
            {"version": version, "rubric_version": rubric_version, "judge_model": judge_model}
        )

    def set_lag(self, topic: str, partition: int, lag: int) -> None:
        """Record the consumer lag of one partition (end offset minus committed offset)."""
        self.consumer_lag.labels(topic=topic, partition=str(partition)).set(lag)

    def mark_processed(self, timestamp: float) -> None:
        """Record the unix time at which the last record was processed."""
        self.last_processed.set(timestamp)

    def slow_record(self) -> None:
        """Count a record that crossed the slow-record threshold (once per record)."""
        self.slow_records.inc()

    def set_slow_in_progress(self, count: int) -> None:
        """Set how many records are in evaluation beyond the slow-record threshold."""
        self.slow_in_progress.set(count)

    def observe_stage(self, stage: Stage, seconds: float) -> None:
        """Record the duration of one pipeline stage for one trace."""
        self._stage_duration(stage).observe(seconds)
