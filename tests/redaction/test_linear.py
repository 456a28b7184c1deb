"""Time linear in the text, whatever the text: each detector's trigger repeated.

For every trigger, redacting 256 KB of it must cost less than 8 times redacting 64 KB of it
(linear is 4 times; quadratic would be 16). The ratio is measured here, in the same run, the
best of five tries of each size in CPU time, taking turns, so that a busy machine's slow
spell does not count. The same holds for a configured custom pattern and marker pattern that
backtracking engines take exponential time on, and patterns that need backtracking are
refused at start-up.
"""

from __future__ import annotations

import time

import pytest

from sidecar.checks.markers import MarkerParser
from sidecar.config import load_settings
from sidecar.errors import ConfigError
from sidecar.redaction import PatternDetector, Redactor, RegexDetector

SMALL, LARGE = 64 * 1024, 256 * 1024
LIMIT = 8.0
REDACTOR = Redactor([PatternDetector(), RegexDetector("CUSTOM", r"(a+)+!")])
# The built-in detectors alone (REDACTOR adds a Python detector beside them).
ENGINE_REDACTOR = Redactor([PatternDetector()])

TRIGGERS = [
    # e-mail and its obfuscations
    "a@b.co ",
    "jane@",
    "@",
    "x.y@example",
    "jane at example dot ",
    "x [at] ",
    " at ",
    # numbers: phones, cards, SSNs
    "+1 ",
    "415 555 2671 ",
    "1 ",
    "12",
    "(0) ",
    "+(",
    "2024-03-15 ",
    "4111 1111 1111 1111 ",
    "536-22-1234 ",
    "0",
    "5 ",
    "x1 ",
    "1.2.",
    "$1 ",
    "(1) ",
    # IBAN, IP addresses
    "DE89 ",
    "gb82west1234 ",
    "DE89",
    "1.2.3.4.",
    "::",
    ":a:",
    "1:",
    # national identifiers with letters, and what passes their cheap test without being one
    "CNDLGO39P18C121E ",
    "ZZ 30 03 03 T ",
    "12.345.678-Z ",
    "X1234567L",
    "AB 12 ",
    "1 a ",
    "1AB",
    "abcdefghijklmnop ",
    "131052-308T ",
    "15 070649 C 103 ",
    "S1234567D",
    "1234567TW ",
    "1 ZZ4 ",
    # IPv6 written out around IPv4, hyphen-glued values, wide IBAN gaps
    "1:2:3:4:5:6:1.2.3.4 ",
    "cust-0151-555-0142 ",
    "DE89  3704  ",
    "4111.1111.",
    # digits one at a time, underscore-glued values, lists of numbers
    "4 1 1 1 - ",
    "1 2 3 - 4 5 - ",
    "cust_4111 1111 ",
    "id_",
    "12 15 18 ",
    # secrets
    "password ",
    "password=",
    "key: ",
    "api_key=",
    "token is ",
    "aws_secret_access_key = ",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    "-----BEGIN PRIVATE KEY-----",
    "eyJ",
    "eyJhbGciOiJIUzI1NiJ9.",
    "https://a:",
    "a://b:c@",
    "sk-",
    "AKIA",
    "ghp_",
    "xoxb-",
    "Bearer ",
    '"secret": "',
    '"api_token" => "',
    "$c['pw']",
    "a :::= ",
    "==",
    "a" * 86 + "==",
    "SharedAccessKey=",
    "jdbc:oracle:thin:a/",
    "redis://:",
    "the password is ",
    # numbers after a word naming a thing
    "order 555-201-7731 ",
    "case 0161 ",
    # placeholders and the custom pattern's worst case
    "<EMAIL_1> a@b.co ",
    "<A",
    "a",
]


def _seconds(redact: object, text: str) -> float:
    # This process's CPU time: the work done, not the time other processes on a loaded
    # machine held the core.
    start = time.process_time()
    redact(text)  # type: ignore[operator]
    return time.process_time() - start


def _ratio(redact: object, unit: str) -> float:
    small = (unit * (SMALL // len(unit) + 1))[:SMALL]
    large = (unit * (LARGE // len(unit) + 1))[:LARGE]
    # Sizes take turns, and the best of five of each counts, so that a slow spell of the
    # shared machine hits both; tiny durations are mostly noise: the small one is floored
    # at 1 ms.
    best_small = best_large = float("inf")
    for _ in range(5):
        best_small = min(best_small, _seconds(redact, small))
        best_large = min(best_large, _seconds(redact, large))
    return best_large / max(best_small, 1e-3)


@pytest.mark.parametrize("unit", TRIGGERS, ids=repr)
def test_redaction_time_grows_linearly_with_repeated_triggers(unit: str) -> None:
    assert _ratio(REDACTOR.redact_text, unit) < LIMIT
    assert _ratio(ENGINE_REDACTOR.redact_text, unit) < LIMIT


@pytest.mark.parametrize("unit", ["[a", "[aaaa", "[S1", "[S1, ", "["], ids=repr)
def test_a_backtracking_prone_marker_pattern_runs_in_linear_time(unit: str) -> None:
    parser = MarkerParser(r"\[((a+)+)\]")
    default = MarkerParser()
    assert _ratio(parser.markers, unit) < LIMIT
    assert _ratio(default.markers, unit) < LIMIT


@pytest.mark.parametrize(
    ("overrides", "construct"),
    [
        pytest.param(
            {"redaction.custom_patterns": [{"name": "X", "pattern": r"(a)\1"}]},
            "backreference",
            id="custom-backreference",
        ),
        pytest.param(
            {"redaction.custom_patterns": [{"name": "X", "pattern": r"(?<=x)\d+"}]},
            "lookahead or lookbehind",
            id="custom-lookbehind",
        ),
        pytest.param(
            {"checks.marker_pattern": r"\[(?=S)(\w+)\]"},
            "lookahead or lookbehind",
            id="marker-lookahead",
        ),
        pytest.param(
            {"checks.marker_pattern": r"\[(\w+)\]\1"}, "backreference", id="marker-backreference"
        ),
    ],
)
def test_patterns_that_need_backtracking_stop_start_up(
    overrides: dict[str, object], construct: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        load_settings(overrides=overrides)
    message = str(raised.value)
    assert construct in message and "\n" not in message
