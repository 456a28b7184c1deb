"""Metrics of the review queue (documented in docs/metrics.md, "Review queue").

Two sets: :class:`ReviewRunMetrics`, counted by `citewatch run` as it routes claims, and
:class:`StoreCollector`, read from the store at each scrape by the processes that hold it
(`citewatch review serve` and `citewatch review consume`). Labels are bounded: reasons and
label values come from the vocabularies in ``schemas``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import get_args

from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from schemas import HumanLabelValue, ReviewReason
from sidecar.review.store import ReviewStore

__all__ = ["ReviewRunMetrics", "StoreCollector"]

_REASONS = get_args(ReviewReason)
_LABELS = get_args(HumanLabelValue)


class ReviewRunMetrics:
    """Counters of the routing in `citewatch run`, on an injected registry."""

    def __init__(self, *, registry: CollectorRegistry) -> None:
        self._routed = Counter(
            "citewatch_review_items_routed",
            "Claims routed to review, by reason (an item with two reasons counts under both).",
            ["reason"],
            registry=registry,
        )
        self._capped = Counter(
            "citewatch_review_items_capped",
            "Reasons of routed claims dropped by the store's per-day cap.",
            ["reason"],
            registry=registry,
        )
        self._errors = Counter(
            "citewatch_review_write_errors",
            "Review packets not routed "
            "or not stored (stage routing or store); the log names the "
            "trace ID.",
            ["stage"],
            registry=registry,
        )
        for reason in _REASONS:
            self._routed.labels(reason=reason)
            self._capped.labels(reason=reason)
        for stage in ("routing", "store"):
            self._errors.labels(stage=stage)

    def routed(self, reason: str) -> None:
        """One routed claim for ``reason``."""
        self._routed.labels(reason=reason).inc()

    def capped(self, reason: str, count: int = 1) -> None:
        """``count`` reasons dropped by a cap."""
        self._capped.labels(reason=reason).inc(count)

    def write_error(self, stage: str) -> None:
        """A packet lost at ``stage`` (routing or store)."""
        self._errors.labels(stage=stage).inc()


class StoreCollector:
    """Reads queue depth, labels and agreement from a store at each scrape."""

    def __init__(self, store: ReviewStore) -> None:
        self.store = store

    def collect(self) -> Iterator[Metric]:
        """The store's figures as metric families."""
        depth = GaugeMetricFamily(
            "citewatch_review_queue_items",
            "Review items waiting for a label (or a second reviewer), by reason.",
            labels=["reason"],
        )
        for reason, count in sorted(self.store.queue_depth().items()):
            depth.add_metric([reason], count)
        yield depth
        labels = CounterMetricFamily(
            "citewatch_review_labels",
            "Labels written by "
            "reviewers (corrections and adjudications included), by "
            "label; increase over a day is labels per day.",
            labels=["label"],
        )
        totals = dict.fromkeys(_LABELS, 0)
        for (_, label), count in self.store.label_counts().items():
            totals[label] = totals.get(label, 0) + count
        for label, count in sorted(totals.items()):
            labels.add_metric([label], count)
        yield labels
        stored = CounterMetricFamily(
            "citewatch_review_items_stored", "Items the store took, by reason.", labels=["reason"]
        )
        capped = CounterMetricFamily(
            "citewatch_review_items_dropped_by_cap",
            "Reasons the store dropped by its per-day caps, by reason.",
            labels=["reason"],
        )
        stored_by = dict.fromkeys(_REASONS, 0)
        capped_by = dict.fromkeys(_REASONS, 0)
        for (_, reason), (s, c) in self.store.day_counts().items():
            stored_by[reason] = stored_by.get(reason, 0) + s
            capped_by[reason] = capped_by.get(reason, 0) + c
        for reason in sorted(stored_by):
            stored.add_metric([reason], stored_by[reason])
            capped.add_metric([reason], capped_by[reason])
        yield stored
        yield capped
        agree, total = self.store.agreement()
        agreement = GaugeMetricFamily(
            "citewatch_review_reviewer_agreement_ratio",
            "Share of "
            "items labelled by two or more reviewers on which their "
            "latest labels agree (NaN before any).",
        )
        agreement.add_metric([], agree / total if total else float("nan"))
        yield agreement
        disputes = GaugeMetricFamily(
            "citewatch_review_disagreements",
            "Items whose reviewers disagree, waiting for adjudication.",
        )
        disputes.add_metric([], len(self.store.disagreements()))
        yield disputes
