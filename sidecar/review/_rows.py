"""How a review item is written to the store's rows."""

from __future__ import annotations

import sqlite3

from schemas import ReviewItem

__all__ = ["insert_item"]


def insert_item(db: sqlite3.Connection, item: ReviewItem, received: str) -> None:
    """Write ``item`` (its packet and its reasons) within the caller's transaction."""
    db.execute(
        "INSERT INTO items (item_id, trace_id, claim_id, app, day, priority, audit, "
        "importance, verdict, resolved_by, judge_model, rubric_version, packet, "
        "received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            item.item_id,
            item.trace_id,
            item.claim_id,
            item.app,
            item.day.isoformat(),
            item.priority,
            int(item.audit),
            item.importance,
            item.verdict,
            item.resolved_by,
            item.judge_model,
            item.rubric_version,
            item.model_dump_json(),
            received,
        ),
    )
    db.executemany(
        "INSERT INTO item_reasons (item_id, reason) VALUES (?, ?)",
        [(item.item_id, reason) for reason in item.reasons],
    )
