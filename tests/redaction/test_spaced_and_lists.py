"""Numbers written one digit at a time, values glued to a word by an underscore, and lists
of numbers that are evidence, not personal data; through `citewatch redact` and through
`citewatch check` into the judge's request and the record."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.redaction._cli import check, record_claims, redact

SPACED = [
    pytest.param("4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", "CREDIT_CARD", id="card-spaced"),
    pytest.param("4 5 2 6 0 1 8 1 5 9 0 8 3 0 1 2", "CREDIT_CARD", id="card-spaced-visa"),
    pytest.param("4 1 1 1 - 1 1 1 1 - 1 1 1 1 - 1 1 1 1", "CREDIT_CARD", id="card-spaced-dashes"),
    pytest.param("5\u00a05\u00a05\u00a05 5 5 5 5 5 5 5 5 4 4 4 4", "CREDIT_CARD", id="card-nbsp"),
    pytest.param("1 2 3 - 4 5 - 6 7 8 9", "US_SSN", id="ssn-spaced"),
    pytest.param("5 1 2 - 4 4 - 7 8 0 9", "US_SSN", id="ssn-spaced-2"),
    pytest.param("0 1 5 1 5 5 5 0 1 4 2", "PHONE", id="phone-trunk"),
    pytest.param("+4 4 7 7 0 0 9 0 0 1 2 3", "PHONE", id="phone-country-code"),
    pytest.param("5 5 5 - 2 0 1 - 7 7 3 1", "PHONE", id="phone-3-3-4"),
]


@pytest.mark.parametrize(("value", "kind"), SPACED)
def test_a_number_written_one_digit_at_a_time(value: str, kind: str) -> None:
    assert redact([f"Here: {value} thanks."]) == [f"Here: <{kind}_1> thanks."]


def test_spaced_digits_after_a_word_naming_them() -> None:
    texts = [
        "SSN: 1 2 3 4 5 6 7 8 9",
        "call 5 5 5 2 0 1 7 7 3 1",
        "order 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
    ]
    assert redact(texts) == ["SSN: <US_SSN_1>", "call <PHONE_1>", "order <CREDIT_CARD_1>"]


UNDERSCORE = [
    ("cust_4111111111111111", "cust_<CREDIT_CARD_1>"),
    ("id_123-45-6789", "id_<US_SSN_1>"),
    ("user_0151 555 0142", "user_<PHONE_1>"),
    ("cust_4111 1111 1111 1111", "cust_<CREDIT_CARD_1>"),
    ("acct_512-44-7809 on file", "acct_<US_SSN_1> on file"),
    # glued to a word naming the value, it is that word's value
    ("phone_5552017731", "phone_<PHONE_1>"),
    ("tel-5552017731", "tel-<PHONE_1>"),
    ("ssn_123456789", "ssn_<US_SSN_1>"),
    # a thing's code glued by an underscore stays, as by a hyphen
    ("file_20240315.csv", "file_20240315.csv"),
    ("build_1234567", "build_1234567"),
    ("step_12", "step_12"),
]


def test_spaced_digits_after_a_number_of_their_own() -> None:
    texts = ["Room 12 1 2 3 - 4 5 - 6 7 8 9", "2024 0 1 5 1 5 5 5 0 1 4 2", "12 3 4 5 6 7 8 9 0"]
    assert redact(texts) == ["Room 12 <US_SSN_1>", "2024 <PHONE_1>", "12 3 4 5 6 7 8 9 0"]


def test_a_value_glued_to_a_word_by_an_underscore() -> None:
    assert redact([text for text, _ in UNDERSCORE]) == [want for _, want in UNDERSCORE]


KEPT = [
    "Count 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and stop.",
    "The series 12 15 18 21 24 27 grows by three.",
    "Marks 10 20 30 40 50 60 70 on the scale.",
    "Scores were 98 87 92 76 88 95 81 this term.",
    "See pages 12, 15, 18, 21, 24 and 27.",
    "Digits 1 2 3 4 5 6 7 8 9 in order.",
    "Digits 0 1 2 3 4 5 6 7 8 9 in order.",
    "Years 1997 1999 2001 2004 in the study.",
    "It ran 12 15 18 21 24 27 30 33 36 39 42 45 48 51 54 57 cycles.",
    "Sizes 100 150 200 250 300 350 were tested.",
    # a list of three-digit numbers whose digits pass Luhn is no card either
    "Rounds 113 154 195 236 277 318 were replayed.",
]


def test_lists_of_numbers_stay() -> None:
    assert redact(KEPT) == KEPT


def test_a_list_after_a_phone_word_is_a_phone_number() -> None:
    # a phone word still makes a number of digits in short groups a phone number
    assert redact(["call 12 15 18 21 24 27"]) == ["call <PHONE_1>"]


def test_the_forms_reach_neither_the_judge_nor_the_record(tmp_path: Path) -> None:
    values = [
        "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
        "1 2 3 - 4 5 - 6 7 8 9",
        "cust_4111111111111111",
        "id_123-45-6789",
        "pages 12 15 18 21 24 27",
    ]
    requests, records = check(values, tmp_path)
    for raw in ("1 1 1 1 1 1 1 1", "4 5 - 6 7 8 9", "4111111111111111", "123-45-6789"):
        assert raw not in requests and raw not in records
    assert "pages 12 15 18 21 24 27" in requests
    assert record_claims(records) == [
        "On file: <CREDIT_CARD_1>.",
        "On file: <US_SSN_1>.",
        "On file: cust_<CREDIT_CARD_1>.",
        "On file: id_<US_SSN_1>.",
        "On file: pages 12 15 18 21 24 27.",
    ]
