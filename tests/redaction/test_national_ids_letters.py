"""National identifiers with letters beyond the first six: the Finnish personal identity code,
the German pension insurance number, the Singapore NRIC and FIN, the Irish PPS number, the
Chinese resident identity number ending in X, the Taiwanese identification number and the
Portuguese citizen card number. A value of the shape is redacted whether or not its check
holds; a word naming a thing's code keeps only one whose check fails."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sidecar.redaction import PatternDetector, Redactor
from tests.redaction._cli import check, record_claims, redact
from tests.redaction.test_properties import PROSE
from tests.support.national_ids import GENERATORS

WRITTEN = [
    pytest.param("131052-308T", id="fi-hetu"),
    pytest.param("131052-308t", id="fi-hetu-lower-case"),
    pytest.param("010101A123N", id="fi-hetu-2000s"),
    pytest.param("15 070649 C 103", id="de-rvnr-grouped"),
    pytest.param("15070649C103", id="de-rvnr-compact"),
    pytest.param("S1234567D", id="sg-nric"),
    pytest.param("s1234567d", id="sg-nric-lower-case"),
    pytest.param("T0012345J", id="sg-nric-2000s"),
    pytest.param("M1234567K", id="sg-fin-m-series-shape"),
    pytest.param("1234567T", id="ie-pps"),
    pytest.param("1234567TW", id="ie-pps-second-letter"),
    pytest.param("11010519491231002X", id="cn-ric"),
    pytest.param("11010519491231002x", id="cn-ric-lower-case"),
    pytest.param("A123456789", id="tw-id"),
    pytest.param("00000000 0 ZZ4", id="pt-cc"),
    pytest.param("000000000ZZ4", id="pt-cc-compact"),
    # a wrong check character is still someone's identifier, mistyped
    pytest.param("131052-308U", id="fi-hetu-wrong-check"),
    pytest.param("15070649C104", id="de-rvnr-wrong-check"),
    pytest.param("S1234567A", id="sg-nric-wrong-check"),
]


@pytest.mark.parametrize("value", WRITTEN)
def test_every_written_form_is_redacted(value: str) -> None:
    assert redact([f"Details: {value}, thanks."]) == ["Details: <NATIONAL_ID_1>, thanks."]


@pytest.mark.parametrize("country", sorted(GENERATORS))
def test_valid_values_are_redacted_after_any_word(country: str) -> None:
    rng = random.Random(country)
    values = [GENERATORS[country](rng) for _ in range(25)]
    texts = [f"{word} {v}, thanks." for v in values for word in ("Record:", "order", "ref")]
    assert redact(texts) == [
        f"{word} <NATIONAL_ID_1>, thanks." for _ in values for word in ("Record:", "order", "ref")
    ]


def test_a_things_code_whose_check_fails_stays() -> None:
    kept = ["order 1234567A", "part no. 15070649C104", "SKU 131052-308U", "model A123456780"]
    assert redact(kept) == kept


def test_identifiers_reach_neither_the_judge_nor_the_record(tmp_path: Path) -> None:
    values = ["131052-308T", "15 070649 C 103", "S1234567D"]
    requests, records = check(values, tmp_path)
    for value in values:
        assert value not in requests and value not in records
    assert record_claims(records) == ["On file: <NATIONAL_ID_1>."] * 3


REDACTOR = Redactor([PatternDetector()])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROSE, PROSE, st.sampled_from(sorted(GENERATORS)), st.integers(0, 2**32))
def test_a_seeded_identifier_never_survives(
    before: str, after: str, country: str, seed: int
) -> None:
    value = GENERATORS[country](random.Random(seed))
    redacted = REDACTOR.redact_text(f"{before} {value}, {after}")
    assert value not in redacted.text
    start, end = len(before) + 1, len(before) + 1 + len(value)
    covering = [e for e in redacted.entities if e.start < end and e.end > start]
    # Typed as what it is, unless a number before it made a longer run of it ("100 15 070649
    # C 103": the digits before the letter read as a phone number, the rest as an identifier).
    assert any(e.type == "NATIONAL_ID" or e.start < start for e in covering)
