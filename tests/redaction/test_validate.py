"""The shortcuts in the validators decide exactly what the libraries they stand for decide.

phonenumbers' parse and is_valid_number, stdnum's IBAN validation, ipaddress, the version
context regex and the entropy formula are the references; the validators take cheaper paths
for common shapes and must agree with them on every input, valid or not.
"""

from __future__ import annotations

import ipaddress
import math
import random
import re
import string
from collections import Counter
from unittest import mock

import phonenumbers
import stdnum
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import iban as stdnum_iban
from stdnum import luhn

from sidecar.redaction._phone import plain_number, valid_number
from sidecar.redaction._validate import (
    _NANP_GROUPS,
    _NANP_SHAPE,
    _SHORT_DOT_GROUP,
    _VERSION_CONTEXT,
    _entropy,
    _luhn_valid,
    _version_before,
    digits_of,
    iban_key,
    ip_key,
    phone_key,
)


def _library_phone(digits: str, international: bool, region: str) -> str | None:
    try:
        number = phonenumbers.parse(("+" if international else "") + digits,
                                    None if international else region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def _phone_cases(count: int, seed: int) -> list[tuple[str, bool, str]]:
    rng = random.Random(seed)
    codes = sorted(phonenumbers.COUNTRY_CODE_TO_REGION_CODE)
    examples = [phonenumbers.example_number(r) for r in sorted(phonenumbers.SUPPORTED_REGIONS)]
    cases = []
    for _ in range(count):
        region = rng.choice(["US", "CA", "GB", "DE", "FR"])
        kind = rng.random()
        if kind < 0.3:
            example = rng.choice([e for e in examples if e is not None])
            digits = str(example.country_code) + phonenumbers.national_significant_number(example)
            cases.append((digits, True, region))
        elif kind < 0.7:
            digits = str(rng.choice(codes)) + "".join(
                rng.choice(string.digits) for _ in range(rng.randint(4, 14)))
            cases.append((digits, True, region))
        else:
            digits = "".join(rng.choice(string.digits) for _ in range(rng.randint(7, 12)))
            cases.append((digits, False, region))
    return cases


def test_plain_phone_numbers_read_and_validate_as_phonenumbers_does() -> None:
    decided = 0
    for digits, international, region in _phone_cases(2500, seed=11):
        plain = plain_number(digits, international=international, region=region)
        if plain is None:
            continue
        valid = valid_number(*plain)
        if valid is None:
            continue
        decided += 1
        ours = f"+{plain[0]}{plain[1]}" if valid else None
        assert ours == _library_phone(digits, international, region), (digits, international)
    assert decided > 1200  # the shortcut covers most shapes, and some of them are valid


_SEPARATORS = ["", " ", "-", ".", "\u00a0"]


def _phone_candidates(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    examples = [e for e in (phonenumbers.example_number(r)
                            for r in sorted(phonenumbers.SUPPORTED_REGIONS)) if e is not None]
    candidates = []
    for _ in range(count):
        if rng.random() < 0.5:
            example = rng.choice(examples)
            digits = phonenumbers.national_significant_number(example)
            prefix = f"+{example.country_code} " if rng.random() < 0.7 else ""
        else:
            digits = "".join(rng.choice(string.digits) for _ in range(rng.randint(7, 13)))
            prefix = rng.choice(["", "+", "+1 ", "(", "1 "])
        groups, i = [], 0
        while i < len(digits):
            size = rng.randint(1, 5)
            groups.append(digits[i:i + size])
            i += size
        candidates.append(prefix + rng.choice(_SEPARATORS).join(groups))
    return candidates


def test_phone_keys_with_and_without_the_shortcut_agree() -> None:
    candidates = _phone_candidates(1500, seed=3)
    fast = [phone_key(c, "call ", region) for c in candidates for region in ("US", "GB")]
    # The narrow seam: without the shortcut, phone_key hands every candidate to phonenumbers.
    with mock.patch("sidecar.redaction._validate.plain_number", return_value=None):
        slow = [phone_key(c, "call ", region) for c in candidates for region in ("US", "GB")]
    assert fast == slow
    assert sum(key is not None for key in fast) > 250


def _iban_cases(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    structures = {}
    with open(f"{stdnum.__path__[0]}/iban.dat", encoding="utf-8") as registry:
        for line in registry:
            if m := re.match(r'(\w\w) .*bban="([^"]*)"', line):
                structures[m.group(1)] = m.group(2)
    letters = {"n": string.digits, "a": string.ascii_uppercase,
               "c": string.digits + string.ascii_uppercase}
    to_digits = str.maketrans({c: str(ord(c) - 55) for c in string.ascii_uppercase})
    cases = []
    for _ in range(count):
        country = rng.choice([*structures, "XX"])
        if country in structures and rng.random() < 0.8:
            bban = "".join(rng.choice(letters[kind]) for size, kind in
                           re.findall(r"(\d+)!([nac])", structures[country])
                           for _ in range(int(size)))
        else:
            bban = "".join(rng.choice(string.digits + "AB") for _ in range(rng.randint(11, 30)))
        check = "00"
        if rng.random() < 0.7:
            check = f"{98 - int((bban + country + '00').translate(to_digits)) % 97:02d}"
        value = country + check + bban
        if rng.random() < 0.5:
            value = " ".join(value[i:i + 4] for i in range(0, len(value), 4))
        cases.append(value)
    return cases


def _stdnum(value: str) -> str | None:
    try:
        return str(stdnum_iban.validate(value))
    except Exception:
        return None


def test_iban_keys_match_stdnum() -> None:
    cases = _iban_cases(1500, seed=5)
    expected = [_stdnum(value) for value in cases]
    assert [iban_key(value) for value in cases] == expected
    assert sum(e is not None for e in expected) > 500


_OCTETS = ["0", "00", "01", "1", "9", "10", "99", "100", "199", "249", "250", "255", "256",
           "300", "999", "007"]
_HEXTETS = ["", "0", "1", "db8", "2001", "ffff", "FFFF", "0db8", "12345", "g1", "1.2.3.4"]


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.lists(st.sampled_from(_OCTETS), min_size=3, max_size=5).map(".".join),
    st.lists(st.sampled_from(_HEXTETS), min_size=2, max_size=10).map(":".join),
))
def test_ip_keys_match_ipaddress(candidate: str) -> None:
    try:
        expected: str | None = str(ipaddress.ip_address(candidate))
    except ValueError:
        expected = None
    if ":" in candidate and (not any(c.isdigit() for c in candidate)
                             or ("::" not in candidate and candidate.count(":") < 7)):
        expected = None  # ip_key's own rules for colon runs such as times
    assert ip_key(candidate, "from ") == expected


_TAIL_WORDS = ["v", "V", "version", "VERSION", "ver", "ver.", "release", "build", "python",
               "paragraph", "para.", "section", "subversion", "x", "2", "_v", ":", " ", "\t",
               "\n", "§", "é", "ſection", "at", "1.2"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_TAIL_WORDS),
                          st.sampled_from(["", " ", ":", " : ", "."])),
                max_size=5).map(lambda parts: "".join(a + b for a, b in parts)))
