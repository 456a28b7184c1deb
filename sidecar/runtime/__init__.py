"""The runtimes of `citewatch run`: the Kafka consumer and the file source, and what they
share (dedup, offsets, the failure policy, slow-record watch, shutdown, the worker thread).
:func:`build_runtime` chooses one from the settings; each is a :class:`Runtime`."""

from __future__ import annotations

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

__all__ = [
    "build_runtime",
    "Runtime",
    "RunResult",
    "LineSink",
    "KafkaRuntime",
    "JsonLinesSink",
    "FileRuntime",
    "AsyncWorker",
    "Evaluated",
    "Failure",
    "FileRunner",
    "FileSummary",
    "KafkaRunner",
    "LineSource",
    "OffsetTracker",
    "RecentIds",
    "RecordProcessor",
    "ShutdownSignals",
    "Sink",
    "Skipped",
    "TraceSource",
    "decode_guarded",
    "evaluate_guarded",
    "evaluate_in_order",
    "evaluate_raw",
    "wait_kafka_future",
]
