"""Malformed records of every adapted format: any value of any field replaced by any JSON
value is a trace or a dead letter whose message names the field and why, never an error of
the adapter's own (which the runtime could only call a generic ``decode_error``), and never
a value of the record."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.decode import DecodeLimits, decode_trace
from sidecar.errors import TraceError
from tests.support.payloads import (
    OWN_MARKERS,
    POLICY_SOURCES,
    RETRIEVED,
    anthropic_record,
    chat_exchange,
    chat_record,
    converse_record,
    gemini_record,
    openinference_spans,
    otlp_json_record,
    responses_record,
    retrieve_and_generate_record,
    spans_of,
)

SECRET = "zq-secret-value-zq"


def _events_record() -> bytes:
    """Spans with content on GenAI events, a reranker, a tool call's passages and two LLM
    spans: the OTLP adapter's other paths."""

    def build(tracer: Any) -> None:
        with tracer.start_as_current_span("query", attributes={"input.value": '{"query": "Q?"}'}):
            with tracer.start_as_current_span("retrieve", attributes=RETRIEVED):
                pass
            with tracer.start_as_current_span(
                "tool", attributes={"ai.toolCall.result": json.dumps([{"id": "t1", "text": "T."}])}
            ):
                pass
            with tracer.start_as_current_span(
                "rerank",
                attributes={
                    "openinference.span.kind": "RERANKER",
                    "reranker.output_documents.0.document.id": "returns-1",
                },
            ):
                pass
            for answer in ("Fact [t1].", "Follow-up?"):
                with tracer.start_as_current_span(
                    "chat", attributes={"gen_ai.operation.name": "chat"}
                ) as span:
                    span.add_event(
                        "gen_ai.user.message",
                        {"gen_ai.event.content": json.dumps({"content": "Q?"})},
                    )
                    span.add_event(
                        "gen_ai.choice",
                        {"gen_ai.event.content": json.dumps({"message": {"content": answer}})},
                    )

    return otlp_json_record(spans_of(build))


RECORDS: dict[str, Callable[[], bytes]] = {
    "openai_responses": responses_record,
    "openai_chat": chat_record,
    "openai_chat_own": lambda: chat_exchange(OWN_MARKERS, sources=POLICY_SOURCES),
    "anthropic_messages": anthropic_record,
    "gemini": gemini_record,
    "bedrock": retrieve_and_generate_record,
    "bedrock_converse": converse_record,
    "otlp_json": lambda: otlp_json_record(openinference_spans()),
    "otlp_json_events": lambda: _events_record(),
}
BUILT = {name: json.loads(build()) for name, build in RECORDS.items()}


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*path, index)))
    return found


PATHS = {name: _paths(value)[1:] for name, value in BUILT.items()}
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.just(SECRET) | st.just(""),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["type", "text", SECRET]), children, max_size=3)
    ),
    max_leaves=6,
)


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    copy = json.loads(json.dumps(value))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return copy


@pytest.mark.parametrize("name", sorted(RECORDS))
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_a_field_of_any_type_is_a_trace_or_a_named_refusal(name: str, data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(PATHS[name]))
    record = _replace(BUILT[name], path, data.draw(JSON_VALUES))
    input_format = {
        "openai_chat_own": "openai_chat",
        "bedrock_converse": "bedrock",
        "otlp_json_events": "otlp_json",
    }.get(name, name)
    try:
        decode_trace(json.dumps(record).encode(), limits=DecodeLimits(input_format=input_format))  # type: ignore[arg-type]
    except TraceError as exc:
        message = str(exc)
        assert SECRET not in message
        assert "unexpected" not in message, message


TIME_KEYS = {"created", "created_at", "endTimeUnixNano"}
TIME_PATHS = [
    (name, path) for name, paths in PATHS.items() for path in paths if path[-1] in TIME_KEYS
]


@pytest.mark.parametrize(("name", "path"), TIME_PATHS)
@pytest.mark.parametrize("value", [-62135596801, 10**20, 1e300, "9" * 40])
def test_a_time_no_calendar_holds_is_a_named_refusal(
    name: str, path: tuple[Any, ...], value: Any
) -> None:
    # The year 0, beyond 9999 and beyond a float: each once fell through as the adapter's own
    # ValueError or OverflowError.
    record = _replace(BUILT[name], path, value)
    input_format = {"otlp_json_events": "otlp_json", "openai_chat_own": "openai_chat"}
    try:
        trace = decode_trace(
            json.dumps(record).encode(),
            limits=DecodeLimits(input_format=input_format.get(name, name)),  # type: ignore[arg-type]
        )
    except TraceError as exc:
        assert "is not a time between the years 1 and 9999" in str(exc), str(exc)
        assert str(value) not in str(exc)
    else:  # a field the format does not read for the time
        assert trace.timestamp.year >= 1


def test_every_format_with_a_creation_or_end_time_is_covered() -> None:
    assert {name for name, _ in TIME_PATHS} >= {"openai_responses", "openai_chat", "otlp_json"}