def test_the_version_word_check_matches_its_regex(before: str) -> None:
    assert _version_before(before) == (_VERSION_CONTEXT.search(before[-16:]) is not None)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789 .-()+", max_size=20))
def test_digit_group_shapes_match_their_definitions(candidate: str) -> None:
    runs = tuple(len(run) for run in re.findall(r"\d+", candidate))
    assert (_NANP_SHAPE.fullmatch(candidate) is not None) == (runs in _NANP_GROUPS)
    short = any(len(re.sub(r"\D", "", group)) < 2 for group in candidate.split("."))
    assert (_SHORT_DOT_GROUP.search(candidate) is not None) == short


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=200))
def test_entropy_is_the_shannon_formula_bit_for_bit(value: str) -> None:
    total = len(value)
    expected = -sum(n / total * math.log2(n / total) for n in Counter(value).values())
    assert _entropy(value) == expected


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=string.digits, min_size=1, max_size=25))
def test_the_luhn_check_is_stdnums(digits: str) -> None:
    assert _luhn_valid(digits) == luhn.is_valid(digits)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789 ().+-\u00a0x٣²") + ["é"]), max_size=30))
def test_digits_of_keeps_the_decimal_digits(value: str) -> None:
    assert digits_of(value) == re.sub(r"\D", "", value)
