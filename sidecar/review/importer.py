"""Review items from evaluation-record files (`citewatch review import`).

Evaluation records carry the redacted claim text but not the passages. Given the traces the
records were made from, the passages are redacted here with the configured redactor (the
same settings give the same placeholders, scoped per trace as in the pipeline); without
them, items carry the cited source IDs and no passage text.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from schemas import EvaluationRecord, ReviewItem, Trace
from sidecar.config import Settings
from sidecar.review.routing import route_record

__all__ = ["items_from_records", "redacted_traces"]

logger = logging.getLogger(__name__)


def redacted_traces(traces: Iterable[Trace], settings: Settings) -> dict[str, Trace]:
    """Each trace redacted as the pipeline would, by trace ID."""
    from sidecar.redaction import build_redactor

    redactor = build_redactor(settings.redaction) if settings.redaction.enabled else None
    out: dict[str, Trace] = {}
    for trace in traces:
        out[trace.trace_id] = redactor.redact(trace)[0] if redactor is not None else trace
    return out


def items_from_records(
    records: Iterable[EvaluationRecord],
    settings: Settings,
    *,
    traces: Mapping[str, Trace] | None = None,
) -> list[ReviewItem]:
    """The review items the records route, with passages from ``traces`` (redacted)."""
    items: list[ReviewItem] = []
    missing = 0
    for record in records:
        trace = traces.get(record.trace_id) if traces is not None else None
        if traces is not None and trace is None:
            missing += 1
        items.extend(route_record(record, trace, settings.review))
    if missing:
        logger.warning("%d records had no trace to take passages from", missing)
    return items
