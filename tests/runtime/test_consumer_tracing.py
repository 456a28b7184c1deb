"""The Kafka loop's CONSUMER spans: linked to the producer, messaging attributes, no text."""

from __future__ import annotations

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from prometheus_client import CollectorRegistry

from exporters.kafka import KafkaEmitter
from exporters.prometheus import CitewatchMetrics
from exporters.tracing import get_tracer
from sidecar.config import Settings
from sidecar.pipeline import Pipeline
from sidecar.runtime.consumer import KafkaRunner
from tests.runtime.test_consumer import TOPIC, TP, FakeConsumer, FakeProducer, _spin, _trace
from tests.support.factories import trace_dict

PRODUCER_TRACE = "0af7651916cd43dd8448eb211c80319c"
PRODUCER_SPAN = "b7ad6b7169203331"


def test_each_record_gets_a_consumer_span_linked_to_its_producer() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    consumer = FakeConsumer({0: [_trace(0), b"not json"]})
    header = ("traceparent", f"00-{PRODUCER_TRACE}-{PRODUCER_SPAN}-01".encode())
    consumer.logs[TP(TOPIC, 0)] = [
        r._replace(headers=[header]) for r in consumer.logs[TP(TOPIC, 0)]
    ]
    settings = Settings(kafka={"commit_interval_seconds": 0.001, "group_id": "cw-test"})
    runner = KafkaRunner(
        settings=settings,
        consumer=consumer,
        emitter=KafkaEmitter(
            FakeProducer(), evaluations_topic="evals", dead_letter_topic="dlt", group_id="cw-test"
        ),
        pipeline=Pipeline(settings),
        metrics=CitewatchMetrics(registry=CollectorRegistry()),
        offset_and_metadata=lambda position: position,
        tracer=get_tracer(provider),
    )
    runner.worker.start()
    consumer.subscribe([TOPIC], listener=runner._listener(runner.events))
    try:
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 2})
    finally:
        runner.shutdown()

    spans = sorted(
        exporter.get_finished_spans(), key=lambda s: (s.attributes or {})["messaging.kafka.offset"]
    )
    assert [s.name for s in spans] == [f"process {TOPIC}"] * 2
    good, bad = spans
    for span in spans:
        assert span.kind == SpanKind.CONSUMER
        assert span.parent is None
        [link] = span.links
        assert f"{link.context.trace_id:032x}" == PRODUCER_TRACE
        assert f"{link.context.span_id:016x}" == PRODUCER_SPAN
        attributes = dict(span.attributes or {})
        assert attributes["messaging.system"] == "kafka"
        assert attributes["messaging.destination.name"] == TOPIC
        assert attributes["messaging.destination.partition.id"] == "0"
        assert attributes["messaging.consumer.group.name"] == "cw-test"
    assert (good.attributes or {})["citewatch.trace_id"] == f"{1:032x}"
    assert (good.attributes or {})["citewatch.validity"] == 1.0
    assert (bad.attributes or {})["error.type"] == "not_json"
    assert bad.status.status_code == StatusCode.ERROR
    texts = [trace_dict()["question"], trace_dict()["answer"]]
    assert not [t for s in spans for t in texts if t in s.to_json()]
