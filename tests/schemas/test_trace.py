from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from schemas import EvaluationRecord, Trace
from schemas._jsonschema import SCHEMA_FILES, render
from schemas.trace import Claim, Source
from tests.support.factories import TRACE_ID, claim, make_trace, source, trace_dict


def test_valid_trace_parses_with_defaults() -> None:
    trace = make_trace()
    assert trace.trace_id == TRACE_ID
    assert trace.claims[0].kind == "factual"
    assert trace.sources[0].authority == "unknown"
    assert trace.extra == {}


def test_unknown_top_level_fields_are_kept_in_extra() -> None:
    trace = make_trace(retrieval={"k": 5}, user_tier="gold")
    assert trace.extra == {"retrieval": {"k": 5}, "user_tier": "gold"}
    again = Trace.model_validate_json(trace.model_dump_json())
    assert again.extra == trace.extra


def test_unknown_field_inside_a_source_is_rejected() -> None:
    with pytest.raises(ValidationError, match="sources.0.colour"):
        make_trace(sources=[{**source("S1", "x"), "colour": "red"}])


def test_trace_id_is_normalised_to_lower_case() -> None:
    assert make_trace(trace_id=TRACE_ID.upper()).trace_id == TRACE_ID


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        pytest.param(
            {"sources": [source("S1", "a"), source("S1", "b")]},
            r"duplicate source id at sources\[1\]\.id",
            id="duplicate-source-ids",
        ),
        pytest.param(
            {"claims": [claim("c1", "a", []), claim("c1", "b", [])]},
            r"duplicate claim id at claims\[1\]\.id",
            id="duplicate-claim-ids",
        ),
        pytest.param(
            {"claims": [claim("c1", "a", [], importance=4)]},
            "less than or equal to 3",
            id="importance-above-3",
        ),
        pytest.param(
            {"claims": [claim("c1", "a", [], importance=0)]},
            "greater than or equal to 1",
            id="importance-below-1",
        ),
        pytest.param({"trace_id": ""}, "trace_id is empty", id="empty-trace-id"),
        pytest.param({"trace_id": "xyz"}, "32 hex digits", id="short-trace-id"),
        pytest.param({"trace_id": "0" * 32}, "all zeros", id="zero-trace-id"),
        pytest.param({"schema_version": "2"}, "schema_version", id="future-version"),
    ],
)
def test_invalid_traces_are_rejected_precisely(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make_trace(**overrides)


def test_integer_schema_version_is_accepted() -> None:
    assert make_trace(schema_version=1).schema_version == "1"


def test_trace_without_claims_is_valid() -> None:
    assert make_trace(claims=[]).claims == []


_text = st.text(max_size=40)
_ids = st.from_regex(r"[A-Za-z0-9]{1,6}", fullmatch=True)


@st.composite
def traces(draw: st.DrawFn) -> Trace:
    source_ids = draw(st.lists(_ids, unique=True, max_size=4))
    claim_ids = draw(st.lists(_ids, unique=True, max_size=4))
    return Trace(
        trace_id=draw(st.from_regex(r"[0-9a-f]{31}[1-9a-f]", fullmatch=True)),
        timestamp="2026-11-30T10:00:00Z",  # type: ignore[arg-type]
        app=draw(st.text(min_size=1, max_size=10)),
        generator={"model": "m", "prompt_version": "p"},  # type: ignore[arg-type]
        question=draw(_text),
        answer=draw(_text),
        sources=[Source(id=i, text=draw(_text)) for i in source_ids],
        claims=[
            Claim(
                id=i,
                text=draw(_text),
                importance=draw(st.integers(1, 3)),
                citation_ids=draw(st.lists(st.sampled_from(source_ids or ["x"]))),
            )
            for i in claim_ids
        ],
        extra=draw(st.dictionaries(st.sampled_from(["a", "b"]), st.integers())),
    )


@settings(max_examples=60, deadline=None)
@given(traces())
def test_traces_round_trip_through_json(trace: Trace) -> None:
    assert Trace.model_validate_json(trace.model_dump_json()) == trace
    assert Trace.model_validate(json.loads(trace.model_dump_json())) == trace


@pytest.mark.skipif(
    tuple(int(part) for part in pydantic.VERSION.split(".")[:2]) < (2, 11),
    reason="the checked-in schemas are written by pydantic 2.11 or later; earlier releases "
    "(inside the declared range) write the same schema in other words: an enum beside a "
    "const, no additionalProperties: true on open objects",
)
@pytest.mark.parametrize("name", sorted(SCHEMA_FILES))
def test_checked_in_json_schema_matches_the_model(name: str) -> None:
    from pathlib import Path

    import schemas

    path = Path(schemas.__file__).parent / name
    assert path.read_text(encoding="utf-8") == render(SCHEMA_FILES[name]), (
        f"{name} drifted from its model: run python -m schemas._jsonschema"
    )


def test_trace_json_schema_requires_the_core_fields() -> None:
    schema = json.loads(render(Trace))
    assert set(schema["required"]) >= {
        "trace_id",
        "timestamp",
        "app",
        "generator",
        "question",
        "answer",
    }
    assert schema["properties"]["trace_id"]["type"] == "string"


def test_evaluation_record_forbids_unknown_fields() -> None:
    with pytest.raises(ValidationError):
        EvaluationRecord.model_validate({"schema_version": "1", "bogus": 1})


def test_factories_trace_dict_is_json_serialisable() -> None:
    assert json.loads(json.dumps(trace_dict()))["app"] == "support"
