"""OpenTelemetry tracing of trace processing, with an injected TracerProvider.

One CONSUMER span ``process <topic>`` per Kafka record, linked (not parented) to the
producer's context from the record's W3C ``traceparent`` header, with the messaging semantic
conventions; judge calls as CLIENT child spans with the GenAI conventions; each claim verdict
as a ``gen_ai.evaluation.result`` event. Attributes carry IDs, labels and numbers only, never
trace text (questions, answers, claims, sources, judge reasons or quotes).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from opentelemetry.trace import (
    INVALID_SPAN,
    Link,
    NoOpTracer,
    Span,
    SpanKind,
    Status,
    StatusCode,
    Tracer,
    TracerProvider,
)
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from schemas import ClaimResult, EvaluationRecord

__all__ = [
    "EVALUATION_EVENT",
    "TRACER_NAME",
    "KafkaHeaders",
    "add_evaluation_events",
    "configure_tracing",
    "consume_span",
    "get_tracer",
    "judge_span",
    "producer_link",
    "record_evaluation",
    "set_judge_error",
    "set_judge_usage",
]

logger = logging.getLogger(__name__)

TRACER_NAME = "citewatch"
EVALUATION_EVENT = "gen_ai.evaluation.result"
EVALUATION_NAME = "citation_support"
"""``gen_ai.evaluation.name`` of the verdict events: does the cited passage support the claim."""

KafkaHeaders = Sequence[tuple[str, bytes | None]]
"""Kafka record headers as kafka-python gives them: (name, value) pairs."""

_VERDICT_SCORES = {"supported": 1.0, "partial": 0.5, "unsupported": 0.0}
_PROPAGATOR = TraceContextTextMapPropagator()
_TRACE_HEADERS = ("traceparent", "tracestate")


def get_tracer(provider: TracerProvider) -> Tracer:
    """The citewatch tracer of ``provider``."""
    return provider.get_tracer(TRACER_NAME)


def _carrier(headers: KafkaHeaders) -> dict[str, str]:
    carrier: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        if key not in _TRACE_HEADERS or value is None:
            continue
        try:
            carrier[key] = value.decode("ascii")
        except UnicodeDecodeError:
            logger.debug("ignoring a %s header that is not ASCII", key)
    return carrier


def producer_link(headers: KafkaHeaders) -> Link | None:
    """A link to the producer's span from the record's ``traceparent`` header, if valid."""
    context = _PROPAGATOR.extract(_carrier(headers))
    span_context = trace.get_current_span(context).get_span_context()
    if not span_context.is_valid:
        return None
    return Link(span_context)


@contextmanager
def consume_span(
    tracer: Tracer,
    *,
    topic: str,
    partition: int,
    offset: int,
    consumer_group: str,
    headers: KafkaHeaders = (),
) -> Iterator[Span]:
    """Start the CONSUMER span ``process <topic>`` for one Kafka record, as the current span.

    The span is a new root linked to the producer context (messaging conventions for
    process spans), so one slow evaluation does not stretch the producer's trace.
    An exception escaping the block is recorded and marks the span as an error.
    With a no-op tracer (nothing exports spans) and no recording span around, the span
    would be the invalid one: it is yielded without parsing headers or building attributes.
    """
    if isinstance(tracer, NoOpTracer) and not trace.get_current_span().is_recording():
        yield INVALID_SPAN
        return
    link = producer_link(headers)
    attributes: dict[str, str | int] = {
        "messaging.system": "kafka",
        "messaging.operation.type": "process",
        "messaging.operation.name": "process",
        "messaging.destination.name": topic,
        "messaging.destination.partition.id": str(partition),
        "messaging.kafka.offset": offset,
        "messaging.consumer.group.name": consumer_group,
    }
    with tracer.start_as_current_span(
        f"process {topic}",
        context=Context(),
        kind=SpanKind.CONSUMER,
        links=[link] if link is not None else None,
        attributes=attributes,
    ) as span:
        yield span


@contextmanager
def judge_span(
    tracer: Tracer,
    *,
    model: str,
    provider_name: str = "openai",
    operation: str = "chat",
    server_address: str | None = None,
    parent: Span | None = None,
) -> Iterator[Span]:
    """Start a CLIENT span ``<operation> <model>`` for one judge call (GenAI conventions).

    ``parent`` is the consumer span when the judge runs on another thread or task than the
    one that opened it; otherwise the current span is the parent. Report tokens with
    :func:`set_judge_usage` and failures with :func:`set_judge_error`.
    """
    attributes: dict[str, str] = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": provider_name,
        "gen_ai.request.model": model,
    }
    if server_address:
        attributes["server.address"] = server_address
    context = trace.set_span_in_context(parent) if parent is not None else None
    with tracer.start_as_current_span(
        f"{operation} {model}", context=context, kind=SpanKind.CLIENT, attributes=attributes
    ) as span:
        yield span


def set_judge_usage(
    span: Span, *, input_tokens: int, output_tokens: int, response_model: str | None = None
) -> None:
    """Record the token usage (and the model that answered) on a judge span."""
    span.set_attribute("gen_ai.usage.input_tokens", input_tokens)
    span.set_attribute("gen_ai.usage.output_tokens", output_tokens)
    if response_model:
        span.set_attribute("gen_ai.response.model", response_model)


def set_judge_error(span: Span, error_type: str) -> None:
    """Mark a judge span as failed with a short error type (e.g. ``timeout``), no message."""
    span.set_attribute("error.type", error_type)
    span.set_status(Status(StatusCode.ERROR))


def add_evaluation_events(span: Span, claims: Sequence[ClaimResult]) -> int:
    """Add one ``gen_ai.evaluation.result`` event per judged claim; returns how many.

    Each event carries the claim ID, its importance, the verdict label and its score value,
    and the critical reason if any; never the claim text, judge reason or evidence quote.
    """
    added = 0
    for claim in claims:
        if claim.verdict is None:
            continue
        attributes: dict[str, str | int | float] = {
            "gen_ai.evaluation.name": EVALUATION_NAME,
            "gen_ai.evaluation.score.label": claim.verdict,
            "gen_ai.evaluation.score.value": _VERDICT_SCORES[claim.verdict],
            "citewatch.claim.id": claim.claim_id,
            "citewatch.claim.importance": claim.importance,
        }
        if claim.critical_reason is not None:
            attributes["citewatch.claim.critical_reason"] = claim.critical_reason
        span.add_event(EVALUATION_EVENT, attributes=attributes)
        added += 1
    return added


def record_evaluation(span: Span, record: EvaluationRecord) -> None:
    """Put an evaluation's IDs, scores and verdict events on the consumer span."""
    if not span.is_recording():
        return  # a non-recording span drops them anyway
    attributes: dict[str, str | int | float | bool] = {
        "citewatch.trace_id": record.trace_id,
        "citewatch.judged": record.judged,
        "citewatch.claims": len(record.claims),
        "citewatch.critical_unsupported": record.scores.critical_unsupported,
        "citewatch.validity": record.scores.validity,
    }
    if record.scores.correctness is not None:
        attributes["citewatch.correctness"] = record.scores.correctness
    if record.scores.completeness is not None:
        attributes["citewatch.completeness"] = record.scores.completeness
    if record.sampled_by is not None:
        attributes["citewatch.sampled_by"] = record.sampled_by
    if record.skip_reason is not None:
        attributes["citewatch.judge.skip_reason"] = record.skip_reason
    span.set_attributes(attributes)
    add_evaluation_events(span, record.claims)


