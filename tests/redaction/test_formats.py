"""The formats an outside test found leaking, and the numbers that must stay.

Recall first: a value of the right shape is redacted whether or not phonenumbers' metadata
calls it valid; numbers that carry evidence are kept.
"""

from __future__ import annotations

import pytest

from sidecar.config import RedactionSettings
from sidecar.redaction import PLACEHOLDER, PatternDetector, Redactor, build_redactor

REDACTOR = Redactor([PatternDetector()])


@pytest.mark.parametrize(
    ("value", "entity_type"),
    [
        pytest.param("0049 30 901820", "PHONE", id="de-international-prefix-00"),
        pytest.param("06 12 34 56 78", "PHONE", id="fr-national"),
        pytest.param("06.12.34.56.78", "PHONE", id="fr-dotted"),
        pytest.param("(02) 9374 4000", "PHONE", id="au-national"),
        pytest.param("+1-919-182-0193", "PHONE", id="invalid-in-metadata-us"),
        pytest.param("+44 7700 900123", "PHONE", id="invalid-in-metadata-gb"),
        pytest.param("555-201-7731x204", "PHONE", id="extension"),
        pytest.param("(415) 555-2671 ext. 12", "PHONE", id="extension-ext"),
        pytest.param("+44 (0)20 7946 0958", "PHONE", id="trunk-zero"),
        pytest.param("030/901820", "PHONE", id="de-slash"),
        pytest.param("+7 (914) 177-76-31", "PHONE", id="ru"),
        pytest.param("1 (392) 381-9082", "PHONE", id="us-trunk-1-and-area-code"),
        pytest.param("8 (912) 345-40-83", "PHONE", id="ru-trunk-8-and-area-code"),
        pytest.param("21 238 158", "PHONE", id="space-grouped-like-thousands"),
        pytest.param("080-9141-7776", "PHONE", id="jp"),
        pytest.param("+55 61 9141-7776", "PHONE", id="br"),
        pytest.param("5018 6466 7909", "CREDIT_CARD", id="maestro-12"),
        pytest.param("3782 822463 10005", "CREDIT_CARD", id="amex-15"),
        pytest.param("378282246310005", "CREDIT_CARD", id="amex-15-bare"),
        pytest.param("6304 0000 0000 0000 018", "CREDIT_CARD", id="maestro-19"),
        pytest.param("gb82west12345698765432", "IBAN", id="iban-lower-case"),
        pytest.param("GB82 WEST 1234 5698 7654 32", "IBAN", id="iban-grouped"),
        pytest.param("jane at example dot com", "EMAIL", id="email-at-dot"),
        pytest.param("jane[at]example[dot]com", "EMAIL", id="email-brackets"),
        pytest.param("jane (at) example.co.uk", "EMAIL", id="email-parens"),
        pytest.param("jane [at] moore-aitken [dot] kiwi", "EMAIL", id="email-brackets-new-tld"),
        pytest.param("jane (at) example.museum", "EMAIL", id="email-parens-long-tld"),
        pytest.param(
            "jane\u1043\u1049 [at] example [dot] kiwi", "EMAIL", id="email-brackets-digits"
        ),
        pytest.param("CNDLGO39P18C121E", "NATIONAL_ID", id="codice-fiscale"),
        pytest.param("cndlgo39p18c121e", "NATIONAL_ID", id="codice-fiscale-lower-case"),
        pytest.param("CNDLGO39P18C12NY", "NATIONAL_ID", id="codice-fiscale-omocodia"),
        pytest.param("CNDLGO39P18C121A", "NATIONAL_ID", id="codice-fiscale-wrong-check"),
        pytest.param("ZZ 30 03 03 T", "NATIONAL_ID", id="nino-placeholder-grouped"),
        pytest.param("ZZ 151162 T", "NATIONAL_ID", id="nino-placeholder-six"),
        pytest.param("ZZ960142T", "NATIONAL_ID", id="nino-placeholder-compact"),
        pytest.param("AB 12 34 56 C", "NATIONAL_ID", id="nino-grouped"),
        pytest.param("AB123456C", "NATIONAL_ID", id="nino-compact"),
        pytest.param("ab123456c", "NATIONAL_ID", id="nino-lower-case"),
        pytest.param("QQ-12-34-56-A", "NATIONAL_ID", id="nino-dashes"),
        pytest.param("12345678Z", "NATIONAL_ID", id="dni"),
        pytest.param("12345678-A", "NATIONAL_ID", id="dni-wrong-check"),
        pytest.param("12.345.678-Z", "NATIONAL_ID", id="dni-dotted"),
        pytest.param("12345678 Z", "NATIONAL_ID", id="dni-space"),
        pytest.param("12345678z", "NATIONAL_ID", id="dni-lower-case-checked"),
        pytest.param("12.345.678-z", "NATIONAL_ID", id="dni-dotted-lower-case-checked"),
        pytest.param("x-1234567-l", "NATIONAL_ID", id="nie-lower-case-checked"),
        pytest.param("X1234567L", "NATIONAL_ID", id="nie"),
        pytest.param("Y-1234567-X", "NATIONAL_ID", id="nie-dashes"),
        pytest.param("ABCPE1234F", "NATIONAL_ID", id="pan"),
        pytest.param("ZAID260704MTLTZM08", "NATIONAL_ID", id="curp"),
    ],
)
def test_values_of_the_right_shape_are_redacted(value: str, entity_type: str) -> None:
    redacted = REDACTOR.redact_text(f"Details: {value}, thanks.")
    assert redacted.text == f"Details: <{entity_type}_1>, thanks."


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        pytest.param(
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            id="aws-ini",
        ),
        pytest.param(
            "github token 3f9a1c2b4d5e6f708192a3b4c5d6e7f8091a2b3c",
            "3f9a1c2b4d5e6f708192a3b4c5d6e7f8091a2b3c",
            id="bare-hex-after-key-word",
        ),
        pytest.param('{"apiKey": "Zx81-pQ_29dk"}', "Zx81-pQ_29dk", id="json-camel"),
        pytest.param("DB_PASSWORD=hunter2!", "hunter2!", id="env"),
        pytest.param("PGPASSWORD=Tr0ub4dor&3 psql", "Tr0ub4dor&3", id="env-run-together"),
        pytest.param("password: s3cr3t-pw", "s3cr3t-pw", id="yaml"),
        pytest.param(
            "STRIPE_SECRET_KEY='sk_live_4eC39HqLyjWDarjtT1zdp7dc'",
            "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            id="stripe-in-env",
        ),
        pytest.param(
            "Authorization: Bearer abcdef1234567890XYZabc", "abcdef1234567890XYZabc", id="bearer"
        ),
        pytest.param(
            "use hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 here",
            "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            id="provider-prefix",
        ),
        pytest.param(
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow==\n-----END RSA PRIVATE KEY-----",
            "MIIEow==",
            id="pem",
        ),
    ],
)
def test_secrets_are_redacted(text: str, secret: str) -> None:
    redacted = REDACTOR.redact_text(text)
    assert secret not in redacted.text
    assert "<SECRET_1>" in redacted.text


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Refunds take 30 days; the fee is $1,299.99 or 1 299 000 EUR.", id="amounts"),
        pytest.param(
            "Take 500 mg twice daily, at most 2 x 500 mg; 1000000 IU per dose.", id="dosages"
        ),
        pytest.param("It ran 1209600 seconds and served 12 345 678 users.", id="durations-counts"),
        pytest.param("Signed 2024-03-15 at 10:30:45, renewed 15.03.2025 09:00.", id="dates-times"),
        pytest.param("Upgrade to v4.15.555.2671 or version 10.0.19045.2965.", id="versions"),
        pytest.param(
            "Policy POL-2024-001234, policy no. 88451203, claim 2024-000123-A.", id="policy-numbers"
        ),
        pytest.param("See Article 17(3), section 1798.100 and § 312g BGB.", id="article-numbers"),
        pytest.param(
            "Order 4111 1111 1111 1112 and tracking number 9400 1000 0000 0000 0000 00.",
            id="order-tracking",
        ),
        pytest.param(
            "ISBN 978-3-16-148410-0, warehouse at 48.856613, 2.352222.", id="isbn-coordinates"
        ),
        pytest.param(
            "Uptime 99.95%, pages 1200-1450, screen 3840 x 2160 pixels.", id="percent-range-measure"
        ),
        pytest.param(
            "The password must be 12 characters; rotate the API key every 90 days.",
            id="secret-words-in-prose",
        ),
        pytest.param("Look at example.com, or meet us at the office.", id="at-in-prose"),
        pytest.param(
            "Ship to SW1A 1AA or EC1A 1BB; ISBN 0-306-40615-X; flight BA2490, LH 401.",
            id="postcodes-isbn-10-flights",
        ),
        pytest.param(
            "VIN 1HGCM82633A004352, the RTX 4090, XPS 13 9310, SM-G991B, v2.14.3-rc1.",
            id="vin-models-versions",
        ),
        pytest.param(
            "Part no. AB123456C, SKU QQ 12 34 56 A, order 12345678A, model CNDLGO39P18C121A.",
            id="identifier-shapes-after-a-thing-word",
        ),
        pytest.param(
            "It took 1.38435736E+12 cycles, 2024-12345678A, z = 1 + 58317492j.",
            id="exponents-and-longer-numbers",
        ),
        pytest.param("Set maximumPerMinute and on 12 34 56 a day.", id="words-and-prose"),
        pytest.param(
            "Look at this dot product; meet (at) home. Then rest.", id="at-and-dot-in-prose"
        ),
    ],
)
def test_numbers_and_words_that_carry_evidence_stay(text: str) -> None:
    assert REDACTOR.redact_text(text).text == text


