"""Forms an outside measurement found reading through: IPv6 addresses with an embedded IPv4
address written out, values glued to a word by a hyphen, dotted card numbers, values right
after a placeholder-shaped token, IBANs with wider gaps between groups and the IBAN codes
of France's overseas territories and the Aland Islands; through `citewatch redact`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.redaction._cli import check, record_claims, redact


def _iban(country: str, bban: str) -> str:
    """A valid IBAN of ``country`` for ``bban`` (ISO 13616's mod-97 check digits)."""
    number = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{country}{98 - number % 97:02d}{bban}"


FRENCH_BBAN = "30006000011234567890189"
TERRITORIES = ["GF", "PF", "TF", "GP", "MQ", "YT", "NC", "RE", "BL", "MF", "PM", "WF"]


def _grouped(value: str, gap: str) -> str:
    return gap.join(value[i : i + 4] for i in range(0, len(value), 4))


REDACTED = [
    pytest.param("2001:db8:0:0:0:0:192.168.1.1", "IP_ADDRESS", id="ipv6-v4-uncompressed"),
    pytest.param("0:0:0:0:0:ffff:192.168.1.1", "IP_ADDRESS", id="ipv6-v4-mapped-uncompressed"),
    pytest.param("0:0:0:0:0:FFFF:10.0.0.1", "IP_ADDRESS", id="ipv6-v4-upper-case"),
    pytest.param(
        "2001:0db8:0000:0000:0000:0000:192.168.1.1", "IP_ADDRESS", id="ipv6-v4-leading-zeros"
    ),
    pytest.param("::ffff:192.168.1.1", "IP_ADDRESS", id="ipv6-v4-compressed"),
    pytest.param("64:ff9b::192.0.2.33", "IP_ADDRESS", id="ipv6-v4-nat64"),
    pytest.param("4111.1111.1111.1111", "CREDIT_CARD", id="card-dotted"),
    pytest.param("DE89  3704  0044  0532  0130  00", "IBAN", id="iban-two-spaces"),
    pytest.param("DE89\t3704\t0044\t0532\t0130\t00", "IBAN", id="iban-tabs"),
    pytest.param("DE89 3704  0044 0532\t0130 00", "IBAN", id="iban-mixed-gaps"),
    pytest.param(_grouped(_iban("FR", FRENCH_BBAN), "  "), "IBAN", id="iban-fr-two-spaces"),
    pytest.param(_iban("AX", "12345600000785"), "IBAN", id="iban-ax"),
    pytest.param(_grouped(_iban("AX", "12345600000785"), " "), "IBAN", id="iban-ax-grouped"),
    *(
        pytest.param(_iban(code, FRENCH_BBAN), "IBAN", id=f"iban-{code.lower()}")
        for code in TERRITORIES
    ),
    *(
        pytest.param(
            _grouped(_iban(code, FRENCH_BBAN), " "), "IBAN", id=f"iban-{code.lower()}-grouped"
        )
        for code in TERRITORIES[:3]
    ),
]


@pytest.mark.parametrize(("value", "kind"), REDACTED)
def test_the_value_is_redacted(value: str, kind: str) -> None:
    assert redact([f"Details: {value} thanks."]) == [f"Details: <{kind}_1> thanks."]


GLUED = [
    ("cust-0151-555-0142", "cust-<PHONE_1>"),
    ("ID: user-555-201-7731", "ID: user-<PHONE_1>"),
    ("ref-4111-1111-1111-1111", "ref-<CREDIT_CARD_1>"),
    ("acct-512-44-7809", "acct-<US_SSN_1>"),
    ("tel-+44-7700-900123", "tel-<PHONE_1>"),
    # a thing's code glued to its word stays
    ("INV-2024-0042", "INV-2024-0042"),
    ("POL-2024-001234", "POL-2024-001234"),
    ("SKU-48213-77", "SKU-48213-77"),
]


def test_a_value_glued_to_a_word_by_a_hyphen() -> None:
    assert redact([text for text, _ in GLUED]) == [want for _, want in GLUED]


def test_a_value_after_a_placeholder_shaped_token() -> None:
    texts = ["<PHONE_value>0151 5550142", "<EMAIL>jane@example.com", "<X_1>4111 1111 1111 1111"]
    assert redact(texts) == ["<PHONE_value><PHONE_1>", "<EMAIL><EMAIL_1>", "<X_1><CREDIT_CARD_1>"]


def test_the_forms_reach_neither_the_judge_nor_the_record(tmp_path: Path) -> None:
    values = [
        "cust-0151-555-0142",
        "0:0:0:0:0:ffff:192.168.1.1",
        "DE89  3704  0044  0532  0130  00",
    ]
    requests, records = check(values, tmp_path)
    for raw in ("0151-555-0142", "192.168.1.1", "3704  0044"):
        assert raw not in requests and raw not in records
    assert record_claims(records) == [
        "On file: cust-<PHONE_1>.",
        "On file: <IP_ADDRESS_1>.",
        "On file: <IBAN_1>.",
    ]


def test_a_source_urls_path_and_user_reach_no_record(tmp_path: Path) -> None:
    url = "https://jdoe:s3cret@crm.example.com/customers/555-201-7731/jane%40example.com"
    requests, records = check(["the refund"], tmp_path, url=url)
    for raw in ("jdoe", "s3cret", "555-201-7731", "jane%40example.com", "jane@example.com"):
        assert raw not in requests and raw not in records
    cited = [s for line in records.splitlines() for s in json.loads(line)["cited_sources"]]
    assert [s["url"] for s in cited] == [
        "https://<SECRET_1>:<SECRET_2>@crm.example.com/customers/<PHONE_1>/<EMAIL_1>"
    ]
