"""The checksums and parsers of the native engine agree with the libraries that define them."""

from __future__ import annotations

import base64
import ipaddress
import json
import math
import random
import string
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import iban as stdnum_iban
from stdnum import luhn

from sidecar.redaction._native import entropy, iban_key, ip_key, jwt_ok, luhn_valid
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


def _ipaddress_key(candidate: str) -> str | None:
    try:
        expected: str | None = str(ipaddress.ip_address(candidate))
    except ValueError:
        return None
    colons = candidate.count(":")
    if ":" in candidate and "::" not in candidate and colons < 7:
        # a shortened address needs "::" (this is a time or a ratio), unless six hextets
        # come before an IPv4 address written out: 1:2:3:4:5:6:1.2.3.4
        if not (colons == 6 and "." in candidate):
            return None
    if ":" in candidate and not any(ch.isdigit() for ch in candidate):
        return None  # "::", "a:b::c": no digit, no address worth redacting
    return expected


@pytest.mark.parametrize(
    "candidate",
    [
        "203.0.113.7",
        "10.0.0.1",
        "256.1.1.1",
        "01.2.3.4",
        "2001:db8::1",
        "::1",
        "fe80::1%eth0",
        "10:30:45",
        "1:2:3:4:5:6:7:8",
        "a:b:c",
        "2001:db8:0:0:0:0:2:1",
        "::ffff:1.2.3.4",
        "::",
        "1::",
        "1:0:0:2:0:0:0:3",
        "0:0:0:0:0:0:0:1",
        "1:2:3:4:5:6:1.2.3.4",
        "1::2::3",
        ":1:2::",
        "1:2:3:4:5:6:7:8:9",
        "12345::1",
        "1.2.3",
        "1.2.3.4.5",
        "fe80::1%",
        "::1/64",
        "1:2:3:4:5:6:7::",
    ],
)
def test_ip_keys_match_ipaddress(candidate: str) -> None:
    assert ip_key(candidate) == _ipaddress_key(candidate)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="0123456789abcdefABCDEF:.", min_size=1, max_size=45))
def test_ip_keys_match_ipaddress_on_any_candidate(candidate: str) -> None:
    assert ip_key(candidate) == _ipaddress_key(candidate)


def _python_jwt_ok(candidate: str) -> bool:
    header = candidate.split(".", 1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except ValueError:
        return False
    return isinstance(decoded, dict) and ("alg" in decoded or "typ" in decoded)


def test_a_jwt_needs_a_json_header() -> None:
    assert jwt_ok("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.sig")
    assert not jwt_ok("eyJub3Rqc29u.eyJzdWIiOiIxIn0.sig")


@pytest.mark.parametrize(
    "header",
    [
        '{"alg":"HS256","typ":"JWT"}',
        '{"typ":"x"}',
        '{"a":1}',
        "[1]",
        '{"alg":NaN}',
        '{"al\\u0067":1}',
        '{"alg":1,}',
        '{ "typ" : [1, {"x": -0.5e+3}] }',
        "nope",
        '"alg"',
        '{"alg":"\\ud800"}',
        '{"alg":1} x',
        '{"alg":01}',
        '{"alg":-Infinity}',
        '{"x":{"alg":1}}',
        '{"alg":1e}',
        '{"alg":"a\tb"}',
        '{"alg":tru}',
        ' {"typ":null}\n',
        '{"alg":[1,2,]}',
    ],
)
def test_jwt_headers_are_read_by_pythons_json_rules(header: str) -> None:
    encoded = base64.urlsafe_b64encode(header.encode()).decode()
    for cut in (len(encoded), len(encoded.rstrip("=")), len(encoded) - 1):
        token = f"{encoded[:cut]}.eyJzdWIiOiIxIn0.sig"
        assert jwt_ok(token) == _python_jwt_ok(token), token


@given(st.text(min_size=1, max_size=60))
def test_entropy_is_the_shannon_formula(value: str) -> None:
    counts = Counter(value)
    expected = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    assert entropy(value) == pytest.approx(expected)


@settings(max_examples=500, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["alg", "typ", "kid", "x"]),
        st.none() | st.integers() | st.text(max_size=5),
        max_size=3,
    ),
    st.integers(0, 40),
    st.text(alphabet="=.!é", max_size=2),
)
def test_jwt_headers_agree_with_python_on_any_cut(
    header: dict[str, object], cut: int, noise: str
) -> None:
    encoded = base64.urlsafe_b64encode(json.dumps(header).encode()).decode()
    token = f"{encoded[:cut] + noise}.eyJzdWIiOiIxIn0.sig"
    assert jwt_ok(token) == _python_jwt_ok(token)