def configure_tracing(
    *, service_name: str = "citewatch", environ: Mapping[str, str] | None = None
) -> TracerProvider:
    """The TracerProvider the standard OTEL_* environment variables ask for.

    OTLP over HTTP when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``..._TRACES_ENDPOINT``) is set or
    ``OTEL_TRACES_EXPORTER`` is ``otlp``; ``console`` prints spans; otherwise, with
    ``OTEL_TRACES_EXPORTER=none`` or ``OTEL_SDK_DISABLED=true``, a no-op provider. The exporter
    reads its endpoint, headers and timeout from the environment itself. The caller owns the
    provider and calls ``shutdown()`` on an SDK provider at exit to flush spans.

    Raises:
        ValueError: if ``OTEL_TRACES_EXPORTER`` names an exporter citewatch does not ship.
    """
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return trace.NoOpTracerProvider()
    names = [n.strip().lower() for n in env.get("OTEL_TRACES_EXPORTER", "").split(",") if n.strip()]
    if not names and (
        env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    ):
        names = ["otlp"]
    names = [n for n in names if n != "none"]
    if not names:
        return trace.NoOpTracerProvider()
    exporters = [_exporter(name) for name in names]
    attributes = {"service.name": env.get("OTEL_SERVICE_NAME") or service_name}
    provider = SdkTracerProvider(resource=Resource.create(attributes))
    for exporter in exporters:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    logger.info("tracing enabled with exporters %s", ",".join(names))
    return provider


def _exporter(name: str) -> SpanExporter:
    if name == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter()
    if name == "console":
        return ConsoleSpanExporter()
    raise ValueError(f"OTEL_TRACES_EXPORTER={name!r} is not supported; use otlp, console or none")
