"""A word that names a thing's identifier (order, claim, case, ticket, transaction...) keeps a
bare run of digits, never a value its checksum or shape proves: a Luhn-valid card, an SSN of
its written shape, a phone number the phone metadata accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.redaction._cli import check, record_claims, redact

WORDS = ["transaction", "policy", "ref", "claim", "case", "ticket", "order", "booking", "receipt"]

# (value, its placeholder's type)
STRONG = [
    ("4526 0181 5908 3012", "CREDIT_CARD"),
    ("4111-1111-1111-1111", "CREDIT_CARD"),
    ("4111111111111111", "CREDIT_CARD"),
    ("3782 822463 10005", "CREDIT_CARD"),
    ("512-44-7809", "US_SSN"),
    ("512 44 7809", "US_SSN"),
    ("0161 496 0000", "PHONE"),
    ("020 7946 0958", "PHONE"),
    ("555-201-7731", "PHONE"),
    ("(415) 555-2671", "PHONE"),
    ("+44 7700 900123", "PHONE"),
    ("0049 30 901820", "PHONE"),
    ("06 12 34 56 78", "PHONE"),
    ("+687 20.12.34", "PHONE"),
]

# the things' own numbers, which stay after their word
KEPT = [
    "order 48213",
    "INV-2024-0042",
    "ticket 5551234567",
    "Order 2396-419849 could not ship",
    "policy 428-9263469",
    "Your parcel 9400 2627 4070 3039 8292 62 left",
    "Your order number is 683-9179042-6631214",
    "ISBN 9786619211761",
    "booking 12 34 56 78",
    "case 2024 0042",
]


@pytest.mark.parametrize("word", WORDS)
def test_a_thing_word_never_shields_a_strong_value(word: str) -> None:
    texts = [f"Re {word} {value}, thanks." for value, _ in STRONG]
    assert redact(texts) == [f"Re {word} <{kind}_1>, thanks." for _, kind in STRONG]


def test_a_things_own_number_stays() -> None:
    assert redact(KEPT) == KEPT


def test_a_shielded_value_reaches_neither_the_judge_nor_the_record(tmp_path: Path) -> None:
    values = ["transaction 4526 0181 5908 3012", "claim 512-44-7809", "case 0161 496 0000"]
    requests, records = check(values, tmp_path)
    for raw in ("4526 0181 5908 3012", "512-44-7809", "0161 496 0000"):
        assert raw not in requests and raw not in records
    assert "<CREDIT_CARD_1>" in requests and "<US_SSN_1>" in requests
    assert record_claims(records) == [
        "On file: transaction <CREDIT_CARD_1>.",
        "On file: claim <US_SSN_1>.",
        "On file: case <PHONE_1>.",
    ]
