"""The review queue's side of `citewatch run`: routed claims to the store and the topic.

:class:`ReviewSink` is hooked into the pipeline (``Pipeline.on_redacted``), where each record
meets the redacted trace it was built from: the claims it routes become packets, held by
trace ID until the runtime writes the record. The runtime then calls :meth:`ReviewSink.take`
beside its evaluation sink (after the record is written, and, on Kafka, acknowledged): the
packets go into the store, if one is configured, and the Kafka runtime produces each to the
review topic with :meth:`ReviewSink.publish` before it commits the offset. Replays and
several replicas may send an item more than once; the store keeps it once, by item ID.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any

from prometheus_client import CollectorRegistry

from schemas import EvaluationRecord, ReviewItem, Trace
from sidecar.config import ReviewSettings, Settings
from sidecar.errors import ConfigError
from sidecar.pipeline import Pipeline
from sidecar.review.metrics import ReviewRunMetrics
from sidecar.review.routing import route_record
from sidecar.review.store import ReviewStore, item_json

__all__ = ["ReviewSink", "review_sink"]

logger = logging.getLogger(__name__)

HELD_TRACES = 10_000
"""Traces whose packets wait for their record to be written; beyond it the oldest are
dropped (their records failed or were abandoned, so they were never taken)."""


class ReviewSink:
    """Routes evaluated claims and hands their packets to the store and the review topic.

    ``store`` and ``producer`` are injected; with neither, packets are routed and counted
    only. Never raises into the pipeline or the runtime for a packet: a failure is logged
    (IDs only) and counted.
    """

    def __init__(
        self,
        settings: ReviewSettings,
        *,
        store: ReviewStore | None = None,
        producer: Any = None,
        metrics: ReviewRunMetrics | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.producer = producer
        self.metrics = metrics
        self._held: OrderedDict[str, tuple[ReviewItem, ...]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def publishes(self) -> bool:
        """Whether items are produced to the review topic."""
        return self.producer is not None and self.settings.topic is not None

    def observe(self, record: EvaluationRecord, redacted: Trace) -> None:
        """The pipeline hook: route ``record``'s claims, hold their packets."""
        try:
            items = tuple(route_record(record, redacted, self.settings))
        except Exception as exc:
            logger.error(
                "routing trace %s for review raised %s", record.trace_id, type(exc).__name__
            )
            if self.metrics is not None:
                self.metrics.write_error("routing")
            return
        if not items:
            return
        with self._lock:
            self._held[record.trace_id] = items
            self._held.move_to_end(record.trace_id)
            while len(self._held) > HELD_TRACES:
                self._held.popitem(last=False)

    def take(self, record: EvaluationRecord) -> tuple[ReviewItem, ...]:
        """The packets of a record that was just written, stored in the store if any."""
        with self._lock:
            items = self._held.pop(record.trace_id, ())
        if not items:
            return items
        if self.metrics is not None:
            for item in items:
                for reason in item.reasons:
                    self.metrics.routed(reason)
        if self.store is not None:
            try:
                result = self.store.add(items)
            except Exception as exc:
                logger.error(
                    "review items of trace %s not stored (%s)", record.trace_id, type(exc).__name__
                )
                if self.metrics is not None:
                    self.metrics.write_error("store")
            else:
                if self.metrics is not None:
                    for capped, count in result.capped_reasons.items():
                        self.metrics.capped(capped, count)
        return items

    def publish(self, item: ReviewItem) -> Any:
        """Produce ``item`` to the review topic keyed by its ID; the producer's future."""
        assert self.producer is not None and self.settings.topic is not None
        return self.producer.send(
            self.settings.topic, value=item_json(item), key=item.item_id.encode("ascii")
        )


def review_sink(
    settings: Settings, pipeline: Pipeline, registry: CollectorRegistry, *, producer: Any = None
) -> ReviewSink | None:
    """The sink ``review.store`` and ``review.topic`` ask for, hooked into ``pipeline``
    (None when neither is set). ``producer`` is the Kafka runtime's; without one (the file
    source) a topic alone is a ConfigError and beside a store it is not used.

    Raises StoreError when the store cannot be opened (start-up stops).
    """
    review = settings.review
    if not review.store and not review.topic:
        return None
    if review.topic and producer is None:
        if not review.store:
            raise ConfigError(
                "review.topic needs the Kafka runtime; with --input set review.store instead"
            )
        logger.warning(
            "review.topic is not used with --input; routed claims go to %s", review.store
        )
    store = (
        ReviewStore(review.store, caps=review.daily_caps, reviewers=review.reviewers_per_item)
        if review.store
        else None
    )
    sink = ReviewSink(
        review, store=store, producer=producer, metrics=ReviewRunMetrics(registry=registry)
    )
    pipeline.on_redacted = sink.observe
    logger.info(
        "review queue: store %s, topic %s, audit rate %g",
        review.store,
        review.topic if producer is not None else None,
        review.audit_rate,
    )
    return sink
