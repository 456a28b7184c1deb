"""The runtimes of `citewatch run`: the Kafka consumer and the file source, and what they
share (dedup, offsets, the failure policy, slow-record watch, shutdown, the worker thread).
:func:`build_runtime` chooses one from the settings; each is a :class:`Runtime`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sidecar import lazy_names

if TYPE_CHECKING:
    from sidecar.runtime.base import RunResult, Runtime
    from sidecar.runtime.build import FileRuntime, KafkaRuntime, build_runtime
    from sidecar.runtime.consumer import KafkaRunner
    from sidecar.runtime.dedup import RecentIds
    from sidecar.runtime.filesource import FileRunner, FileSummary, JsonLinesSink, LineSink
    from sidecar.runtime.guard import (
        Evaluated,
        Failure,
        Skipped,
        decode_guarded,
        evaluate_guarded,
        evaluate_raw,
    )
    from sidecar.runtime.lines import LineSource, TraceSource
    from sidecar.runtime.offsets import OffsetTracker
    from sidecar.runtime.ordered import Sink, evaluate_in_order
    from sidecar.runtime.records import RecordProcessor
    from sidecar.runtime.shutdown import ShutdownSignals
    from sidecar.runtime.worker import AsyncWorker, wait_kafka_future

# Each name is imported from its module on first use: `citewatch check` reads files through
# the ordered loop and the failure policy and needs none of the Kafka runtime, the metrics
# server or Prometheus (about a fifth of its start-up).
_LAZY: dict[str, str] = {
    "RunResult": "sidecar.runtime.base",
    "Runtime": "sidecar.runtime.base",
    "FileRuntime": "sidecar.runtime.build",
    "KafkaRuntime": "sidecar.runtime.build",
    "build_runtime": "sidecar.runtime.build",
    "KafkaRunner": "sidecar.runtime.consumer",
    "RecentIds": "sidecar.runtime.dedup",
    "FileRunner": "sidecar.runtime.filesource",
    "FileSummary": "sidecar.runtime.filesource",
    "JsonLinesSink": "sidecar.runtime.filesource",
    "LineSink": "sidecar.runtime.filesource",
    "Evaluated": "sidecar.runtime.guard",
    "Failure": "sidecar.runtime.guard",
    "Skipped": "sidecar.runtime.guard",
    "decode_guarded": "sidecar.runtime.guard",
    "evaluate_guarded": "sidecar.runtime.guard",
    "evaluate_raw": "sidecar.runtime.guard",
    "LineSource": "sidecar.runtime.lines",
    "TraceSource": "sidecar.runtime.lines",
    "OffsetTracker": "sidecar.runtime.offsets",
    "Sink": "sidecar.runtime.ordered",
    "evaluate_in_order": "sidecar.runtime.ordered",
    "RecordProcessor": "sidecar.runtime.records",
    "ShutdownSignals": "sidecar.runtime.shutdown",
    "AsyncWorker": "sidecar.runtime.worker",
    "wait_kafka_future": "sidecar.runtime.worker",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "AsyncWorker",
    "Evaluated",
    "Failure",
    "FileRunner",
    "FileRuntime",
    "FileSummary",
    "JsonLinesSink",
    "KafkaRunner",
    "KafkaRuntime",
    "LineSink",
    "LineSource",
    "OffsetTracker",
    "RecentIds",
    "RecordProcessor",
    "RunResult",
    "Runtime",
    "ShutdownSignals",
    "Sink",
    "Skipped",
    "TraceSource",
    "build_runtime",
    "decode_guarded",
    "evaluate_guarded",
    "evaluate_in_order",
    "evaluate_raw",
    "wait_kafka_future",
]
