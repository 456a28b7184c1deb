"""The redactor: placeholders, modes, allow-list, custom patterns, URLs, failures."""

from __future__ import annotations

import logging

import pytest

from sidecar.redaction import Entity, PatternDetector, Redactor, RegexDetector, Scope, _native
from tests.support.factories import make_trace

DETECTOR = PatternDetector()


def test_placeholders_are_typed_numbered_and_reused_for_the_same_value() -> None:
    text = (
        "Mail ANNA@example.com or anna@example.com, call (415) 555-2671 or "
        "+1 415 555 2671, or omar@example.org."
    )
    redacted = Redactor([DETECTOR]).redact_text(text)
    assert redacted.text == (
        "Mail <EMAIL_1> or <EMAIL_1>, call <PHONE_1> or <PHONE_1>, or <EMAIL_2>."
    )
    assert [(e.type, text[e.start : e.end]) for e in redacted.entities] == [
        ("EMAIL", "ANNA@example.com"),
        ("EMAIL", "anna@example.com"),
        ("PHONE", "(415) 555-2671"),
        ("PHONE", "+1 415 555 2671"),
        ("EMAIL", "omar@example.org"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("card 4111 1111 1111 1111 ok", "card <CREDIT_CARD_1> ok", id="card"),
        pytest.param(
            "order 4111 1111 1111 1112 ok",
            "order 4111 1111 1111 1112 ok",
            id="order-number-failing-luhn",
        ),
        pytest.param("IBAN DE89 3704 0044 0532 0130 00.", "IBAN <IBAN_1>.", id="iban"),
        pytest.param("IBAN gb82west12345698765432.", "IBAN <IBAN_1>.", id="iban-lower-case"),
        pytest.param(
            "IBAN GB82 WEST 1234 5698 7654 33.",
            "IBAN GB82 WEST <PHONE_1>.",
            id="iban-bad-checksum-is-no-iban-but-its-digits-go",
        ),
        pytest.param("SSN 536-22-1234.", "SSN <US_SSN_1>.", id="ssn"),
        # Validation never vetoes: after "SSN" a never-issued number is still taken for one.
        pytest.param("SSN 666-22-1234.", "SSN <US_SSN_1>.", id="ssn-never-issued-after-ssn"),
        pytest.param("SSN 4916459928153746764", "SSN <CREDIT_CARD_1>", id="card-after-ssn-word"),
        pytest.param(
            "from 203.0.113.7 and 2001:db8::1",
            "from <IP_ADDRESS_1> and <IP_ADDRESS_2>",
            id="ip-v4-v6",
        ),
        pytest.param(
            "version 1.2.3.4 and 999.1.1.1",
            "version 1.2.3.4 and 999.1.1.1",
            id="version-and-invalid-ip",
        ),
        pytest.param(
            "upgrade to v4.15.555.2671", "upgrade to v4.15.555.2671", id="version-shaped-like-phone"
        ),
        pytest.param(
            "$1,299.99 within 30 days, 100 requests on 2024-03-15 at 10:30:45",
            "$1,299.99 within 30 days, 100 requests on 2024-03-15 at 10:30:45",
            id="amounts-durations-dates",
        ),
        pytest.param("policy POL-2024-001234", "policy POL-2024-001234", id="policy-number"),
        pytest.param("key AKIAIOSFODNN7EXAMPLE", "key <SECRET_1>", id="aws-key"),
        pytest.param("use xoxb-123456789012-abcdefABCDEF now", "use <SECRET_1> now", id="slack"),
        pytest.param(
            "postgres://app:S3cr3t@db:5432/x",
            "postgres://app:<SECRET_1>@db:5432/x",
            id="password-in-url",
        ),
        pytest.param(
            '"client_secret": "9f8e7d6c5b4a39281706f5e4"',
            '"client_secret": "<SECRET_1>"',
            id="secret-after-keyword",
        ),
        pytest.param(
            "the password must be 12 characters",
            "the password must be 12 characters",
            id="password-prose",
        ),
        pytest.param(
            "-----BEGIN PRIVATE KEY-----\nMIIEvQ==\n-----END PRIVATE KEY-----",
            "<SECRET_1>",
            id="pem",
        ),
    ],
)
def test_builtin_types(text: str, expected: str) -> None:
    assert Redactor([DETECTOR]).redact_text(text).text == expected


def test_hmac_tokens_are_stable_across_traces_and_depend_on_the_key() -> None:
    text = "anna@example.com wrote to omar@example.org"
    first = Redactor([DETECTOR], default_mode="hmac", hmac_key=b"key-1").redact_text(text).text
    again = Redactor([DETECTOR], default_mode="hmac", hmac_key=b"key-1").redact_text(text).text
    other = Redactor([DETECTOR], default_mode="hmac", hmac_key=b"key-2").redact_text(text).text
    assert first == again
    assert first != other
    tokens = first.split(" wrote to ")
    assert all(t.startswith("<EMAIL_") and len(t) == len("<EMAIL_>") + 16 for t in tokens)
    assert tokens[0] != tokens[1]


