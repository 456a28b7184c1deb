"""Judge calls as CLIENT spans under the consumer span, with GenAI attributes and no text."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from exporters.tracing import consume_span, get_tracer, record_evaluation
from sidecar.assembly import build_pipeline
from sidecar.config import Settings
from sidecar.judge import JudgeStageImpl
from tests.support.openai_server import FakeOpenAI, Status, verdicts_reply
from tests.support.traces import refund_trace

pytestmark = pytest.mark.integration

MODEL = "judge-model-2026-01-01"


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def _traced(server: FakeOpenAI) -> tuple[InMemorySpanExporter, TracerProvider, Settings]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = Settings(
        judge={
            "backend": "openai-chat",
            "base_url": server.base_url,
            "api_key": "test-key",
            "model": MODEL,
            "timeout_seconds": 2.0,
            "retry_base_seconds": 0.001,
            "max_retries": 0,
            "screen": False,
        },
        sampling={"rate": 1.0},
        redaction={"enabled": True},
    )
    return exporter, provider, settings


def _evaluate_in_consumer_span(provider: TracerProvider, settings: Settings) -> None:
    pipeline = build_pipeline(settings, tracer=get_tracer(provider))
    assert isinstance(pipeline.judge, JudgeStageImpl)
    stage = pipeline.judge

    async def run() -> None:
        with consume_span(
            get_tracer(provider),
            topic="rag.traces",
            partition=1,
            offset=42,
            consumer_group="citewatch",
        ) as span:
            record = await pipeline.evaluate(refund_trace())
            record_evaluation(span, record)
        await stage.aclose(1.0)

    asyncio.run(run())


def test_judge_call_is_a_client_child_span_with_genai_attributes(server: FakeOpenAI) -> None:
    server.script(
        verdicts_reply(
            [
                {
                    "claim_id": "C1",
                    "verdict": "supported",
                    "evidence_quote": "refund within 30 days",
                    "reason": "States it.",
                },
                {"claim_id": "C2", "verdict": "unsupported", "evidence_quote": "", "reason": "No."},
            ]
        )
    )
    exporter, provider, settings = _traced(server)
    _evaluate_in_consumer_span(provider, settings)

    spans = {span.name: span for span in exporter.get_finished_spans()}
    consumer = spans["process rag.traces"]
    client = spans[f"chat {MODEL}"]
    assert consumer.kind == SpanKind.CONSUMER and client.kind == SpanKind.CLIENT
    assert client.parent is not None and client.parent.span_id == consumer.context.span_id
    assert client.context.trace_id == consumer.context.trace_id
    attributes = dict(client.attributes or {})
    assert attributes["gen_ai.operation.name"] == "chat"
    assert attributes["gen_ai.request.model"] == MODEL
    assert attributes["gen_ai.usage.input_tokens"] > 0
    assert attributes["gen_ai.usage.output_tokens"] > 0
    events = [e for e in consumer.events if e.name == "gen_ai.evaluation.result"]
    assert sorted((e.attributes or {})["gen_ai.evaluation.score.label"] for e in events) == [
        "supported",
        "unsupported",
    ]

    trace = refund_trace()
    texts = [
        trace.question,
        trace.answer,
        *(s.text for s in trace.sources),
        *(c.text for c in trace.claims),
    ]
    for span in exporter.get_finished_spans():
        dumped = span.to_json()
        assert not [t for t in texts if t and t in dumped]


def test_failed_judge_call_marks_its_span(server: FakeOpenAI) -> None:
    server.script(Status(500), Status(500), Status(500))
    exporter, provider, settings = _traced(server)
    _evaluate_in_consumer_span(provider, settings)
    [client] = [s for s in exporter.get_finished_spans() if s.kind == SpanKind.CLIENT]
    assert (client.attributes or {})["error.type"] == "api_error"
    assert not client.status.is_ok