def test_a_national_identifier_whose_check_holds_is_redacted_after_any_word() -> None:
    text = "order CNDLGO39P18C121E, ref 12345678Z: same as CNDLGO39P18C121E"
    assert REDACTOR.redact_text(text).text == (
        "order <NATIONAL_ID_1>, ref <NATIONAL_ID_2>: same as <NATIONAL_ID_1>"
    )


def test_a_national_identifier_in_a_csv_row_is_redacted() -> None:
    text = "id,national_id,start\n1042,58813470-D,2024-03-01\n1043,X4855215-F,2024-03-02"
    assert REDACTOR.redact_text(text).text == (
        "id,national_id,start\n1042,<NATIONAL_ID_1>,2024-03-01\n1043,<NATIONAL_ID_2>,2024-03-02"
    )


def test_one_national_insurance_number_written_two_ways_is_one_placeholder() -> None:
    text = "NI number ZZ 96 01 42 T (on the form: zz960142t)"
    assert (
        REDACTOR.redact_text(text).text == "NI number <NATIONAL_ID_1> (on the form: "
        "<NATIONAL_ID_1>)"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            r"Germany 77990\n09721 54 82 48 office",
            r"Germany 77990\n<PHONE_1> office",
            id="escaped-line-break",
        ),
        pytest.param(
            r"Phone:\t0475 18 01 64\r\nE-mail",
            r"Phone:\t<PHONE_1>\r\nE-mail",
            id="escaped-tab-and-crlf",
        ),
        pytest.param(
            r"Canada 15097\n780-775-0277-Office\,3987542834-Fax",
            r"Canada 15097\n<PHONE_1>-Office\,<PHONE_2>-Fax",
            id="label-glued-by-dash",
        ),
        pytest.param(
            r"Code 15162\n0476 74 03 82", r"Code 15162\n<PHONE_1>", id="escaped-break-ends-the-run"
        ),
        pytest.param(
            "Part 12-34-5678-AB and 555-201-7731-X9",
            "Part 12-34-5678-AB and 555-201-7731-X9",
            id="codes-glued-by-dash-stay",
        ),
        pytest.param(
            "You can call 33 93 31 or fax 61-23-68.",
            "You can call <PHONE_1> or fax <PHONE_2>.",
            id="six-digits-after-a-phone-word",
        ),
        pytest.param(
            "Room 33 93 31, call 339331 or on 12.03.24.",
            "Room 33 93 31, call 339331 or on 12.03.24.",
            id="six-digits-otherwise-stay",
        ),
        pytest.param(
            "Phone:\n32 32 85\nFax :\r\n61-23-68",
            "Phone:\n<PHONE_1>\nFax :\r\n<PHONE_2>",
            id="six-digits-on-the-line-after-a-label",
        ),
        pytest.param(
            "Stop messages to 35 97 03, or 95 20 92 office, 31 60 98-Office",
            "Stop messages to <PHONE_1>, or <PHONE_2> office, <PHONE_3>-Office",
            id="six-digits-before-a-phone-word",
        ),
        pytest.param(
            "Notes\n\n32 32 85, Order:\n32 32 85 12",
            "Notes\n\n32 32 85, Order:\n32 32 85 12",
            id="six-digits-after-a-blank-line-or-another-label-stay",
        ),
        pytest.param(
            "card # 060446183570, phone #5552017731, call # 555 201 7731",
            "card # <CREDIT_CARD_1>, phone #<PHONE_1>, call # <PHONE_1>",
            id="number-sign-after-a-card-or-phone-word",
        ),
        pytest.param(
            "ticket #060446183570 and order # 5552017731",
            "ticket #060446183570 and order # 5552017731",
            id="number-sign-after-an-identifier-word-stays",
        ),
    ],
)
def test_text_from_json_address_blocks_and_signatures(text: str, expected: str) -> None:
    """Escaped line breaks written out in the text (``\\n``) separate like line breaks, a
    label glued by a dash does not make a phone number an identifier, a label ending its line
    names the value on the next, and a number sign takes its meaning from the word before it."""
    assert REDACTOR.redact_text(text).text == expected


