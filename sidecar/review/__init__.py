"""The review queue: the claims citewatch is unsure of, or that matter most, reach people.

- :mod:`sidecar.review.routing` chooses the claims (flag routes and the audit slice) and
  builds their redacted packets;
- :mod:`sidecar.review.store` keeps packets and immutable labels in one SQLite file;
- :mod:`sidecar.review.labels` says what a label may be and how an item's labels settle;
- :mod:`sidecar.review.sink` is the `citewatch run` side (store and review topic);
- :mod:`sidecar.review.consume` reads the review topic into a store;
- :mod:`sidecar.review.web` is the reviewers' page;
- :mod:`sidecar.review.metrics` the queue's metrics.
"""

from __future__ import annotations

from sidecar.review.errors import (
    FormTokenError,
    LabelError,
    LabelValueError,
    ReplayedFormError,
    ReviewError,
    StoreError,
    UnknownItemError,
)
from sidecar.review.routing import audit_point, item_id, route_record
from sidecar.review.store import AddResult, FinalLabel, LabelRow, ReviewStore

__all__ = [
    "AddResult",
    "FinalLabel",
    "FormTokenError",
    "LabelError",
    "LabelRow",
    "LabelValueError",
    "ReplayedFormError",
    "ReviewError",
    "ReviewStore",
    "StoreError",
    "UnknownItemError",
    "audit_point",
    "item_id",
    "route_record",
]
