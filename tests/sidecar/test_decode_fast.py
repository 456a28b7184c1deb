"""The fast way through decode_trace ends exactly where the strict way does: the same trace,
or the same refusal with the same reason and message, whatever the record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas import Trace
from sidecar.decode import (
    DecodeLimits,
    _clean_is_noop,
    _fast_loads,
    _loads,
    _validate_fast,
    decode_trace,
    parse_trace_object,
)
from sidecar.errors import TraceError
from tests.hostile import EVALUATED, cases
from tests.support.factories import claim, trace_dict

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=20)
SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.floats() | ANY_TEXT
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=20,
)


def _outcome(call: Any) -> Trace | tuple[str, str, str]:
    try:
        return call()  # type: ignore[no-any-return]
    except TraceError as exc:
        return type(exc).__name__, exc.reason, str(exc)


def _strict(value: bytes | str, limits: DecodeLimits) -> Trace | tuple[str, str, str]:
    """decode_trace with json's hooks and the string walk every time (too_large and
    not_utf8, which come before either way, are left to decode_trace)."""

    def run() -> Trace:
        text = value.decode("utf-8") if isinstance(value, bytes) else value
        text = text.removeprefix("\ufeff")
        return parse_trace_object(_loads(text, limits.max_number_chars), limits=limits)

    return _outcome(run)


def _same(value: bytes | str, limits: DecodeLimits | None = None) -> None:
    limits = limits or DecodeLimits()
    fast = _outcome(lambda: decode_trace(value, limits=limits))
    if isinstance(fast, tuple) and fast[1] in ("too_large", "not_utf8"):
        return
    assert fast == _strict(value, limits)


@pytest.mark.parametrize("case", [pytest.param(case, id=case.name) for case in cases()])
def test_hostile_records_both_ways(case: Any) -> None:
    _same(case.value)
    fast = _outcome(lambda: decode_trace(case.value))
    assert (isinstance(fast, Trace)) == (case.expected == EVALUATED)


def _edited(old: bytes, new: bytes, **overrides: Any) -> bytes:
    text = json.dumps(trace_dict(**overrides)).encode()
    assert old in text
    return text.replace(old, new, 1)


EDGE_RECORDS = [
    pytest.param(_edited(b'"app"', b'"app": "a", "app"'), id="duplicate-top-level-key"),
    pytest.param(
        _edited(b'"prompt_version"', b'"model": "m", "prompt_version"'), id="duplicate-nested-key"
    ),
    pytest.param(_edited(b'"app"', b'"\\u0061pp": "a", "app"'), id="duplicate-by-escape"),
    pytest.param(_edited(b'"app"', b'"n": NaN, "app"'), id="nan"),
    pytest.param(_edited(b'"app"', b'"n": -Infinity, "app"'), id="minus-infinity"),
    pytest.param(_edited(b'"app"', b'"n": 1234567890123456, "app"'), id="sixteen-digits"),
    pytest.param(_edited(b'"app"', b'"n": 1' + b"0" * 60 + b', "app"'), id="long-number"),
    pytest.param(
        _edited(b'"app"', b'"n": 123456789012345.123456789012345e-123456789012345, "app"'),
        id="longest-number-without-a-run",
    ),
    pytest.param(_edited(b'"app"', b'"n": 1e400, "app"'), id="huge-exponent"),
    pytest.param(
        _edited(b"PLACEHOLDER", b"a\\bb\\fc\\u001fd\\u007Fe", question="PLACEHOLDER"),
        id="control-escapes",
    ),
    pytest.param(_edited(b"PLACEHOLDER", b"a\x7fb", question="PLACEHOLDER"), id="raw-del"),
    pytest.param(
        _edited(b"PLACEHOLDER", b"\\\\u0000 \\\\b", question="PLACEHOLDER"),
        id="escaped-backslashes",
    ),
    pytest.param(
        _edited(b"PLACEHOLDER", b"\\ud83d\\ude00", question="PLACEHOLDER"), id="surrogate-pair"
    ),
    pytest.param(
        _edited(b"PLACEHOLDER", b"\\ude00\\ud83d", question="PLACEHOLDER"), id="reversed-surrogates"
    ),
    pytest.param(_edited(b"PLACEHOLDER", b"x\\u0000", question="PLACEHOLDER"), id="nul-escape"),
    pytest.param(
        _edited(b'"app"', b'"meta": ' + b"[" * 31 + b"]" * 31 + b', "app"'),
        id="unknown-field-at-the-depth-limit",
    ),
    pytest.param(
        _edited(b'"app"', b'"meta": ' + b"[" * 32 + b"]" * 32 + b', "app"'),
        id="unknown-field-over-the-depth-limit",
    ),
    pytest.param(
        _edited(b'"app"', b'"extra": {"a": ' + b"[" * 30 + b"]" * 30 + b'}, "app"'),
        id="extra-over-the-depth-limit",
    ),
    pytest.param(_edited(b'"app"', b'"extra": [1], "app"'), id="extra-not-an-object"),
    pytest.param(_edited(b'"app"', b'"sources": [[[[[[]]]]]], "app"'), id="deep-sources"),
    pytest.param(
        json.dumps(
            trace_dict(claims=[claim(f"c{i}", "x", ["S1"]) for i in range(3)], answer="x" * 70_000)
        ).encode(),
        id="long-answer",
    ),
    pytest.param(b"[1, 2]", id="not-an-object"),
    pytest.param(b'{"a": 1', id="truncated"),
    pytest.param(b'{"a": 01}', id="leading-zero"),
    pytest.param(b"\xef\xbb\xbf\xef\xbb\xbf{}", id="two-byte-order-marks"),
    pytest.param(
        json.dumps(trace_dict(question="caf\u00e9 \u2014 ok"), ensure_ascii=False),
        id="str-non-ascii",
    ),
]


@pytest.mark.parametrize("value", EDGE_RECORDS)
def test_edge_records_both_ways(value: bytes | str) -> None:
    _same(value)


@pytest.mark.parametrize(
    "limits",
    [
        pytest.param(DecodeLimits(max_depth=3), id="depth-below-a-trace's-own"),
        pytest.param(DecodeLimits(max_depth=4), id="depth-of-a-trace's-own"),
        pytest.param(DecodeLimits(max_claims=1), id="one-claim"),
        pytest.param(DecodeLimits(max_sources=1), id="one-source"),
        pytest.param(DecodeLimits(max_citations_per_claim=0), id="no-citations"),
        pytest.param(DecodeLimits(max_text_chars=10), id="short-strings"),
    ],
)
def test_limits_both_ways(limits: DecodeLimits) -> None:
    data = trace_dict(
        claims=[
            claim("c1", "Refunds within 30 days.", ["S1", "S2"]),
            claim("c2", "Annual plans renew.", ["S2"]),
        ]
    )
    _same(json.dumps(data).encode(), limits)
    _same(json.dumps(data, indent=2).encode(), limits)


def test_a_plain_trace_takes_the_fast_way() -> None:
    value = json.dumps(trace_dict()).encode()
    limits = DecodeLimits()
    assert _fast_loads(value) == json.loads(value)
    assert _clean_is_noop(value, len(value), limits)
    trace = _validate_fast(json.loads(value), limits.max_depth, limits)
    assert trace == decode_trace(value) == Trace.model_validate(json.loads(value))


@SETTINGS
@given(JSON)
def test_parsing_agrees_with_json(value: Any) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        data = text.encode("utf-8", "surrogatepass")
        fast = _fast_loads(data)
        if fast is not None:
            # repr tells 1 from 1.0 and True from 1, and keeps key order.
            assert repr(fast) == repr(json.loads(text))


@SETTINGS
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_arbitrary_bytes_both_ways(value: bytes) -> None:
    _same(value)


FIELDS = [
    "trace_id",
    "timestamp",
    "app",
    "tenant",
    "generator",
    "question",
    "answer",
    "sources",
    "claims",
    "schema_version",
    "extra",
    "unknown",
]


@SETTINGS
@given(
    st.dictionaries(st.sampled_from(FIELDS), JSON | ANY_TEXT, max_size=2),
    ANY_TEXT,
    st.lists(
        st.fixed_dictionaries(
            {
                "id": ANY_TEXT,
                "text": ANY_TEXT,
                "citation_ids": st.lists(ANY_TEXT, max_size=3),
                "importance": st.sampled_from([1, 3, 2.0, "2", 4]),
            }
        ),
        max_size=3,
    ),
)
def test_traces_with_hostile_fields_both_ways(
    overrides: dict[str, Any], question: str, claims: list[Any]
) -> None:
    data = trace_dict(question=question, claims=claims)
    data.update(overrides)
    for text in (json.dumps(data), json.dumps(data, ensure_ascii=False)):
        _same(text.encode("utf-8", "surrogatepass"))
        _same(text)


def test_the_example_traces_take_the_fast_way() -> None:
    limits = DecodeLimits()
    examples = Path(__file__).resolve().parents[2] / "examples" / "traces.jsonl"
    lines = [line for line in examples.read_bytes().splitlines() if line.strip()]
    assert lines
    for line in lines:
        obj = _fast_loads(line)
        assert obj is not None
        assert _clean_is_noop(line, len(line.decode()), limits)
        assert _validate_fast(obj, limits.max_depth, limits) == decode_trace(line)
