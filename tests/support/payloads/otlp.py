"""OTLP records: spans made by the opentelemetry-sdk, encoded with opentelemetry-proto as
the Collector's kafka exporter writes them."""

from __future__ import annotations

import base64
import json
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.support.payloads._base import RETURNS_TEXT, WARRANTY_TEXT, WARRANTY_URL


def openinference_spans(*, traces: int = 1) -> list[Any]:
    """Finished SDK spans of ``traces`` RAG requests (see :func:`record_rag_requests`)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support-rag"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    record_rag_requests(provider, traces=traces)
    provider.shutdown()
    return list(exporter.get_finished_spans())


_RAG_ANSWER = (
    "The warranty lasts 24 months [warranty-2]. Returns cost nothing for a year [returns-1]."
)
"""The answer each recorded RAG request's LLM span carries."""


def record_rag_requests(provider: TracerProvider, *, traces: int) -> list[str]:
    """Trace ``traces`` RAG requests with OpenInference attributes through ``provider``: a
    chain span with a retriever span (two documents) and an LLM span under it. Returns
    the W3C trace IDs, in hex."""
    tracer = provider.get_tracer("rag-app")
    trace_ids: list[str] = []
    for _ in range(traces):
        with tracer.start_as_current_span(
            "rag",
            attributes={
                "openinference.span.kind": "CHAIN",
                "input.value": "How long is the warranty?",
            },
        ) as root:
            trace_ids.append(format(root.get_span_context().trace_id, "032x"))
            with tracer.start_as_current_span(
                "retrieve",
                attributes={
                    "openinference.span.kind": "RETRIEVER",
                    "input.value": "How long is the warranty?",
                    "retrieval.documents.0.document.id": "warranty-2",
                    "retrieval.documents.0.document.content": WARRANTY_TEXT,
                    "retrieval.documents.0.document.metadata": json.dumps(
                        {"title": "Warranty", "url": WARRANTY_URL}
                    ),
                    "retrieval.documents.1.document.id": "returns-1",
                    "retrieval.documents.1.document.content": RETURNS_TEXT,
                },
            ):
                pass
            with tracer.start_as_current_span(
                "llm",
                attributes={
                    "openinference.span.kind": "LLM",
                    "llm.model_name": "gpt-4.1-mini",
                    "llm.prompt_template.version": "v7",
                    "llm.input_messages.0.message.role": "system",
                    "llm.input_messages.0.message.content": "Cite sources as [id].",
                    "llm.input_messages.1.message.role": "user",
                    "llm.input_messages.1.message.content": "How long is the warranty?",
                    "llm.output_messages.0.message.role": "assistant",
                    "llm.output_messages.0.message.content": _RAG_ANSWER,
                },
            ):
                pass
    return trace_ids


def otlp_proto_record(spans: list[Any]) -> bytes:
    """The spans as the Collector's kafka exporter writes ``otlp_proto``."""
    return bytes(encode_spans(spans).SerializeToString())


def otlp_json_record(spans: list[Any]) -> bytes:
    """The spans in the OTLP/JSON mapping (``otlp_json``): IDs as hex, as the Collector
    writes them (protobuf's own JSON mapping would write base64)."""
    data = MessageToDict(encode_spans(spans))
    for resource_spans in data["resourceSpans"]:
        for scope_spans in resource_spans["scopeSpans"]:
            for span in scope_spans["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = _hex(span[key])
    return json.dumps(data).encode()


def _hex(value: str) -> str:
    return base64.b64decode(value).hex()


def spans_of(build: Any, *, service: str = "support-rag") -> list[Any]:
    """The finished SDK spans ``build(tracer)`` records (one trace)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    build(provider.get_tracer("rag-app"))
    provider.shutdown()
    return list(exporter.get_finished_spans())


RETRIEVED = {
    "openinference.span.kind": "RETRIEVER",
    "input.value": '{"query_bundle": {"query_str": "How long is the warranty?"}}',
    "retrieval.documents.0.document.id": "warranty-2",
    "retrieval.documents.0.document.content": WARRANTY_TEXT,
    "retrieval.documents.0.document.metadata": json.dumps(
        {"file_name": "warranty.md", "url": WARRANTY_URL}
    ),
    "retrieval.documents.1.document.id": "returns-1",
    "retrieval.documents.1.document.content": RETURNS_TEXT,
}
"""A retriever span's attributes, its input as LlamaIndex writes it (JSON)."""
