"""The fast scan finds what one pass of the plain alternation of ALTERNATIVES finds.

PatternDetector merges per-group finders (literal triggers, regexes rewritten to start with a
character set, gates); the reference here is the definition they must keep: one combined
regex, the leftmost match and the first alternative at that position, validated, then on
after a find or one character after a miss.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sidecar.redaction import BUILTIN_TYPES, Entity, PatternDetector
from sidecar.redaction._patterns import ALTERNATIVES, FINDERS, GROUP_TYPES, family_finder
from sidecar.redaction._scanner import _GATE_PARTS, _GATES
from tests.redaction.build_corpus import GENERATORS, NEGATIVE
from tests.redaction.corpus_eval import load_corpus


def reference_detect(detector: PatternDetector, text: str) -> list[Entity]:
    """The scan by the plain alternation, with the detector's own validators."""
    validators = detector._validators
    regex = re.compile("|".join(f"(?P<{group}>{pattern})" for group, pattern in ALTERNATIVES
                                if group in validators))
    found: list[Entity] = []
    pos = 0
    while (match := regex.search(text, pos)) is not None:
        new = validators[match.lastgroup or ""](match.start(), match, text)
        pos = min(max(e.end for e in new), match.end()) if new else match.start() + 1
        found.extend(new)
    return found


DETECTORS = [
    pytest.param(PatternDetector(), id="all-types"),
    pytest.param(PatternDetector(["PHONE", "EMAIL"]), id="phone-email"),
    pytest.param(PatternDetector(["IBAN", "IP_ADDRESS", "SECRET"]), id="iban-ip-secret"),
    pytest.param(PatternDetector(["CREDIT_CARD", "US_SSN"], phone_region="GB"), id="card-ssn"),
]

_PIECES = [
    "refund", "key", "token", "API_KEY", "password", "Secret", "session token", "is", ":",
    "=", "@", "://", "user:pw@", "+", "(", ")", "-", ".", "/", "#", "$", "v", "version",
    "SSN", "call", "fax", "1", "12", "123", "4111", "555", "2671", "10.0", "::", "fe80",
    "2001:db8", "DE89", "GB", "AKIA", "sk-", "ghp_", "xoxb-", "eyJ", "-----BEGIN", "é", "K",
    "\u00a0", "\n", " ", "  ", "2024-03-15", "415", "(415)", "+1", "+44", "0",
]
PROSE = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


def _value(entity_type: str, seed: int) -> str:
    return GENERATORS[entity_type](random.Random(seed))


SEEDED = st.lists(
    st.one_of(PROSE, st.builds(_value, st.sampled_from(sorted(GENERATORS)),
                               st.integers(0, 2**32)),
              st.sampled_from(NEGATIVE)),
    min_size=1, max_size=5,
).flatmap(lambda parts: st.sampled_from([" ", "", ", ", ":", "="]).map(
    lambda sep: sep.join(parts)))


@pytest.mark.parametrize("detector", DETECTORS)
def test_the_scan_equals_the_alternation_on_the_corpus(detector: PatternDetector) -> None:
    texts = [line["text"] for line in load_corpus()]
    assert [detector.detect(t) for t in texts] == [reference_detect(detector, t) for t in texts]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(PROSE, SEEDED, st.text(max_size=120)))
def test_the_scan_equals_the_alternation_on_generated_text(text: str) -> None:
    for detector in (PatternDetector(), PatternDetector(["PHONE", "IP_ADDRESS"])):
        assert detector.detect(text) == reference_detect(detector, text)


@settings(max_examples=200, deadline=None)
@given(st.one_of(PROSE, SEEDED, st.text(max_size=80)), st.data())
def test_each_finder_returns_its_alternatives_leftmost_match(
    text: str, data: st.DataObject
) -> None:
    pos = data.draw(st.integers(0, len(text)))
    for group, pattern in ALTERNATIVES:
        regex = re.compile(pattern)
        finder = FINDERS.get(group) or family_finder(frozenset({group}))
        assert finder is not None
        expected = regex.search(text, pos)
        hit = finder(text, pos)
        if expected is None:
            assert hit is None, group
        else:
            assert hit is not None, group
            assert (hit[0], hit[1].end()) == expected.span(), group


def test_every_builtin_type_has_a_group() -> None:
    covered = {t for group, _ in ALTERNATIVES for t in GROUP_TYPES[group]}
    assert covered == set(BUILTIN_TYPES)


def test_every_gate_holds_one_of_the_parts_detect_tests_first() -> None:
    assert all(any(part in gate for part in _GATE_PARTS) for gate in _GATES.values())
