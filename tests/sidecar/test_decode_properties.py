"""Whatever the bytes, decoding, the pipeline and serialisation end in an evaluation record
or a TraceError: never another exception, and a written record always reads back."""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas import EvaluationRecord
from sidecar.config import Settings
from sidecar.decode import decode_trace
from sidecar.errors import TraceError
from sidecar.pipeline import Pipeline
from sidecar.redaction import build_redactor
from sidecar.runtime.guard import Evaluated, evaluate_guarded, serialise_record
from tests.support.factories import trace_dict

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Every code point, lone surrogates and controls included.
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | ANY_TEXT
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=20,
)
HUGE_NUMBERS = st.integers(min_value=10**60, max_value=10**4000) | st.floats(
    min_value=1e300, allow_infinity=True
)


@functools.cache
def _pipeline() -> Pipeline:
    settings = Settings()
    return Pipeline(settings, redactor=build_redactor(settings.redaction))


def _through_everything(value: bytes | str) -> None:
    try:
        trace = decode_trace(value)
    except TraceError as exc:
        assert exc.reason and not exc.retriable
        return
    outcome = asyncio.run(evaluate_guarded(_pipeline(), trace))
    assert isinstance(outcome, Evaluated), outcome
    assert EvaluationRecord.model_validate_json(outcome.payload) == outcome.record
    record = asyncio.run(_pipeline().evaluate(trace))
    serialise_record(record).decode("utf-8")


@SETTINGS
@given(st.binary(max_size=300))
def test_arbitrary_bytes(value: bytes) -> None:
    _through_everything(value)


@SETTINGS
@given(JSON | st.lists(HUGE_NUMBERS | JSON, max_size=3))
def test_arbitrary_json_values(value: Any) -> None:
    _through_everything(json.dumps(value).encode())
    _through_everything(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))


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


def _claim() -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries(
        {
            "id": ANY_TEXT.filter(bool) | st.sampled_from(["c1", "c2", "c3"]) | JSON,
            "text": ANY_TEXT,
            "citation_ids": st.lists(st.sampled_from(["S1", "S2", "", "s1"]) | ANY_TEXT, max_size=4)
            | JSON,
            "importance": st.sampled_from([1, 2, 3, 2.0, 3.0, 3.5, 0, "3", True]),
        }
    )


def _source() -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries(
        {"id": st.sampled_from(["S1", "S2"]) | ANY_TEXT.filter(bool), "text": ANY_TEXT}
    )


@SETTINGS
@given(
    st.dictionaries(
        st.sampled_from(FIELDS),
        JSON
        | ANY_TEXT
        | st.lists(_claim(), max_size=3)
        | st.lists(_source(), max_size=3)
        | HUGE_NUMBERS,
        max_size=2,
    ),
    st.lists(_claim(), max_size=4, unique_by=lambda c: repr(c["id"])),
    st.lists(_source(), max_size=3, unique_by=lambda s: repr(s["id"])),
    ANY_TEXT,
)
def test_traces_with_hostile_fields(
    overrides: dict[str, Any], claims: list[Any], sources: list[Any], answer: str
) -> None:
    data = trace_dict(claims=claims, sources=sources, answer=answer + " [S1] [S2]")
    data.update(overrides)
    _through_everything(json.dumps(data).encode())
    _through_everything(json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    _through_everything(b"\xef\xbb\xbf" + json.dumps(data).encode())
