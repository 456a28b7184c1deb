"""Records of about 1 MiB for each adapted format, each the shape that costs its adapter the
most per byte (many small citations, each naming a new document), and a trace v1 record of
the same size for the per-byte baseline."""

from __future__ import annotations

import json
from typing import Any

from tests.support.payloads import otlp_json_record, otlp_proto_record, spans_of

MIB = 1_048_576
_TEXT = "Word. " * 9_000  # 54,000 characters: the answer stays under the text limit


def _fill(make: Any, size: int = MIB - 16_384) -> bytes:
    """``make(n)`` for about the largest ``n`` whose record stays under ``size`` bytes."""
    base, per = len(make(100)), (len(make(200)) - len(make(100))) / 100
    n = max(1, int((size - base) / max(per, 1.0)) + 100)
    record = make(n)
    while len(record) > size:
        n = n * 19 // 20
        record = make(n)
    return bytes(record)


def _at(i: int) -> tuple[int, int]:
    start = (i * 6) % (len(_TEXT) - 6)
    return start, start + 5


def responses(n: int) -> bytes:
    notes = [
        {
            "type": "url_citation",
            "start_index": _at(i)[0],
            "end_index": _at(i)[1],
            "url": f"https://docs.example/{i}",
            "title": "",
        }
        for i in range(n)
    ]
    message = {
        "type": "message",
        "content": [{"type": "output_text", "text": _TEXT, "annotations": notes}],
    }
    return json.dumps(
        {"app": "a", "response": {"id": "r", "object": "response", "output": [message]}}
    ).encode()


def chat(n: int) -> bytes:
    notes = [
        {
            "type": "url_citation",
            "url_citation": {
                "start_index": _at(i)[0],
                "end_index": _at(i)[1],
                "url": f"https://docs.example/{i}",
                "title": "",
            },
        }
        for i in range(n)
    ]
    choice = {"index": 0, "message": {"role": "assistant", "content": _TEXT, "annotations": notes}}
    return json.dumps(
        {"app": "a", "response": {"id": "c", "object": "chat.completion", "choices": [choice]}}
    ).encode()


def anthropic(n: int) -> bytes:
    documents = [
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": f"Passage {i}."},
        }
        for i in range(n)
    ]
    blocks = [
        {
            "type": "text",
            "text": f"Claim {i}.",
            "citations": [
                {
                    "type": "char_location",
                    "cited_text": f"Passage {i}.",
                    "document_index": i,
                    "start_char_index": 0,
                    "end_char_index": 10,
                }
            ],
        }
        for i in range(n)
    ]
    request = {
        "messages": [{"role": "user", "content": [*documents, {"type": "text", "text": "Q?"}]}]
    }
    response = {"id": "m", "type": "message", "model": "m", "content": blocks}
    return json.dumps({"app": "a", "request": request, "response": response}).encode()


def gemini(n: int) -> bytes:
    chunks = [{"web": {"uri": f"https://docs.example/{i}", "title": "t"}} for i in range(n)]
    supports = [
        {"segment": {"startIndex": _at(i)[0], "endIndex": _at(i)[1]}, "groundingChunkIndices": [i]}
        for i in range(n)
    ]
    candidate = {
        "content": {"role": "model", "parts": [{"text": _TEXT}]},
        "groundingMetadata": {"groundingChunks": chunks, "groundingSupports": supports},
    }
    return json.dumps(
        {"app": "a", "response": {"responseId": "g", "candidates": [candidate]}}
    ).encode()


def bedrock(n: int) -> bytes:
    citations = [
        {
            "generatedResponsePart": {
                "textResponsePart": {
                    "text": "Word.",
                    "span": {"start": _at(i)[0], "end": _at(i)[1] - 1},
                }
            },
            "retrievedReferences": [
                {
                    "content": {"text": f"Passage {i}."},
                    "location": {"s3Location": {"uri": f"s3://kb/{i}"}},
                }
            ],
        }
        for i in range(n)
    ]
    return json.dumps(
        {"app": "a", "response": {"output": {"text": _TEXT}, "citations": citations}}
    ).encode()


def _spans(n: int) -> list[Any]:
    """A root span, ``n`` retriever spans of one document each, the LLM span."""

    def build(tracer: Any) -> None:
        with tracer.start_as_current_span("rag", attributes={"input.value": "Q?"}):
            for i in range(n):
                with tracer.start_as_current_span(
                    "retrieve",
                    attributes={
                        "openinference.span.kind": "RETRIEVER",
                        "retrieval.documents.0.document.id": f"doc-{i}",
                        "retrieval.documents.0.document.content": f"Passage {i}.",
                        "retrieval.documents.0.document.metadata": json.dumps({"url": f"u/{i}"}),
                    },
                ):
                    pass
            with tracer.start_as_current_span(
                "llm",
                attributes={
                    "openinference.span.kind": "LLM",
                    "llm.output_messages.0.message.content": "Fact [doc-0].",
                },
            ):
                pass

    return spans_of(build)


def otlp_json(n: int) -> bytes:
    return otlp_json_record(_spans(n))


def otlp_proto(n: int) -> bytes:
    return otlp_proto_record(_spans(n))


def trace_v1(n: int) -> bytes:
    sources = [{"id": f"S{i}", "title": "", "text": f"Passage {i}."} for i in range(n)]
    return json.dumps(
        {
            "trace_id": "ab" * 16,
            "timestamp": "2026-12-01T10:00:00Z",
            "app": "a",
            "generator": {"model": "m", "prompt_version": "v"},
            "question": "Q?",
            "answer": "Fact [S0].",
            "sources": sources,
        }
    ).encode()


WORST = {
    "openai_responses": responses,
    "openai_chat": chat,
    "anthropic_messages": anthropic,
    "gemini": gemini,
    "bedrock": bedrock,
    "otlp_json": otlp_json,
    "otlp_proto": otlp_proto,
}
"""Format -> a builder of its costliest record shape with ``n`` citations or documents."""


def worst(name: str) -> bytes:
    """The format's costliest record of about 1 MiB (trace v1's: ``name`` "trace_v1")."""
    return _fill(trace_v1 if name == "trace_v1" else WORST[name])
