"""`evaluate_raw`: the one path from raw bytes to an evaluation record or a failure."""

from __future__ import annotations

import asyncio
import json

import pytest

from schemas import Trace
from sidecar.config import Settings
from sidecar.decode import DecodeLimits
from sidecar.pipeline import Pipeline
from sidecar.runtime.guard import Admit, Evaluated, Failure, Skipped, evaluate_raw
from tests.support.factories import trace_dict

SECRET = "sk-live-secret-claim-text"


class RaisingRedactor:
    def redact(self, trace: Trace) -> tuple[Trace, dict[str, int]]:
        raise RuntimeError(f"cannot redact {SECRET}")


def _raw(**overrides: object) -> bytes:
    return json.dumps(trace_dict(**overrides)).encode()


def _run(
    pipeline: Pipeline,
    value: bytes,
    limits: DecodeLimits | None = None,
    *,
    admit: Admit | None = None,
) -> Evaluated | Failure | Skipped:
    limits = limits if limits is not None else DecodeLimits()
    if admit is None:
        return asyncio.run(evaluate_raw(pipeline, value, limits))
    return asyncio.run(evaluate_raw(pipeline, value, limits, admit=admit))


def test_a_good_record_is_evaluated_and_serialised() -> None:
    outcome = _run(Pipeline(Settings()), _raw(trace_id="a" * 32))
    assert isinstance(outcome, Evaluated)
    assert outcome.record.trace_id == "a" * 32
    assert json.loads(outcome.payload)["trace_id"] == "a" * 32


@pytest.mark.parametrize(
    ("value", "limits", "reason"),
    [
        pytest.param(b"{not json", DecodeLimits(), "not_json", id="not-json"),
        pytest.param(b"\xff\xfe", DecodeLimits(), "not_utf8", id="not-utf8"),
        pytest.param(_raw(), DecodeLimits(max_bytes=64), "too_large", id="over-the-limit"),
        pytest.param(
            _raw(question="x" * 300),
            DecodeLimits(max_text_chars=200),
            "text_too_long",
            id="text-over-the-limit",
        ),
    ],
)
def test_decoding_uses_the_given_limits_and_fails_as_a_value(
    value: bytes, limits: DecodeLimits, reason: str
) -> None:
    outcome = _run(Pipeline(Settings()), value, limits)
    assert isinstance(outcome, Failure)
    assert outcome.reason == reason


def test_a_stage_that_raises_is_a_failure_without_trace_text() -> None:
    outcome = _run(Pipeline(Settings(), redactor=RaisingRedactor()), _raw())
    assert outcome == Failure(
        "evaluation_error", "RuntimeError", "RuntimeError raised during evaluation"
    )


def test_admit_sees_the_decoded_trace_and_can_skip_it() -> None:
    seen: list[str] = []

    async def admit(trace: Trace) -> bool:
        seen.append(trace.trace_id)
        return trace.trace_id != "b" * 32

    pipeline = Pipeline(Settings())
    skipped = _run(pipeline, _raw(trace_id="b" * 32), admit=admit)
    evaluated = _run(pipeline, _raw(trace_id="c" * 32), admit=admit)
    assert isinstance(skipped, Skipped) and skipped.trace.trace_id == "b" * 32
    assert isinstance(evaluated, Evaluated)
    assert seen == ["b" * 32, "c" * 32]


def test_admit_is_not_asked_about_a_record_that_does_not_decode() -> None:
    async def admit(trace: Trace) -> bool:
        raise AssertionError("asked about an undecodable record")

    outcome = _run(Pipeline(Settings()), b"[]", admit=admit)
    assert isinstance(outcome, Failure) and outcome.reason == "invalid_trace"
