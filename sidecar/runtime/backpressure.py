"""Backpressure of the Kafka runtime: the records and bytes handed to the worker and not yet
finished, and the pause of the assigned partitions while either is over its bound.

Partitions pause at ``kafka.max_in_flight`` records or ``kafka.max_in_flight_bytes`` bytes
in flight and resume once both are back under half, so the poll loop neither reads faster
than the worker evaluates nor flaps between the two states. Used by the poll thread only.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import Any

from sidecar.runtime.kafka_events import Consumer

__all__ = ["Backpressure"]

logger = logging.getLogger(__name__)


class Backpressure:
    """The bytes of the records in flight, by position, and whether partitions are paused."""

    def __init__(self, *, max_records: int, max_bytes: int) -> None:
        self.max_records = max_records
        self.max_bytes = max_bytes
        self.bytes = 0
        self.paused = False
        self._held: dict[tuple[Any, int], int] = {}

    def hold(self, tp: Any, offset: int, size: int) -> None:
        """A record of ``size`` bytes is in flight."""
        self.release(tp, offset)  # a re-seeked partition starts the offset again
        self._held[(tp, offset)] = size
        self.bytes += size

    def release(self, tp: Any, offset: int) -> None:
        """The record is finished (or was never held)."""
        self.bytes -= self._held.pop((tp, offset), 0)

    def release_partitions(self, tps: Collection[Any]) -> None:
        """The partitions were revoked: their records hold nothing any more."""
        for key in [key for key in self._held if key[0] in tps]:
            self.release(*key)

    def apply(self, consumer: Consumer, assigned: Collection[Any], in_flight: int) -> None:
        """Pause the assigned partitions when full; resume them when back under half."""
        full = in_flight >= self.max_records or self.bytes >= self.max_bytes
        if not self.paused and full and assigned:
            consumer.pause(*assigned)
            self.paused = True
            logger.debug("paused: %d records (%d bytes) in flight", in_flight, self.bytes)
        elif (
            self.paused and in_flight <= self.max_records // 2 and self.bytes <= self.max_bytes // 2
        ):
            consumer.resume(*consumer.paused())
            self.paused = False
            logger.debug("resumed: %d records in flight", in_flight)