def test_obfuscated_addresses_are_a_setting() -> None:
    text = "Write to jane at example dot com or omar@example.org."
    off = build_redactor(RedactionSettings(email_obfuscations=False))
    assert off.redact_text(text).text == "Write to jane at example dot com or <EMAIL_1>."
    on = build_redactor(RedactionSettings())
    assert on.redact_text(text).text == "Write to <EMAIL_1> or <EMAIL_2>."


@pytest.mark.parametrize(
    "token",
    [
        pytest.param("ghp_" + "a" * 36, id="github"),
        pytest.param("AC" + "ab12" * 8, id="twilio-account"),
        pytest.param("SK" + "0f" * 16, id="twilio-key"),
        pytest.param("key-" + "ab" * 16, id="mailgun"),
        pytest.param("sk_live_" + "a" * 20, id="stripe"),
        pytest.param("shpat_" + "a1" * 16, id="shopify"),
        pytest.param("sq0atp-" + "a" * 22, id="square"),
        pytest.param("12345678:AA" + "b" * 33, id="telegram"),
    ],
)
def test_provider_tokens_behind_a_patterned_trigger_are_found(token: str) -> None:
    # Their trigger is more than a literal (gh is in "though"): it must still let them in.
    assert REDACTOR.redact_text(f"use {token} here, though").text == "use <SECRET_1> here, though"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "v1.2 2024-03-15 2024-03-15 2712 8524 8758 6256",
            "v1.2 2024-03-15 2024-03-15 <CREDIT_CARD_1>",
            id="card-after-dates",
        ),
        pytest.param("1234567 " * 8, "<PHONE_1> " * 4, id="numbers-in-a-row"),
        pytest.param(
            "2024-03-15 10.0 2024-03-15 2712 8524 8758 6256, ",
            "2024-03-15 10.0 2024-03-15 <CREDIT_CARD_1>, ",
            id="cut-between-groups",
        ),
        pytest.param(
            "2024-03-15 2024-03-15 10.0 4073-8190-1215-7, ",
            "2024-03-15 2024-03-15 10.0 <CREDIT_CARD_1>, ",
            id="cut-before-a-dash",
        ),
    ],
)
def test_a_run_longer_than_the_pattern_keeps_its_groups_whole(text: str, expected: str) -> None:
    """The number pattern bounds a run's length (linear time); where it cuts a run, the rest
    of the run (up to 19 digits) stays with the candidate, so a number across the cut is
    decided whole instead of its last digits standing alone."""
    assert REDACTOR.redact_text(text).text == expected


def test_no_group_of_a_cut_run_is_left_between_its_entities() -> None:
    """Five numbers in a row are longer than the pattern's bound, which cut them between
    "555" and "201 7734": each candidate is decided on its own, and a stray group next to
    an entity of the same run is redacted too (recall first)."""
    text = " ".join(f"555 201 773{n}" for n in range(1, 6))
    redacted = REDACTOR.redact_text(text).text
    outside = "".join(PLACEHOLDER.split(redacted))
    assert not any(c.isdigit() for c in outside), redacted
    assert REDACTOR.redact_text("1 1 1 " * 20).text == "1 1 1 " * 20  # no entity: none added
