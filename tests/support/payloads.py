"""Records of each input format, built with the SDKs' own models (openai, anthropic,
opentelemetry-sdk and opentelemetry-proto), serialised as the wire carries them."""

from __future__ import annotations

import json
from typing import Any

import anthropic.types as anthropic_types
from anthropic.types import DocumentBlockParam, MessageParam, SearchResultBlockParam
from google.protobuf.json_format import MessageToDict
from openai.types.chat import ChatCompletion
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_message import (
    Annotation,
    AnnotationURLCitation,
    ChatCompletionMessage,
)
from openai.types.responses import (
    Response,
    ResponseFileSearchToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_file_search_tool_call import Result
from openai.types.responses.response_output_text import (
    AnnotationFileCitation,
)
from openai.types.responses.response_output_text import (
    AnnotationURLCitation as ResponsesURLCitation,
)
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

WARRANTY_URL = "https://shop.example/warranty"
WARRANTY_TEXT = "Every product carries a warranty of 24 months from delivery."
RETURNS_TEXT = "Returns are free within 30 days of delivery."
LINK = f"([shop.example]({WARRANTY_URL}))"


def responses_record(**envelope: Any) -> bytes:
    """A Responses API exchange: a url_citation (inline link) and a file_citation whose
    text comes from file_search_call results; one sentence is left uncited."""
    text = (
        f"The warranty lasts 24 months {LINK}. Returns are free within 30 days. "
        "Shipping is always free."
    )
    start = text.index(LINK)
    file_at = text.index(" Shipping")
    response = Response(
        id="resp_0001",
        created_at=1764700000,
        model="gpt-4.1",
        object="response",
        parallel_tool_calls=False,
        tool_choice="auto",
        tools=[],
        output=[
            ResponseFileSearchToolCall(
                id="fs_1",
                queries=["returns"],
                status="completed",
                type="file_search_call",
                results=[
                    Result(
                        file_id="file-returns", filename="returns.md", score=0.9, text=RETURNS_TEXT
                    )
                ],
            ),
            ResponseOutputMessage(
                id="msg_1",
                role="assistant",
                status="completed",
                type="message",
                content=[
                    ResponseOutputText(
                        type="output_text",
                        text=text,
                        annotations=[
                            ResponsesURLCitation(
                                type="url_citation",
                                start_index=start,
                                end_index=start + len(LINK),
                                url=WARRANTY_URL,
                                title="Warranty",
                            ),
                            AnnotationFileCitation(
                                type="file_citation",
                                file_id="file-returns",
                                filename="returns.md",
                                index=file_at,
                            ),
                        ],
                    )
                ],
            ),
        ],
    )
    record = {
        "app": "shop",
        "request": {"model": "gpt-4.1", "input": "What are the warranty and returns?"},
        "response": json.loads(response.model_dump_json()),
        "sources": [{"url": WARRANTY_URL, "text": WARRANTY_TEXT}],
        **envelope,
    }
    return json.dumps(record).encode()


def chat_record(**envelope: Any) -> bytes:
    """A Chat Completions exchange with one url_citation annotation over an inline link."""
    text = f"The warranty lasts 24 months {LINK}."
    start = text.index(LINK)
    completion = ChatCompletion(
        id="chatcmpl-0001",
        created=1764700000,
        model="gpt-4o-search-preview",
        object="chat.completion",
        choices=[
            Choice(
                index=0,
                finish_reason="stop",
                message=ChatCompletionMessage(
                    role="assistant",
                    content=text,
                    annotations=[
                        Annotation(
                            type="url_citation",
                            url_citation=AnnotationURLCitation(
                                start_index=start,
                                end_index=start + len(LINK),
                                url=WARRANTY_URL,
                                title="Warranty",
                            ),
                        )
                    ],
                ),
            )
        ],
    )
    request = {
        "model": "gpt-4o-search-preview",
        "messages": [
            {"role": "system", "content": "Answer with sources."},
            {"role": "user", "content": "How long is the warranty?"},
        ],
    }
    record = {
        "app": "shop",
        "request": request,
        "response": json.loads(completion.model_dump_json()),
        "sources": [{"url": WARRANTY_URL, "text": WARRANTY_TEXT}],
        **envelope,
    }
    return json.dumps(record).encode()


def anthropic_record(
    *, cited_text: str = "Refunds are issued within 14 days.", **envelope: Any
) -> bytes:
    """A Messages API exchange: two documents and a search result in the request, a text
    block citing document 0 with ``cited_text`` (a char_location)."""
    policy = "Refunds are issued within 14 days. Store credit never expires."
    documents: list[DocumentBlockParam] = [
        {
            "type": "document",
            "title": "Refund policy",
            "citations": {"enabled": True},
            "source": {"type": "text", "media_type": "text/plain", "data": policy},
        },
        {
            "type": "document",
            "title": "Shipping",
            "citations": {"enabled": True},
            "source": {
                "type": "text",
                "media_type": "text/plain",
                "data": "Orders ship within two days.",
            },
        },
    ]
    search: SearchResultBlockParam = {
        "type": "search_result",
        "source": "https://shop.example/faq",
        "title": "FAQ",
        "content": [{"type": "text", "text": "Gift cards cannot be refunded."}],
        "citations": {"enabled": True},
    }
    messages: list[MessageParam] = [
        {
            "role": "user",
            "content": [*documents, search, {"type": "text", "text": "When do I get my refund?"}],
        }
    ]
    message = anthropic_types.Message(
        id="msg_0001",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        stop_reason="end_turn",
        stop_sequence=None,
        usage=anthropic_types.Usage(input_tokens=120, output_tokens=30),
        content=[
            anthropic_types.TextBlock(type="text", text="According to the policy, "),
            anthropic_types.TextBlock(
                type="text",
                text="refunds are issued within 14 days",
                citations=[
                    anthropic_types.CitationCharLocation(
                        type="char_location",
                        cited_text=cited_text,
                        document_index=0,
                        document_title="Refund policy",
                        start_char_index=0,
                        end_char_index=34,
                    )
                ],
            ),
            anthropic_types.TextBlock(type="text", text=". "),
            anthropic_types.TextBlock(
                type="text",
                text="Gift cards cannot be refunded",
                citations=[
                    anthropic_types.CitationsSearchResultLocation(
                        type="search_result_location",
                        cited_text="Gift cards cannot be refunded.",
                        search_result_index=0,
                        start_block_index=0,
                        end_block_index=1,
                        source="https://shop.example/faq",
                        title="FAQ",
                    )
                ],
            ),
            anthropic_types.TextBlock(type="text", text="."),
        ],
    )
    record = {
        "app": "shop",
        "timestamp": "2026-12-01T10:00:00Z",
        "request": {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages},
        "response": json.loads(message.model_dump_json()),
        **envelope,
    }
    return json.dumps(record).encode()


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
    import base64

    return base64.b64decode(value).hex()
