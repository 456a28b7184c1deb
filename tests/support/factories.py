"""Small builders of valid traces for tests."""

from __future__ import annotations

from typing import Any

from schemas import Trace

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


def trace_dict(**overrides: Any) -> dict[str, Any]:
    """A valid trace as JSON-ready data; keyword arguments replace top-level fields."""
    data: dict[str, Any] = {
        "schema_version": "1",
        "trace_id": TRACE_ID,
        "timestamp": "2026-11-30T10:00:00Z",
        "app": "support",
        "generator": {"model": "gen-a", "prompt_version": "v3"},
        "question": "Can I get a refund?",
        "answer": "Refunds are available within 30 days [S1].",
        "sources": [{"id": "S1", "title": "Refunds", "text": "Refunds within 30 days."}],
        "claims": [
            {
                "id": "c1",
                "text": "Refunds are available within 30 days.",
                "citation_ids": ["S1"],
                "importance": 2,
            }
        ],
    }
    data.update(overrides)
    return data


def make_trace(**overrides: Any) -> Trace:
    """A validated :class:`Trace`."""
    return Trace.model_validate(trace_dict(**overrides))


def source(source_id: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"id": source_id, "title": f"Doc {source_id}", "text": text, **extra}


def claim(
    claim_id: str, text: str, cites: list[str], importance: int = 2, **extra: Any
) -> dict[str, Any]:
    return {"id": claim_id, "text": text, "citation_ids": cites, "importance": importance, **extra}


def worked_example() -> Trace:
    """DESIGN.md's worked example: S1, S2; c1 (S1, 2), c2 (S2, 3), c3 (uncited, 2)."""
    return make_trace(
        answer="Pro refunds last 30 days [S1]. Refunds go to the card [S2]. Same-day payout.",
        sources=[
            source("S1", "Pro plan refunds within 30 days."),
            source("S2", "Refunds are returned to the original card."),
        ],
        claims=[
            claim("c1", "Pro refunds last 30 days.", ["S1"], 2),
            claim("c2", "Refunds go to the card.", ["S2"], 3),
            claim("c3", "Refunds are paid out the same day.", [], 2),
        ],
    )
