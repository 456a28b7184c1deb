from __future__ import annotations

import json

import pytest

from sidecar.decode import decode_trace
from sidecar.errors import TraceDecodeError, TraceError, TraceInvalidError
from tests.factories import TRACE_ID, claim, trace_dict


def test_valid_bytes_decode() -> None:
    assert decode_trace(json.dumps(trace_dict()).encode()).trace_id == TRACE_ID


@pytest.mark.parametrize(
    ("value", "error", "reason"),
    [
        pytest.param(b"\xff\xfe garbage", TraceDecodeError, "not_utf8", id="not-utf8"),
        pytest.param(b'{"trace_id": ', TraceDecodeError, "not_json", id="truncated"),
        pytest.param(b"[" * 5000 + b"]" * 5000, TraceDecodeError, "too_deep", id="deep-list"),
        pytest.param(json.dumps(trace_dict(nested=[[[[[[[[1]]]]]]]])).encode(), None, None,
                     id="moderate-nesting-ok"),
        pytest.param(b"[1, 2]", TraceInvalidError, "invalid_trace", id="not-an-object"),
        pytest.param(json.dumps(trace_dict(claims=[claim("c", "a", []), claim("c", "b", [])]))
                     .encode(), TraceInvalidError, "invalid_trace", id="duplicate-claims"),
        pytest.param(b"x" * 2_000_000, TraceDecodeError, "too_large", id="too-large"),
    ],
)
def test_bad_records_raise_typed_errors(value: bytes, error: type[TraceError] | None,
                                        reason: str | None) -> None:
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
