from __future__ import annotations

import json

import pytest

from sidecar.decode import decode_trace
from sidecar.errors import TraceDecodeError, TraceError, TraceInvalidError
from tests.support.factories import TRACE_ID, claim, trace_dict


def test_valid_bytes_decode() -> None:
    assert decode_trace(json.dumps(trace_dict()).encode()).trace_id == TRACE_ID


@pytest.mark.parametrize(
    ("value", "error", "reason"),
    [
        pytest.param(b"\xff\xfe garbage", TraceDecodeError, "not_utf8", id="not-utf8"),
        pytest.param(b'{"trace_id": ', TraceDecodeError, "not_json", id="truncated"),
        pytest.param(b"[" * 5000 + b"]" * 5000, TraceDecodeError, "too_deep", id="deep-list"),
        pytest.param(
            json.dumps(trace_dict(nested=[[[[[[[[1]]]]]]]])).encode(),
            None,
            None,
            id="moderate-nesting-ok",
        ),
        pytest.param(b"[1, 2]", TraceInvalidError, "invalid_trace", id="not-an-object"),
        pytest.param(
            json.dumps(trace_dict(claims=[claim("c", "a", []), claim("c", "b", [])])).encode(),
            TraceInvalidError,
            "invalid_trace",
            id="duplicate-claims",
        ),
        pytest.param(b"x" * 2_000_000, TraceDecodeError, "too_large", id="too-large"),
    ],
)
def test_bad_records_raise_typed_errors(
    value: bytes, error: type[TraceError] | None, reason: str | None
) -> None:
    if error is None:
        decode_trace(value)
        return
    with pytest.raises(error) as info:
        decode_trace(value)
    assert info.value.reason == reason
    assert not info.value.retriable


def test_deeply_nested_object_in_extra_field_is_refused() -> None:
    nested: object = 1
    for _ in range(40):
        nested = {"a": nested}
    with pytest.raises(TraceDecodeError) as info:
        decode_trace(json.dumps(trace_dict(nested=nested)))
    assert info.value.reason == "too_deep"


def test_validation_errors_do_not_echo_trace_text() -> None:
    data = trace_dict(question="my card is 4111 1111 1111 1111")
    data["claims"] = [claim("c1", "secret-claim-text", [], importance=9)]
    with pytest.raises(TraceInvalidError) as info:
        decode_trace(json.dumps(data))
    message = str(info.value)
    assert "claims.0.importance" in message
    assert "secret-claim-text" not in message and "4111" not in message


def _line(**overrides: object) -> bytes:
    return json.dumps(trace_dict(**overrides)).encode()


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        pytest.param(
            _line()[:-1] + b', "big": ' + b"9" * 5000 + b"}",
            "number_too_long",
            id="5000-digit-integer",
        ),
        pytest.param(
            _line()[:-1] + b', "f": 1' + b"0" * 100 + b".5}", "number_too_long", id="long-float"
        ),
        pytest.param(_line()[:-1] + b', "n": NaN}', "not_json", id="nan"),
        pytest.param(_line()[:-1] + b', "app": "other"}', "duplicate_key", id="duplicate-key"),
        pytest.param(
            _line(question="x").replace(b'"x"', b'"\\udc80"'),
            "lone_surrogate",
            id="escaped-lone-surrogate",
        ),
        pytest.param(
            _line(question="x").replace(b'"x"', b'"\xc3\x28"'),
            "not_utf8",
            id="invalid-utf8-in-string",
        ),
        pytest.param(_line(answer="a" * 70_000), "text_too_long", id="long-answer"),
        pytest.param(
            _line(claims=[claim(f"c{i}", "t", []) for i in range(1001)]),
            "too_many_claims",
            id="too-many-claims",
        ),
        pytest.param(
            _line(sources=[{"id": f"S{i}", "text": "t"} for i in range(1001)]),
            "too_many_sources",
            id="too-many-sources",
        ),
        pytest.param(
            _line(claims=[claim("c1", "t", [f"S{i}" for i in range(101)])]),
            "too_many_citations",
            id="too-many-citations",
        ),
        pytest.param(
            _line(sources=[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]),
            "too_deep",
            id="deep-known-field",
        ),
        pytest.param(_line(claims=[claim(1, "t", [])]), "invalid_trace", id="number-as-id"),  # type: ignore[arg-type]
        pytest.param(
            _line(claims=[claim("c1", "t", [], importance=2.5)]),  # type: ignore[arg-type]
            "invalid_trace",
            id="fractional-importance",
        ),
    ],
)
def test_hostile_values_are_refused_with_their_reason(value: bytes, reason: str) -> None:
    with pytest.raises(TraceError) as info:
        decode_trace(value)
    assert info.value.reason == reason
    assert "9999" not in str(info.value)


def test_surrogateescaped_text_counts_as_invalid_utf8() -> None:
    text = _line(question="x").replace(b'"x"', b'"\xff"').decode("utf-8", "surrogateescape")
    with pytest.raises(TraceDecodeError) as info:
        decode_trace(text)
    assert info.value.reason == "not_utf8"


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(b"\xef\xbb\xbf" + _line(), id="bytes"),
        pytest.param("\ufeff" + _line().decode(), id="text"),
    ],
)
def test_a_leading_byte_order_mark_is_dropped(value: bytes | str) -> None:
    assert decode_trace(value).trace_id == TRACE_ID


def test_control_characters_become_spaces_and_tabs_stay() -> None:
    trace = decode_trace(_line(question="a\u0000b\u000cc\td\ne", answer="x\u007fy [S1]."))
    assert trace.question == "a b c\td\ne"
    assert trace.answer == "x y [S1]."


def test_whole_number_floats_are_accepted_as_importance() -> None:
    trace = decode_trace(_line(claims=[claim("c1", "t", ["S1"], importance=3.0)]))  # type: ignore[arg-type]
    assert trace.claims[0].importance == 3


def test_limits_come_from_settings() -> None:
    from sidecar.config import load_settings
    from sidecar.decode import DecodeLimits

    settings = load_settings(overrides={"limits.max_claims": 2, "checks.max_json_depth": 5})
    limits = DecodeLimits.from_settings(settings)
    assert (limits.max_claims, limits.max_depth) == (2, 5)
    with pytest.raises(TraceDecodeError) as info:
        decode_trace(_line(claims=[claim(f"c{i}", "t", []) for i in range(3)]), limits=limits)
    assert info.value.reason == "too_many_claims"


def test_unknown_keys_are_not_echoed_in_validation_errors() -> None:
    data = trace_dict(generator={"model": "m", "prompt_version": "v", "secret-key-text": 1})
    with pytest.raises(TraceInvalidError) as info:
        decode_trace(json.dumps(data))
    assert "secret-key-text" not in str(info.value)
    assert "generator.<key>" in str(info.value)
