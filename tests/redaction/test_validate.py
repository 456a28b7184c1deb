"""The checksums and parsers agree with the libraries that define them."""

from __future__ import annotations

import ipaddress
import math
import random
import string
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import iban as stdnum_iban
from stdnum import luhn

from sidecar.redaction._validate import entropy, iban_key, ip_key, jwt_ok, luhn_valid
from tests.redaction.build_corpus import make_iban


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=string.digits, min_size=1, max_size=24))
def test_the_luhn_check_is_stdnums(digits: str) -> None:
    assert luhn_valid(digits) == luhn.is_valid(digits)


def test_iban_keys_accept_what_stdnum_accepts_in_any_case_and_grouping() -> None:
    rng = random.Random(7)
    for _ in range(300):
        value = make_iban(rng)
        compact = value.replace(" ", "").upper()
        assert iban_key(value) == compact
        assert iban_key(value.lower()) == compact
        if stdnum_iban.is_valid(compact):
            broken = compact[:-1] + str((int(compact[-1], 36) + 1) % 10)
            assert iban_key(broken) is None or stdnum_iban.is_valid(broken)


@pytest.mark.parametrize("candidate", [
    "203.0.113.7", "10.0.0.1", "256.1.1.1", "01.2.3.4", "2001:db8::1", "::1", "fe80::1%eth0",
    "10:30:45", "1:2:3:4:5:6:7:8", "a:b:c", "2001:db8:0:0:0:0:2:1",
])
def test_ip_keys_match_ipaddress(candidate: str) -> None:
    try:
        expected: str | None = str(ipaddress.ip_address(candidate))
    except ValueError:
        expected = None
    if expected is not None and ":" in candidate and "::" not in candidate \
            and candidate.count(":") < 7:
        expected = None  # a shortened address needs "::"; this is a time or a ratio
    assert ip_key(candidate) == expected


def test_a_jwt_needs_a_json_header() -> None:
    assert jwt_ok("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.sig")
    assert not jwt_ok("eyJub3Rqc29u.eyJzdWIiOiIxIn0.sig")


@given(st.text(min_size=1, max_size=60))
def test_entropy_is_the_shannon_formula(value: str) -> None:
    counts = Counter(value)
    expected = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    assert entropy(value) == pytest.approx(expected)
