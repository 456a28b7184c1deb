"""Consumer lag of the assigned partitions (end offset minus committed), sampled by the poll
thread within a time budget.

The poll thread waits for these calls: with the broker down, kafka-python's own request
timeout (30 s) would keep a SIGTERM waiting, so a sample gets :data:`LAG_BUDGET_SECONDS`
and what it has not read by then waits for the next one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from typing import Any

from exporters.prometheus import CitewatchMetrics
from sidecar.runtime.kafka_events import Consumer

__all__ = ["LAG_BUDGET_SECONDS", "sample_lag"]

logger = logging.getLogger(__name__)

LAG_BUDGET_SECONDS = 1.0
"""How long one lag sample may keep the poll thread."""


def sample_lag(
    consumer: Consumer,
    assigned: Collection[Any],
    metrics: CitewatchMetrics,
    clock: Callable[[], float],
) -> None:
    """Set the lag gauge of every assigned partition; never raises."""
    partitions = sorted(assigned, key=str)
    until = clock() + LAG_BUDGET_SECONDS
    try:
        ends = consumer.end_offsets(partitions, timeout_ms=int(LAG_BUDGET_SECONDS * 1000))
        for tp in partitions:
            left_ms = int((until - clock()) * 1000)
            if left_ms <= 0:
                logger.debug("lag sample cut short by its time budget")
                break
            committed = consumer.committed(tp, timeout_ms=left_ms)
            end = ends.get(tp)
            if end is None:
                continue
            metrics.set_lag(tp.topic, tp.partition, max(0, end - (committed or 0)))
    except Exception as exc:
        logger.warning("lag sample failed (%s)", type(exc).__name__)
