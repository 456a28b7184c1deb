"""OpenTelemetry spans (OpenInference and GenAI semantic conventions) as one trace v1.

A record is one ``ExportTraceServiceRequest`` as the Collector's kafka exporter writes it
(``otlp_proto`` or ``otlp_json``) holding the spans of one trace: the Collector's
``groupbytrace`` processor releases each trace's spans together and the exporter's
``partition_traces_by_id`` writes each trace as a message of its own. A record holding spans
of several traces is a dead letter that says so; spans that arrive in separate records are
not joined.

Mapped, from the spans of the trace:

- sources: the documents of every retriever span, in order: OpenInference's
  ``retrieval.documents.N.document.{id,content,metadata}`` (a span with
  ``openinference.span.kind = RETRIEVER``), or ``gen_ai.retrieval.documents`` (a JSON list of
  ``{id, content|text, title, url}``). A document without an ID is ``D1``, ``D2`` ...;
- the answer: the last-ending LLM span's output (``llm.output_messages.N.message.content``,
  else ``output.value``; GenAI: ``gen_ai.output.messages`` or ``gen_ai.completion``), with
  the markers the app's prompt asked for; claims are derived from its sentences;
- the question: the LLM span's last user message (``llm.input_messages.N.message``,
  ``gen_ai.input.messages``), else a retriever's or the root's ``input.value``;
- the model: ``llm.model_name``, ``gen_ai.response.model`` or ``gen_ai.request.model``;
  the prompt version ``llm.prompt_template.version``; the app the resource's
  ``service.name``; the trace ID is the W3C trace ID of the spans, so the evaluation record
  links to the producer's trace.

Lost: tool and embedding spans, documents' scores, span links.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from schemas import InputFormat
from sidecar.inputs._json import loads
from sidecar.inputs._otlp_wire import Span, spans_from_json, spans_from_proto
from sidecar.inputs.base import DEFAULT_APP, InputError

__all__ = ["OtlpAdapter"]

_LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})


class OtlpAdapter:
    """The spans of one trace, protobuf or JSON, as a trace v1 object."""

    def __init__(self, format: InputFormat) -> None:  # noqa: A002 - the setting's name
        if format not in ("otlp_proto", "otlp_json"):
            raise ValueError(f"not an OTLP format: {format}")
        self.format: InputFormat = format

    def to_trace(self, value: bytes) -> dict[str, Any]:
        """See :class:`sidecar.inputs.base.InputAdapter`."""
        spans = (
            spans_from_proto(value)
            if self.format == "otlp_proto"
            else spans_from_json(loads(value))
        )
        trace_ids = {span.trace_id for span in spans}
        if not trace_ids:
            raise InputError("the record holds no spans")
        if len(trace_ids) > 1:
            raise InputError(
                f"the record holds spans of {len(trace_ids)} traces; group them "
                "by trace (the Collector's groupbytrace, partition_traces_by_id)"
            )
        llm = [span for span in spans if _is_llm(span)]
        if not llm:
            raise InputError("the trace has no LLM span")
        answer_span = max(llm, key=lambda span: span.end_ns)
        answer = _answer(answer_span)
        if not answer:
            raise InputError("the LLM span carries no output text")
        sources = _sources([span for span in spans if _is_retriever(span)])
        question = _question(answer_span) or next(
            (
                str(span.attributes["input.value"])
                for span in spans
                if _is_retriever(span) and isinstance(span.attributes.get("input.value"), str)
            ),
            "",
        )
        attributes = answer_span.attributes
        model = (
            attributes.get("llm.model_name")
            or attributes.get("gen_ai.response.model")
            or attributes.get("gen_ai.request.model")
            or "unknown"
        )
        end_ns = answer_span.end_ns
        timestamp = datetime.fromtimestamp(end_ns / 1e9, tz=UTC) if end_ns else datetime.now(tz=UTC)
        return {
            "trace_id": answer_span.trace_id,
            "timestamp": timestamp.isoformat(),
            "app": str(answer_span.resource.get("service.name") or DEFAULT_APP),
            "generator": {
                "model": str(model),
                "prompt_version": str(attributes.get("llm.prompt_template.version") or "unknown"),
            },
            "question": question,
            "answer": answer,
            "sources": sources,
        }


def _kind(span: Span) -> str:
    return str(span.attributes.get("openinference.span.kind") or "").upper()


def _is_llm(span: Span) -> bool:
    operation = span.attributes.get("gen_ai.operation.name")
    return _kind(span) == "LLM" or (isinstance(operation, str) and operation in _LLM_OPERATIONS)


def _is_retriever(span: Span) -> bool:
    return (
        _kind(span) == "RETRIEVER"
        or "gen_ai.retrieval.documents" in span.attributes
        or span.attributes.get("gen_ai.operation.name") == "retrieval"
    )


def _indexed(attributes: dict[str, Any], prefix: str, suffix: str) -> list[tuple[int, Any]]:
    """``(N, value)`` of every attribute ``prefix + N + suffix``, by N."""
    found: list[tuple[int, Any]] = []
    for key, value in attributes.items():
        if key.startswith(prefix) and key.endswith(suffix):
            middle = key[len(prefix) : len(key) - len(suffix)]
            if middle.isdigit():
                found.append((int(middle), value))
    return sorted(found, key=lambda item: item[0])


def _json_list(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return []
        return parsed if isinstance(parsed, list) else []
    return []


def _message_text(message: Any) -> str:
    """The text of a GenAI message: ``content`` or its text ``parts``."""
    if not isinstance(message, dict):
        return ""
    if isinstance(message.get("content"), str):
        return str(message["content"])
    return "".join(
        str(part.get("content") or part.get("text") or "")
        for part in message.get("parts") or ()
        if isinstance(part, dict) and part.get("type", "text") == "text"
    )


def _answer(span: Span) -> str:
    attributes = span.attributes
    outputs = _indexed(attributes, "llm.output_messages.", ".message.content")
    if outputs:
        return str(outputs[-1][1])
    for message in reversed(_json_list(attributes.get("gen_ai.output.messages"))):
        text = _message_text(message)
        if text:
            return text
    for key in ("gen_ai.completion", "output.value"):
        if isinstance(attributes.get(key), str):
            return str(attributes[key])
    for name, event_attributes in reversed(span.events):
        if name == "gen_ai.choice":
            text = _message_text(event_attributes.get("message")) or str(
                event_attributes.get("content") or ""
            )
            if text:
                return text
    return ""


def _question(span: Span) -> str:
    attributes = span.attributes
    roles = dict(_indexed(attributes, "llm.input_messages.", ".message.role"))
    for index, content in reversed(_indexed(attributes, "llm.input_messages.", ".message.content")):
        if roles.get(index) == "user":
            return str(content)
    for message in reversed(_json_list(attributes.get("gen_ai.input.messages"))):
        if isinstance(message, dict) and message.get("role") == "user":
            return _message_text(message)
    value = attributes.get("input.value")
    return value if isinstance(value, str) and _kind(span) != "LLM" else ""


def _sources(retrievers: list[Span]) -> list[dict[str, Any]]:
    sources: list[dict[str, Any]] = []
    seen: set[str] = set()
    for span in retrievers:
        attributes = span.attributes
        documents: list[dict[str, Any]] = []
        contents = dict(_indexed(attributes, "retrieval.documents.", ".document.content"))
        ids = dict(_indexed(attributes, "retrieval.documents.", ".document.id"))
        metadata = dict(_indexed(attributes, "retrieval.documents.", ".document.metadata"))
        for index in sorted(set(contents) | set(ids)):
            meta = metadata.get(index)
            meta = json.loads(meta) if isinstance(meta, str) and meta.startswith("{") else meta
            documents.append(
                {
                    "id": ids.get(index),
                    "content": contents.get(index, ""),
                    **(meta if isinstance(meta, dict) else {}),
                }
            )
        documents.extend(
            doc
            for doc in _json_list(attributes.get("gen_ai.retrieval.documents"))
            if isinstance(doc, dict)
        )
        for document in documents:
            source_id = str(document.get("id") or f"D{len(sources) + 1}")
            if source_id in seen:
                continue
            seen.add(source_id)
            source: dict[str, Any] = {
                "id": source_id,
                "title": str(document.get("title") or ""),
                "text": str(document.get("content") or document.get("text") or ""),
            }
            url = document.get("url") or document.get("source")
            if isinstance(url, str):
                source["url"] = url
            sources.append(source)
    return sources
