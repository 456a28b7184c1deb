"""Traces and analyses for judge tests."""

from __future__ import annotations

from typing import Any

from schemas import Trace
from sidecar.checks import Analysis, MarkerParser, analyse
from sidecar.judge import JudgePacket, build_packet
from tests.support.factories import claim, make_trace, source

__all__ = ["UNCITED_SECRET", "analysed", "packet_for", "refund_trace", "trace_id"]

UNCITED_SECRET = "Enterprise customers get refunds within 90 days, no questions asked."
"""Text of a retrieved source that no claim cites: it must never reach the judge."""


def trace_id(n: int) -> str:
    """A valid, distinct trace ID for ``n``."""
    return f"{n + 1:032x}"


def refund_trace(**overrides: Any) -> Trace:
    """Two cited claims (S1, S2), one uncited critical claim and a retrieved, uncited S3."""
    fields: dict[str, Any] = {
        "answer": "Pro refunds last 30 days [S1]. Refunds go to the card [S2]. Same-day payout.",
        "sources": [
            source("S1", "Pro plan customers can request a refund within 30 days of purchase."),
            source("S2", "Approved refunds are returned to the original card."),
            source("S3", UNCITED_SECRET),
        ],
        "claims": [
            claim("c1", "Pro plan refunds are available within 30 days.", ["S1"], 2),
            claim("c2", "Refunds are returned to the original card.", ["S2"], 3),
            claim("c3", "Refunds are paid out the same day.", [], 3),
        ],
    }
    fields.update(overrides)
    return make_trace(**fields)


def analysed(trace: Trace) -> Analysis:
    """The deterministic analysis of ``trace`` with the default marker pattern."""
    return analyse(trace, MarkerParser(None))


def packet_for(trace: Trace) -> JudgePacket:
    """The packet of every claim of ``trace`` that needs the judge."""
    return build_packet(trace, [c for c in analysed(trace).claims if c.needs_judge])
