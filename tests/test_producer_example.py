"""examples/producer.py without a broker: its traces are valid for both the JSON Schema and
the pydantic model, its structured-output schema is strict-mode shaped, and the trace
context it puts in the headers is the current span's."""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from opentelemetry.sdk.trace import TracerProvider

from schemas import Trace

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def producer() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "citewatch_example_producer", ROOT / "examples" / "producer.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    # kafka-python reads its protocol schemas with a deprecated importlib.resources call.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        spec.loader.exec_module(module)
    return module


def test_built_trace_passes_schema_and_model(producer: ModuleType) -> None:
    record = producer.build_trace(
        producer.example_answer(0), trace_id="4bf92f3577b34da6a3ce929d0e0e4736"
    )
    producer.load_validator().validate(record)
    trace = Trace.model_validate(record)
    assert [(c.id, c.citation_ids, c.importance) for c in trace.claims] == [
        ("c1", ["S1"], 3),
        ("c2", ["S2"], 2),
    ]


def test_schema_check_refuses_what_citewatch_would_dead_letter(producer: ModuleType) -> None:
    record = producer.build_trace(
        producer.example_answer(0), trace_id="4bf92f3577b34da6a3ce929d0e0e4736"
    )
    record["claims"][0]["importance"] = 5
    with pytest.raises(jsonschema.ValidationError):
        producer.load_validator().validate(record)


def _objects(schema: Any) -> list[dict[str, Any]]:
    if isinstance(schema, dict):
        found = [schema] if schema.get("type") == "object" else []
        for value in schema.values():
            found += _objects(value)
        return found
    if isinstance(schema, list):
        return [o for item in schema for o in _objects(item)]
    return []


def test_answer_schema_is_strict_mode_shaped(producer: ModuleType) -> None:
    schema = producer.ANSWER_SCHEMA
    jsonschema.Draft202012Validator.check_schema(schema)
    for obj in _objects(schema):
        assert obj["additionalProperties"] is False
        assert sorted(obj["required"]) == sorted(obj["properties"])
    jsonschema.validate(producer.example_answer(0).model_output, schema)


def test_headers_carry_the_current_span_as_traceparent(producer: ModuleType) -> None:
    tracer = TracerProvider().get_tracer("test")
    with tracer.start_as_current_span("rag.answer") as span:
        headers = dict(producer.traceparent_headers())
        context = span.get_span_context()
    version, trace_id, span_id, flags = headers["traceparent"].decode().split("-")
    assert (version, trace_id, span_id) == (
        "00",
        f"{context.trace_id:032x}",
        f"{context.span_id:016x}",
    )
    assert int(flags, 16) & 1  # sampled
