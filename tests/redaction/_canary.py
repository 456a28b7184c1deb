"""One value of every entity type, and a trace that carries them in every text field.

Shared by the canary tests; extend RAW_VALUES when a type is added, and add a capture
(judge requests, spans, /metrics...) to test_canary.py by asserting `leaks(captured) == []`.
"""

from __future__ import annotations

from schemas import Trace
from tests.factories import make_trace

__all__ = ["RAW_VALUES", "canary_trace", "leaks"]

RAW_VALUES: dict[str, str] = {
    "EMAIL": "canary.person@example.com",
    "PHONE": "(415) 555-2671",
    "CREDIT_CARD": "4111 1111 1111 1111",
    "IBAN": "DE89 3704 0044 0532 0130 00",
    "US_SSN": "536-22-1234",
    "IP_ADDRESS": "203.0.113.77",
    "SECRET": "sk-proj-Canary0123456789abcdefghijKLMN",
}
# Other spellings a leak could take (digits without separators, a compact IBAN).
_FORMS = {"41111111111111111", "4111111111111111", "DE89370400440532013000", "536221234",
          "4155552671", "Canary0123456789abcdefghijKLMN", "canary.person"}


def canary_trace() -> Trace:
    """Every raw value in the question, the answer, each claim and each source."""
    everything = "; ".join(f"{kind.lower()} {value}" for kind, value in RAW_VALUES.items())
    return make_trace(
        question=f"My details: {everything}. Can I get a refund?",
        answer=f"Refunds take 30 days [S1]. We reach you at {RAW_VALUES['EMAIL']} [S2].",
        sources=[
            {"id": "S1", "title": f"Refunds for {RAW_VALUES['EMAIL']}",
             "text": f"Refunds take 30 days. Account: {everything}.",
             "url": f"https://crm.example.com/a?email={RAW_VALUES['EMAIL']}"
                    f"&token={RAW_VALUES['SECRET']}"},
            {"id": "S2", "title": "Contact", "text": f"Contact: {everything}."},
        ],
        claims=[
            {"id": "c1", "text": "Refunds take 30 days.", "citation_ids": ["S1"],
             "importance": 3},
            {"id": "c2", "text": f"We reach you at {RAW_VALUES['EMAIL']}.",
             "citation_ids": ["S2"], "importance": 2},
            {"id": "c3", "text": f"Your details are {everything}.", "citation_ids": ["S2"],
             "importance": 1},
        ],
    )


def leaks(captured: str) -> list[str]:
    """The raw values (in any spelling listed) found in captured output."""
    return sorted(v for v in (*RAW_VALUES.values(), *_FORMS) if v in captured)
