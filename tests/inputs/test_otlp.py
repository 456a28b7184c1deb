"""The OTLP adapter, fed spans made by the opentelemetry-sdk and encoded with
opentelemetry-proto as the Collector's kafka exporter writes them."""

from __future__ import annotations

import json

import pytest

from sidecar.decode import DecodeLimits, decode_trace
from sidecar.errors import TraceError
from tests.support.payloads import (
    RETURNS_TEXT,
    WARRANTY_TEXT,
    WARRANTY_URL,
    openinference_spans,
    otlp_json_record,
    otlp_proto_record,
)

PROTO = DecodeLimits(input_format="otlp_proto")
JSON = DecodeLimits(input_format="otlp_json")


def test_openinference_spans_become_one_trace_with_the_w3c_trace_id() -> None:
    spans = openinference_spans()
    trace = decode_trace(otlp_proto_record(spans), limits=PROTO)
    assert trace.trace_id == format(spans[0].context.trace_id, "032x")
    assert trace.answer == (
        "The warranty lasts 24 months [warranty-2]. Returns cost nothing for a year [returns-1]."
    )
    assert [(s.id, s.title, s.text, s.url) for s in trace.sources] == [
        ("warranty-2", "Warranty", WARRANTY_TEXT, WARRANTY_URL),
        ("returns-1", "", RETURNS_TEXT, None),
    ]
    assert trace.question == "How long is the warranty?"
    assert (trace.app, trace.generator.model, trace.generator.prompt_version) == (
        "support-rag",
        "gpt-4.1-mini",
        "v7",
    )


def test_protobuf_and_json_encodings_give_the_same_trace() -> None:
    spans = openinference_spans()
    assert decode_trace(otlp_json_record(spans), limits=JSON) == decode_trace(
        otlp_proto_record(spans), limits=PROTO
    )


def test_genai_semantic_convention_attributes_are_read() -> None:
    trace_id, span_id = "5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174"

    def span(name: str, attributes: dict[str, str], end: str) -> dict[str, object]:
        return {
            "traceId": trace_id,
            "spanId": span_id,
            "name": name,
            "endTimeUnixNano": end,
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
        }

    documents = json.dumps([{"id": "kb-1", "content": WARRANTY_TEXT, "title": "Warranty"}])
    record = {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "genai-app"}}]
                },
                "scopeSpans": [
                    {
                        "spans": [
                            span(
                                "retrieval",
                                {
                                    "gen_ai.operation.name": "retrieval",
                                    "gen_ai.retrieval.documents": documents,
                                },
                                "1764700000000000000",
                            ),
                            span(
                                "chat",
                                {
                                    "gen_ai.operation.name": "chat",
                                    "gen_ai.request.model": "m-1",
                                    "gen_ai.input.messages": json.dumps(
                                        [
                                            {
                                                "role": "user",
                                                "parts": [{"type": "text", "content": "Warranty?"}],
                                            }
                                        ]
                                    ),
                                    "gen_ai.output.messages": json.dumps(
                                        [
                                            {
                                                "role": "assistant",
                                                "parts": [
                                                    {"type": "text", "content": "24 months [kb-1]."}
                                                ],
                                            }
                                        ]
                                    ),
                                },
                                "1764700001000000000",
                            ),
                        ]
                    }
                ],
            }
        ]
    }
    trace = decode_trace(json.dumps(record).encode(), limits=JSON)
    assert (trace.trace_id, trace.app, trace.question, trace.answer) == (
        trace_id,
        "genai-app",
        "Warranty?",
        "24 months [kb-1].",
    )
    assert [(s.id, s.text) for s in trace.sources] == [("kb-1", WARRANTY_TEXT)]
    assert trace.generator.model == "m-1"


@pytest.mark.parametrize(
    ("record", "limits", "message"),
    [
        pytest.param(
            otlp_proto_record(openinference_spans(traces=2)),
            PROTO,
            "spans of 2 traces",
            id="two-traces",
        ),
        pytest.param(b"\xff\x00 not protobuf at all", PROTO, "not an OTLP", id="not-protobuf"),
        pytest.param(b'{"resourceSpans": []}', JSON, "holds no spans", id="no-spans"),
        pytest.param(b'{"spans": []}', JSON, "no resourceSpans", id="not-otlp-json"),
    ],
)
def test_unreadable_span_records_are_dead_letters_with_a_reason(
    record: bytes, limits: DecodeLimits, message: str
) -> None:
    with pytest.raises(TraceError, match=message) as caught:
        decode_trace(record, limits=limits)
    assert caught.value.reason == "unreadable_input"


def test_a_trace_without_an_llm_span_is_refused() -> None:
    spans = [span for span in openinference_spans() if span.name != "llm"]
    with pytest.raises(TraceError, match="no LLM span"):
        decode_trace(otlp_proto_record(spans), limits=PROTO)
