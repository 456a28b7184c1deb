"""One value of every entity type, and a trace that carries them in every text field.

Shared by the canary tests; extend RAW_VALUES when a type is added, and add a capture
(judge requests, spans, /metrics...) to test_canary.py by asserting `leaks(captured) == []`.
"""

from __future__ import annotations

from schemas import Trace
from tests.support.factories import make_trace

__all__ = ["RAW_VALUES", "SEEDED", "canary_trace", "leaks"]

RAW_VALUES: dict[str, str] = {
    "EMAIL": "canary.person@example.com",
    "PHONE": "(415) 555-2671",
    "CREDIT_CARD": "4111 1111 1111 1111",
    "IBAN": "DE89 3704 0044 0532 0130 00",
    "US_SSN": "536-22-1234",
    "IP_ADDRESS": "203.0.113.77",
    "SECRET": "sk-proj-Canary0123456789abcdefghijKLMN",
}
# More values, in the national formats and syntaxes that once leaked; each must be redacted
# wherever it appears in the canary trace.
SEEDED: dict[str, tuple[str, ...]] = {
    "PHONE": (
        "0049 30 901820",
        "06 12 34 56 78",
        "(02) 9374 4000",
        "+1-919-182-0193",
        "+44 7700 900123",
        "555-201-7731x204",
        "+7 (914) 177-76-31",
        "080-9141-7776",
        "+55 61 9141-7776",
        "+44 (0)20 7946 0958",
    ),
    "CREDIT_CARD": ("5018 6466 7909", "3782 822463 10005", "6011-0009-9013-9424"),
    "IBAN": ("gb82west12345698765432", "FR14 2004 1010 0505 0001 3M02 606"),
    "EMAIL": ("jane at example dot com", "omar[at]example[dot]org"),
    "SECRET": (
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "3f9a1c2b4d5e6f708192a3b4c5d6e7f8091a2b3c",
        "ghp_Canary0123456789abcdefghijKLMNopqrst",
    ),
}
_SEEDED_TEXT = (
    "Call 0049 30 901820, 06 12 34 56 78, (02) 9374 4000, +1-919-182-0193, +44 7700 900123, "
    "555-201-7731x204, +7 (914) 177-76-31, 080-9141-7776, +55 61 9141-7776 or "
    "+44 (0)20 7946 0958. Cards 5018 6466 7909, 3782 822463 10005, 6011-0009-9013-9424. "
    "IBANs gb82west12345698765432 and FR14 2004 1010 0505 0001 3M02 606. Mail jane at example "
    "dot com or omar[at]example[dot]org.\naws_secret_access_key = "
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\ngithub token "
    "3f9a1c2b4d5e6f708192a3b4c5d6e7f8091a2b3c\nGITHUB_TOKEN=ghp_Canary0123456789abcdefghijKLMNopqrst"
)
# Other spellings a leak could take (digits without separators, a compact IBAN).
_FORMS = {
    "41111111111111111",
    "4111111111111111",
    "DE89370400440532013000",
    "536221234",
    "4155552671",
    "Canary0123456789abcdefghijKLMN",
    "canary.person",
    "901820",
    "9374 4000",
    "182-0193",
    "900123",
    "7731x204",
    "501864667909",
    "378282246310005",
    "GB82WEST12345698765432",
    "jane at example",
    "EXAMPLEKEY",
    "8091a2b3c",
}


def canary_trace() -> Trace:
    """Every raw value in the question, the answer, each claim and each source."""
    everything = "; ".join(f"{kind.lower()} {value}" for kind, value in RAW_VALUES.items())
    everything += ". " + _SEEDED_TEXT
    return make_trace(
        question=f"My details: {everything}. Can I get a refund?",
        answer=f"Refunds take 30 days [S1]. We reach you at {RAW_VALUES['EMAIL']} [S2].",
        sources=[
            {
                "id": "S1",
                "title": f"Refunds for {RAW_VALUES['EMAIL']}",
                "text": f"Refunds take 30 days. Account: {everything}.",
                "url": f"https://crm.example.com/a?email={RAW_VALUES['EMAIL']}"
                f"&token={RAW_VALUES['SECRET']}",
            },
            {"id": "S2", "title": "Contact", "text": f"Contact: {everything}."},
        ],
        claims=[
            {"id": "c1", "text": "Refunds take 30 days.", "citation_ids": ["S1"], "importance": 3},
            {
                "id": "c2",
                "text": f"We reach you at {RAW_VALUES['EMAIL']}.",
                "citation_ids": ["S2"],
                "importance": 2,
            },
            {
                "id": "c3",
                "text": f"Your details are {everything}.",
                "citation_ids": ["S2"],
                "importance": 1,
            },
        ],
    )


def leaks(captured: str) -> list[str]:
    """The raw values (in any spelling listed) found in captured output."""
    seeded = (value for values in SEEDED.values() for value in values)
    return sorted(v for v in (*RAW_VALUES.values(), *seeded, *_FORMS) if v in captured)
