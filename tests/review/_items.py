"""Review items and evaluated traces for the review tests."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from schemas import ReviewItem
from sidecar.review.routing import PRIORITY, item_id

__all__ = ["make_item"]


def make_item(
    n: int,
    *,
    reasons: list[str] | None = None,
    verdict: str | None = "supported",
    day: date = date(2026, 11, 30),
    importance: int = 2,
    trace: str | None = None,
    **extra: Any,
) -> ReviewItem:
    """Item number ``n`` with a passage whose evidence quote is marked."""
    reasons = reasons or ["audit"]
    trace_id = trace or f"{n:032x}"
    text = f"Refunds within {n} days of purchase."
    quote = f"within {n} days"
    start = text.index(quote)
    data: dict[str, Any] = {
        "item_id": item_id(trace_id, "c1"),
        "trace_id": trace_id,
        "claim_id": "c1",
        "app": "support",
        "day": day,
        "evaluated_at": datetime(2026, 11, 30, 10, tzinfo=UTC),
        "reasons": reasons,
        "priority": PRIORITY[reasons[0]] + importance,
        "question": "Can I get a refund?",
        "claim_text": f"Refunds are available within {n} days.",
        "importance": importance,
        "citation_ids": ["S1"],
        "passages": [
            {
                "source_id": "S1",
                "title": "Refunds",
                "text": text,
                "quote_start": start,
                "quote_end": start + len(quote),
            }
        ],
        "verdict": verdict,
        "evidence_quote": quote if verdict in ("supported", "partial") else None,
        "resolved_by": "llm" if verdict else None,
        "judge": "openai-chat",
        "judge_model": "judge-m",
        "rubric_version": "r1",
    }
    data.update(extra)
    return ReviewItem.model_validate(data)
