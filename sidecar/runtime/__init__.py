"""Building blocks shared by the Kafka consumer and the file source of `citewatch run`."""

from __future__ import annotations

from sidecar.runtime.dedup import RecentIds
from sidecar.runtime.shutdown import ShutdownSignals
from sidecar.runtime.worker import AsyncWorker, wait_kafka_future

__all__ = ["AsyncWorker", "RecentIds", "ShutdownSignals", "wait_kafka_future"]