def test_modes_per_type_and_drop() -> None:
    redactor = Redactor([DETECTOR], modes={"PHONE": "drop"})
    assert redactor.redact_text("a@example.com (415) 555-2671 x").text == "<EMAIL_1>  x"


def test_hmac_mode_without_a_key_is_refused() -> None:
    with pytest.raises(ValueError, match="key"):
        Redactor([DETECTOR], modes={"EMAIL": "hmac"})


def test_allow_list_keeps_listed_values() -> None:
    redactor = Redactor([DETECTOR], allow=["Support@Example.com"])
    assert (
        redactor.redact_text("support@example.com or anna@example.com").text
        == "support@example.com or <EMAIL_1>"
    )


def test_custom_pattern_replaces_its_group() -> None:
    redactor = Redactor([DETECTOR, RegexDetector("EMPLOYEE_ID", r"\bemp-(\d{6})\b")])
    assert redactor.redact_text("emp-123456 and emp-123456").text == (
        "emp-<EMPLOYEE_ID_1> and emp-<EMPLOYEE_ID_1>"
    )


def test_types_can_be_switched_off() -> None:
    redactor = Redactor([PatternDetector(["EMAIL"])])
    assert redactor.redact_text("a@example.com 203.0.113.7").text == "<EMAIL_1> 203.0.113.7"


class _Broken:
    name = "broken"

    def detect(self, text: str) -> list[Entity]:
        raise RuntimeError(text)


def test_a_failing_detector_withholds_the_text_and_logs_no_content(
    caplog: pytest.LogCaptureFixture,
) -> None:
    redactor = Redactor([DETECTOR, _Broken()])
    scope = Scope()
    with caplog.at_level(logging.DEBUG):
        result = redactor.redact_text("anna@example.com", scope)
    assert result.text == "<REDACTED>"
    assert scope.counts == {"REDACTION_ERROR": 1}
    assert "anna" not in caplog.text
    assert "broken" in caplog.text


class _Panicking:
    """A detector whose engine panics, through the engine's own guard."""

    name = "panicking"

    def detect(self, text: str) -> list[Entity]:
        _native._panic_in_engine()
        return []


def test_a_panic_in_the_engine_withholds_the_text_and_prints_nothing(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """pyo3 raises a panic as PanicException, a BaseException that no `except Exception`
    catches: one text would stop the service. The guard makes it a RuntimeError, and the
    panic's message (which may quote the text) is not printed."""
    with pytest.raises(RuntimeError, match="the redaction engine failed on this text"):
        _native._panic_in_engine()
    redactor = Redactor([_Panicking()])
    scope = Scope()
    assert redactor.redact_text("call 555-201-7731", scope).text == "<REDACTED>"
    assert scope.counts == {"REDACTION_ERROR": 1}
    captured = capfd.readouterr()
    assert "555-201-7731" not in captured.err + captured.out
    assert redactor.redact_text("call 555-201-7731").text == "<REDACTED>"  # and again


def test_trace_fields_urls_and_extra_are_redacted_with_one_numbering() -> None:
    trace = make_trace(
        question="I am anna@example.com",
        answer="Write to anna@example.com [S1].",
        sources=[
            {
                "id": "S1",
                "title": "Ticket from omar@example.org",
                "text": "Customer anna@example.com, phone (415) 555-2671.",
                "url": "https://crm.example.com/t?email=omar%40example.org&page=2",
            },
            {
                "id": "S2",
                "title": "Plain",
                "text": "No data.",
                "url": "https://docs.example.com/refunds?page=2",
            },
        ],
        claims=[
            {
                "id": "c1",
                "text": "Write to anna@example.com.",
                "citation_ids": ["S1"],
                "importance": 3,
            }
        ],
        crm_note="call (415) 555-2671",
    )
    redacted, counts = Redactor([DETECTOR]).redact(trace)
    assert redacted.question == "I am <EMAIL_1>"
    assert redacted.answer == "Write to <EMAIL_1> [S1]."
    assert redacted.claims[0].text == "Write to <EMAIL_1>."
    assert redacted.sources[0].title == "Ticket from <EMAIL_2>"
    assert redacted.sources[0].text == "Customer <EMAIL_1>, phone <PHONE_1>."
    assert redacted.sources[0].url == "https://crm.example.com/t?email=<EMAIL_2>&page=2"
    assert redacted.sources[1].url == "https://docs.example.com/refunds?page=2"
    assert redacted.extra == {"crm_note": "call <PHONE_1>"}
    assert counts == {"EMAIL": 6, "PHONE": 2}
    assert redacted.trace_id == trace.trace_id
    assert Redactor([DETECTOR]).redact(redacted) == (redacted, {})
