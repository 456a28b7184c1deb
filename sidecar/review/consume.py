"""The review topic into one store (`citewatch review consume`, `review serve --consume`).

Each poll's items are stored in one transaction, and only then are the offsets after them
committed (explicit offsets, never a bare commit): a crash replays what was not committed,
and the store keeps each item once by its ID, so every routed claim is stored once however
often it was produced. A value that is not a review item is counted and skipped (the log
names its partition and offset, never its content).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from schemas import ReviewItem
from sidecar.review.store import ReviewStore

__all__ = ["ConsumeSummary", "consume"]

logger = logging.getLogger(__name__)


@dataclass
class ConsumeSummary:
    """Totals of one consume run."""

    records: int = 0
    stored: int = 0
    duplicates: int = 0
    capped: int = 0
    bad: int = 0


def consume(
    consumer: Any,
    store: ReviewStore,
    stop: threading.Event,
    *,
    poll_timeout_ms: int = 500,
    max_records: int = 500,
) -> ConsumeSummary:
    """Read ``consumer`` (subscribed to the review topic, auto-commit off) into ``store``
    until ``stop`` is set; commits after each stored batch and once more at the end."""
    from kafka.structs import OffsetAndMetadata

    summary = ConsumeSummary()
    while not stop.is_set():
        batches = consumer.poll(timeout_ms=poll_timeout_ms, max_records=max_records)
        if not batches:
            continue
        items: list[ReviewItem] = []
        offsets: dict[Any, Any] = {}
        for tp, messages in batches.items():
            for message in messages:
                summary.records += 1
                try:
                    items.append(ReviewItem.model_validate_json(message.value or b""))
                except ValidationError:
                    summary.bad += 1
                    logger.warning(
                        "review topic %s[%d]@%d is not a review item; skipped",
                        tp.topic,
                        tp.partition,
                        message.offset,
                    )
                offsets[tp] = OffsetAndMetadata(message.offset + 1, "", -1)
        result = store.add(items)
        summary.stored += result.stored
        summary.duplicates += result.duplicates
        summary.capped += result.capped
        consumer.commit(offsets=offsets)
        logger.debug("stored %d review items (%d duplicates)", result.stored, result.duplicates)
    return summary
