"""Values as people write and disguise them (tests/fixtures/redaction/written_forms.jsonl).

A value counts as redacted when every letter and digit of it lies inside a detected entity
(what leaks is what counts); an IBAN read as a card number anywhere inside it counts as a
miss, since the rest of its bank and account digits stay in clear. Hard negatives (dates,
year ranges, section numbers) must produce no entity.
"""

from __future__ import annotations

import pytest

from sidecar.config import RedactionSettings
from sidecar.redaction import build_redactor
from tests.redaction.build_written_forms import build
from tests.support.redaction_corpus import class_scores
from tests.support.redaction_corpus import written_forms as _lines

RECALL_FLOOR = 0.95
CLEAN_FLOOR = 0.95
REDACTOR = build_redactor(RedactionSettings())


def test_the_fixture_is_what_the_writers_write() -> None:
    assert _lines() == build()


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_every_class_meets_its_floor(split: str) -> None:
    scores = class_scores([line for line in _lines() if line["split"] == split])
    below = {
        name: (ok, n)
        for name, (ok, n) in scores.items()
        if ok / n < (CLEAN_FLOOR if name.startswith("negative_") else RECALL_FLOOR)
    }
    assert len(scores) >= 55
    assert below == {}


@pytest.mark.parametrize(
    "text, value",
    [
        pytest.param(
            "IBAN FR 76 3000 6000 0112 3456 7890 189 ok",
            "FR 76 3000 6000 0112 3456 7890 189",
            id="space-after-country",
        ),
        pytest.param(
            "to FR 7630006000011234567890189.",
            "FR 7630006000011234567890189",
            id="unbroken-after-spaced-country",
        ),
        pytest.param(
            "de89-3704-0044-0532-0130-00 please", "de89-3704-0044-0532-0130-00", id="dashes"
        ),
        pytest.param("GB29.NWBK.6016.1331.9268.19", "GB29.NWBK.6016.1331.9268.19", id="dots"),
        pytest.param(
            "ref AB12 DE89 3704 0044 0532 0130 00 thanks",
            "DE89 3704 0044 0532 0130 00",
            id="after-a-code",
        ),
    ],
)
def test_an_iban_is_one_entity_over_its_written_span(text: str, value: str) -> None:
    entities = REDACTOR.detect(text) or []
    start = text.index(value)
    assert [(e.type, e.start, e.end) for e in entities] == [("IBAN", start, start + len(value))]


def test_the_same_iban_written_two_ways_is_one_placeholder() -> None:
    redacted = REDACTOR.redact_text(
        "FR76 3000 6000 0112 3456 7890 189 or fr 76-3000-6000-0112-3456-7890-189"
    ).text
    assert redacted == "<IBAN_1> or <IBAN_1>"


@pytest.mark.parametrize(
    "text, value, kind",
    [
        pytest.param(
            "ssn 123-4\u200b5-6789 ok", "123-4\u200b5-6789", "US_SSN", id="zero-width-space"
        ),
        pytest.param(
            "call \uff15\uff15\uff15-\uff12\uff10\uff11-\uff17\uff17\uff13\uff11 now",
            "\uff15\uff15\uff15-\uff12\uff10\uff11-\uff17\uff17\uff13\uff11",
            "PHONE",
            id="full-width-digits",
        ),
        pytest.param(
            "call 555\u2013201\u20137731 now", "555\u2013201\u20137731", "PHONE", id="en-dash"
        ),
        pytest.param(
            "call 555\u202f201\u202f7731 now",
            "555\u202f201\u202f7731",
            "PHONE",
            id="narrow-no-break-space",
        ),
        pytest.param("mail jane&#64;example.com now", "jane&#64;example.com", "EMAIL", id="entity"),
        pytest.param(
            "mail jane\uff20example.com now", "jane\uff20example.com", "EMAIL", id="full-width-at"
        ),
    ],
)
def test_a_disguised_value_is_found_and_its_original_span_replaced(
    text: str, value: str, kind: str
) -> None:
    start = text.index(value)
    entities = REDACTOR.detect(text) or []
    assert [(e.type, e.start, e.end) for e in entities] == [(kind, start, start + len(value))]
    assert REDACTOR.redact_text(text).text == text.replace(value, f"<{kind}_1>")


def test_a_disguised_value_shares_the_plain_values_placeholder() -> None:
    assert REDACTOR.redact_text("555-201-7731 and 555\u2013201\u20137731").text == (
        "<PHONE_1> and <PHONE_1>"
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Thu 18 Feb 2016 08.50", id="date-and-time"),
        pytest.param("in 1941\u201346 and 2019/20", id="year-ranges"),
        pytest.param("see section 4.2.1.3 and \u00a7 12.4.1.2", id="section-numbers"),
        pytest.param("R&D costs &amp; the &#9731; sign", id="plain-references"),
    ],
)
def test_hard_negatives_stay(text: str) -> None:
    assert REDACTOR.redact_text(text).text == text


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("from ::ffff:10.0.0.1 today", "from <IP_ADDRESS_1> today", id="v4-mapped"),
        pytest.param("nat64 64:ff9b::192.0.2.33", "nat64 <IP_ADDRESS_1>", id="nat64"),
        pytest.param("at 10.0.0.1:8080", "at <IP_ADDRESS_1>:8080", id="with-port"),
        pytest.param("Tax ID: 123-45-6789", "Tax ID: <US_SSN_1>", id="tax-id"),
        pytest.param("My ID is 5552017731", "My ID is <PHONE_1>", id="my-id"),
    ],
)
def test_newly_caught_forms(text: str, expected: str) -> None:
    assert REDACTOR.redact_text(text).text == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param(
            "password=Zk3pQ9vLm2Xw7RtY, later I typed Zk3pQ9vLm2Xw7RtY again",
            "password=<SECRET_1>, later I typed <SECRET_1> again",
            id="repeated",
        ),
        pytest.param(
            'System.setProperty("db.password", "s3cr3tP4ss!")',
            'System.setProperty("db.password", "<SECRET_1>")',
            id="quoted-value-whole",
        ),
        pytest.param(
            "<password>\n  Sup3rS3cret!\n</password>",
            "<password>\n  <SECRET_1>\n</password>",
            id="xml-element",
        ),
        pytest.param("docker run -p 8080:80 nginx", "docker run -p 8080:80 nginx", id="port-stays"),
        pytest.param("the password is required", "the password is required", id="prose-stays"),
        pytest.param(
            "curl -u admin:Pa55w0rd https://api.example.com",
            "curl -u admin:<SECRET_1> https://api.example.com",
            id="curl",
        ),
    ],
)
def test_secret_forms(text: str, expected: str) -> None:
    assert REDACTOR.redact_text(text).text == expected
