"""Children of labelled Prometheus metrics, resolved once per label set."""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter, Gauge, Histogram

__all__ = ["Children"]


class Children:
    """The children of one labelled metric, resolved once per label set.

    ``metric.labels(...)`` checks and joins its arguments and takes a lock on every call;
    the label sets here are bounded (allow-listed apps, fixed vocabularies), so each child
    is looked up once and kept.
    """

    __slots__ = ("_metric", "_children")

    def __init__(self, metric: Counter | Gauge | Histogram) -> None:
        self._metric = metric
        self._children: dict[tuple[str, ...], Any] = {}

    def __call__(self, *values: str) -> Any:
        """The child for ``values``, in the order of the metric's label names."""
        child = self._children.get(values)
        if child is None:
            child = self._children[values] = self._metric.labels(*values)
        return child
