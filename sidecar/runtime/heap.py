"""The garbage collector set for a long-running consumer.

By the time `citewatch run` consumes, the interpreter holds everything it will keep until
exit: modules, the pipeline (patterns, lexicons, models), the Kafka clients. CPython's
collector would walk all of it again in every full collection, and the records in flight
(up to ``kafka.max_in_flight``, alive until their ack) make collections of the young
generations walk thousands of survivors several times per record. Freezing what start-up
built and collecting the youngest generation less often cut the worker's CPU per record
measurably (docs/operations.md, Scaling). Objects allocated later are collected as usual.

The young threshold sits above what the records in flight hold: a poll batch of 500 records
leaves about 60 container objects per record alive until its ack (some 30,000 per batch,
twice that at the default ``max_in_flight``). CPython counts allocations minus frees, so
with a threshold above that the burst is freed by reference counting before any young
collection sees it; at 10,000, each batch set off three young collections that walked only
live records and promoted them for the next generation to walk again (about 40 us of the
worker's CPU per record).
"""

from __future__ import annotations

import gc
import logging

__all__ = ["YOUNG_THRESHOLD", "settle_heap"]

logger = logging.getLogger(__name__)

YOUNG_THRESHOLD = 200_000
"""Allocations between collections of the youngest generation (CPython's default: 700)."""


def settle_heap(*, young_threshold: int = YOUNG_THRESHOLD) -> None:
    """Collect once, freeze the survivors out of future collections, and collect the
    young generation every ``young_threshold`` allocations. Call once, after start-up."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(young_threshold, middle, old)
    logger.debug("heap settled: %d objects frozen", gc.get_freeze_count())
