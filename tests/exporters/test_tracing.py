"""Tracing helpers against an SDK TracerProvider with an InMemorySpanExporter."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from exporters.tracing import (
    EVALUATION_EVENT,
    configure_tracing,
    consume_span,
    get_tracer,
    judge_span,
    producer_link,
    record_evaluation,
    set_judge_error,
    set_judge_usage,
)
from tests.exporters._records import TRACE_ID, claim, record

PRODUCER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PRODUCER_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{PRODUCER_TRACE}-{PRODUCER_SPAN}-01".encode()
CLAIM_TEXT = "redacted claim text"


@pytest.fixture
def spans() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def test_consumer_span_linked_to_producer_with_judge_child_and_verdict_events(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    tracer = get_tracer(provider)
    evaluation = record(
        claims=[
            claim("c1", importance=2, verdict="supported"),
            claim("c2", importance=3, verdict="unsupported", critical_reason="judged_unsupported"),
            claim("c3", importance=1, status="uncited"),
        ],
        correctness=0.5,
        completeness=0.3333,
        sampled_by="base",
        judge="openai-responses",
    )
    headers = [("content-type", b"application/json"), ("traceparent", TRACEPARENT)]
    with consume_span(
        tracer, topic="rag.traces", partition=3, offset=42, consumer_group="citewatch",
        headers=headers,
    ) as consumer:  # fmt: skip
        with judge_span(tracer, model="gpt-test", server_address="api.example") as call:
            set_judge_usage(call, input_tokens=900, output_tokens=120, response_model="gpt-test-1")
        record_evaluation(consumer, evaluation)

    finished = {span.name: span for span in exporter.get_finished_spans()}
    assert set(finished) == {"process rag.traces", "chat gpt-test"}
    process, judge = finished["process rag.traces"], finished["chat gpt-test"]

    assert process.kind is SpanKind.CONSUMER
    assert process.parent is None
    assert process.context.trace_id != int(PRODUCER_TRACE, 16)
    assert [
        (f"{link.context.trace_id:032x}", f"{link.context.span_id:016x}", link.context.is_remote)
        for link in process.links
    ] == [(PRODUCER_TRACE, PRODUCER_SPAN, True)]
    assert dict(process.attributes or {}) == {
        "messaging.system": "kafka",
        "messaging.operation.type": "process",
        "messaging.operation.name": "process",
        "messaging.destination.name": "rag.traces",
        "messaging.destination.partition.id": "3",
        "messaging.kafka.offset": 42,
        "messaging.consumer.group.name": "citewatch",
        "citewatch.trace_id": TRACE_ID,
        "citewatch.judged": True,
        "citewatch.claims": 3,
        "citewatch.critical_unsupported": 0,
        "citewatch.validity": 1.0,
        "citewatch.correctness": 0.5,
        "citewatch.completeness": 0.3333,
        "citewatch.sampled_by": "base",
    }

    assert judge.kind is SpanKind.CLIENT
    assert judge.parent is not None
    assert judge.parent.span_id == process.context.span_id
    assert judge.context.trace_id == process.context.trace_id
    assert dict(judge.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-test",
        "server.address": "api.example",
        "gen_ai.usage.input_tokens": 900,
        "gen_ai.usage.output_tokens": 120,
        "gen_ai.response.model": "gpt-test-1",
    }

    assert [(event.name, dict(event.attributes or {})) for event in process.events] == [
        (
            EVALUATION_EVENT,
            {
                "gen_ai.evaluation.name": "citation_support",
                "gen_ai.evaluation.score.label": "supported",
                "gen_ai.evaluation.score.value": 1.0,
                "citewatch.claim.id": "c1",
                "citewatch.claim.importance": 2,
            },
        ),
        (
            EVALUATION_EVENT,
            {
                "gen_ai.evaluation.name": "citation_support",
                "gen_ai.evaluation.score.label": "unsupported",
                "gen_ai.evaluation.score.value": 0.0,
                "citewatch.claim.id": "c2",
                "citewatch.claim.importance": 3,
                "citewatch.claim.critical_reason": "judged_unsupported",
            },
        ),
    ]
    everything = [
        *(process.attributes or {}).values(),
        *(judge.attributes or {}).values(),
        *(v for event in process.events for v in (event.attributes or {}).values()),
    ]
    assert CLAIM_TEXT not in everything


def test_judge_span_on_another_thread_takes_an_explicit_parent(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    tracer = get_tracer(provider)
    with consume_span(
        tracer, topic="rag.traces", partition=0, offset=1, consumer_group="g"
    ) as consumer:

        def call() -> None:
            with judge_span(tracer, model="gpt-test", parent=consumer) as span:
                set_judge_error(span, "timeout")

        worker = threading.Thread(target=call)
        worker.start()
        worker.join()
    finished = {span.name: span for span in exporter.get_finished_spans()}
    judge, process = finished["chat gpt-test"], finished["process rag.traces"]
    assert process.links == ()
    assert judge.parent is not None
    assert judge.parent.span_id == process.context.span_id
    assert judge.status.status_code is StatusCode.ERROR
    assert (judge.attributes or {})["error.type"] == "timeout"


def test_consumer_span_does_not_nest_under_the_current_span(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    tracer = get_tracer(provider)
    with tracer.start_as_current_span("poll loop"):
        with consume_span(tracer, topic="t", partition=0, offset=0, consumer_group="g"):
            pass
    process = next(s for s in exporter.get_finished_spans() if s.name == "process t")
    assert process.parent is None


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param([], id="absent"),
        pytest.param([("traceparent", b"garbage")], id="malformed"),
        pytest.param([("traceparent", b"\xff\xfe")], id="not-ascii"),
        pytest.param([("traceparent", None)], id="null-value"),
        pytest.param(
            [("traceparent", f"00-{'0' * 32}-{PRODUCER_SPAN}-01".encode())], id="zero-trace-id"
        ),
    ],
)
def test_no_link_without_a_valid_traceparent(headers: list[tuple[str, bytes | None]]) -> None:
    assert producer_link(headers) is None


def test_traceparent_header_name_is_case_insensitive() -> None:
    link = producer_link([("Traceparent", TRACEPARENT)])
    assert link is not None
    assert f"{link.context.trace_id:032x}" == PRODUCER_TRACE


@pytest.mark.parametrize(
    "environ",
    [
        pytest.param({}, id="unset"),
        pytest.param({"OTEL_TRACES_EXPORTER": "none"}, id="none"),
        pytest.param(
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"},
            id="disabled",
        ),
    ],
)
def test_configure_tracing_is_a_noop_without_exporter(environ: dict[str, str]) -> None:
    provider = configure_tracing(environ=environ)
    assert isinstance(provider, trace.NoOpTracerProvider)


def test_configure_tracing_with_otlp_endpoint_builds_an_sdk_provider() -> None:
    provider = configure_tracing(
        environ={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SERVICE_NAME": "cw"}
    )
    try:
        assert isinstance(provider, TracerProvider)
        assert provider.resource.attributes["service.name"] == "cw"
    finally:
        # Nothing was recorded, so shutdown sends nothing to the (absent) collector.
        provider.shutdown()


def test_configure_tracing_rejects_an_unknown_exporter() -> None:
    with pytest.raises(ValueError, match="zipkin"):
        configure_tracing(environ={"OTEL_TRACES_EXPORTER": "zipkin"})
