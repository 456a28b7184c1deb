"""OpenTelemetry spans (OpenInference, OpenTelemetry GenAI, OpenLLMetry and Vercel AI SDK
conventions) as one trace v1.

A record is one ``ExportTraceServiceRequest`` as the Collector's kafka exporter writes it
(``otlp_proto`` or ``otlp_json``) holding the spans of one trace: the Collector's
``groupbytrace`` processor releases each trace's spans together and the exporter's
``partition_traces_by_id`` writes each trace as a message of its own. A record holding spans
of several traces is a dead letter that says so; spans that arrive in separate records are
not joined, so a record without a retriever span (no sources) or without an LLM span that
wrote text is a dead letter naming what is missing.

Mapped, from the spans of the trace:

- sources: the documents of every retriever span, in the order the spans started:
  OpenInference's ``retrieval.documents.N.document.{id,content,metadata}`` (a span with
  ``openinference.span.kind = RETRIEVER``; the metadata's title or file name and URL, and
  its ``id`` or ``doc_id`` when the span names no document ID), or
  ``gen_ai.retrieval.documents`` (a JSON list of ``{id, content|text, title, url}``), or a
  tool call's result of passages (the Vercel AI SDK's ``ai.toolCall.result``); when a
  RERANKER span reorders them (``reranker.output_documents``), the order it gives, which is
  the order the prompt presented them. A document without an ID is ``D1``, ``D2`` ...;
- the answer: the output of the LLM span that consumed the retrieved documents (its prompt
  holds one of them, else it started after the retrieval under the same parent), else the
  root span's output; when several LLM spans wrote text, an ``answer_chosen`` finding says
  which one was read and why. Output is read from ``llm.output_messages`` (with
  ``message.contents`` parts), ``gen_ai.output.messages``, OpenLLMetry's
  ``gen_ai.completion.N.content``, the ``gen_ai.choice`` and operation-details events, else
  ``output.value`` (a provider's raw response JSON or a framework's result in it is unpacked);
- the question: the root span's input (``input.value``, or the query in its JSON), else the
  answer span's last user message;
- the model: ``llm.model_name``, ``gen_ai.response.model`` or ``gen_ai.request.model``;
  the prompt version ``llm.prompt_template.version``; the app the resource's
  ``service.name``; the trace ID is the W3C trace ID of the spans, so the evaluation record
  links to the producer's trace.

Lost: tool and embedding spans, documents' scores, span links.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from schemas import InputFormat
from sidecar.inputs._findings import Findings
from sidecar.inputs._json import loads
from sidecar.inputs._otlp_read import (
    indexed,
    input_text,
    json_value,
    output_text,
    tool_passages,
    user_text,
)
from sidecar.inputs._otlp_wire import Span, spans_from_json, spans_from_proto
from sidecar.inputs.base import DEFAULT_APP, InputError, timestamp_of

__all__ = ["OtlpAdapter"]

_LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_AI_SDK_CALLS = frozenset(
    f"ai.{call}{step}"
    for call in ("generateText", "streamText")
    for step in ("", ".doGenerate", ".doStream")
)
"""The Vercel AI SDK's spans of a model call (``ai.operationId``): the call and its steps."""
_SNIPPET = 64
"""How much of a document's text is looked for in a prompt to tell that it consumed it."""
_PROMPT_KEYS = (
    "llm.input_messages.",
    "gen_ai.prompt",
    "gen_ai.input.messages",
    "input.value",
    "ai.prompt",
)


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
        spans.sort(key=lambda span: (span.start_ns, span.end_ns))
        llm = [span for span in spans if _is_llm(span)]
        if not llm:
            raise InputError("the trace has no LLM span")
        retrievers = [span for span in spans if _is_retriever(span)]
        if not retrievers:
            raise InputError(
                "the trace has no retriever span, so no sources (a record holding part "
                "of a trace: group its spans with the Collector's groupbytrace)"
            )
        written = [(span, text) for span in llm if (text := output_text(span))]
        if not written:
            raise InputError("no LLM span of the trace carries output text")
        sources = _sources(retrievers, [span for span in spans if _kind(span) == "RERANKER"])
        root = _root(spans)
        findings = Findings()
        answer_span, answer = _choose(written, retrievers, sources, root, findings)
        question = _question(spans) or user_text(answer_span) or input_text(retrievers[0])
        attributes = answer_span.attributes
        model = (
            attributes.get("llm.model_name")
            or attributes.get("gen_ai.response.model")
            or attributes.get("gen_ai.request.model")
            or "unknown"
        )
        end_ns = answer_span.end_ns
        timestamp = (
            timestamp_of(end_ns, "the answer span's end time", per_second=10**9)
            if end_ns
            else datetime.now(tz=UTC).isoformat()
        )
        trace = {
            "trace_id": answer_span.trace_id,
            "timestamp": timestamp,
            "app": str(answer_span.resource.get("service.name") or DEFAULT_APP),
            "generator": {
                "model": str(model),
                "prompt_version": str(attributes.get("llm.prompt_template.version") or "unknown"),
            },
            "question": question,
            "answer": answer,
            "sources": sources,
        }
        return findings.into(trace)


def _kind(span: Span) -> str:
    return str(span.attributes.get("openinference.span.kind") or "").upper()


def _is_llm(span: Span) -> bool:
    attributes = span.attributes
    operation = attributes.get("gen_ai.operation.name")
    return (
        _kind(span) == "LLM"
        or (isinstance(operation, str) and operation in _LLM_OPERATIONS)
        or attributes.get("traceloop.span.kind") == "llm"
        or isinstance(attributes.get("llm.request.type"), str)
        or attributes.get("ai.operationId") in _AI_SDK_CALLS
    )


def _is_retriever(span: Span) -> bool:
    return (
        _kind(span) == "RETRIEVER"
        or bool(tool_passages(span))
        or "gen_ai.retrieval.documents" in span.attributes
        or span.attributes.get("gen_ai.operation.name") == "retrieval"
    )


def _question(spans: list[Span]) -> str:
    """The input of the outermost span that has one and is no LLM span: the user's query
    to the request, the chain or the query engine (not an inner step's JSON)."""
    parents = {span.span_id: span.parent_id for span in spans}
    depth: dict[str, int] = {}

    def depth_of(span_id: str) -> int:
        chain: list[str] = []
        while span_id in parents and span_id not in depth and len(chain) <= len(parents):
            chain.append(span_id)
            span_id = parents[span_id]
        base = depth.get(span_id, -1)
        for offset, item in enumerate(reversed(chain), start=1):
            depth[item] = base + offset
        return depth.get(chain[0], base) if chain else base

    for span in sorted(spans, key=lambda span: depth_of(span.span_id)):
        if not _is_llm(span) and (text := input_text(span)):
            return text
    return ""


def _root(spans: list[Span]) -> Span:
    """The first span whose parent is not in the record (the request's root span)."""
    ids = {span.span_id for span in spans}
    return next((span for span in spans if span.parent_id not in ids), spans[0])


def _choose(
    written: list[tuple[Span, str]],
    retrievers: list[Span],
    sources: list[dict[str, Any]],
    root: Span,
    findings: Findings,
) -> tuple[Span, str]:
    """The LLM span whose output is the answer, with an ``answer_chosen`` finding when
    several wrote text."""
    distinct: dict[str, tuple[Span, str]] = {}
    for span, text in written:  # a call and its last step write the same text: the step
        distinct[text] = (span, text)
    written = list(distinct.values())
    if len(written) == 1:
        return written[0]
    count = len(written)
    snippets = [text[:_SNIPPET] for s in sources if (text := str(s["text"]).strip())]
    consumed = [(span, text) for span, text in written if _holds(_prompt(span), snippets)]
    why = "its prompt holds the retrieved documents"
    if not consumed:
        last_retrieval = max(span.end_ns for span in retrievers)
        parents = {span.parent_id for span in retrievers}
        consumed = [
            (span, text)
            for span, text in written
            if span.start_ns >= last_retrieval and span.parent_id in parents
        ]
        why = "it started after the retrieval, under the same parent"
    if not consumed:
        root_output = output_text(root) if not _is_llm(root) else ""
        if root_output:
            findings.add(
                "answer_chosen",
                detail=f"the root span's output: none of {count} LLM spans consumed the documents",
            )
            return root, root_output
        chosen = written[-1]
        findings.add(
            "answer_chosen",
            detail=f"the last of {count} LLM spans: none consumed the documents, the root "
            "span has no output",
        )
        return chosen
    chosen = consumed[0]
    if len(consumed) > 1:
        why += f"; the first of {len(consumed)} that do"
    findings.add("answer_chosen", detail=f"LLM span {chosen[0].name!r} of {count}: {why}")
    return chosen


def _prompt(span: Span) -> str:
    """The text of everything the span's model was given (attributes and events)."""
    pieces = [
        value
        for key, value in span.attributes.items()
        if isinstance(value, str) and key.startswith(_PROMPT_KEYS)
    ]
    for name, attributes in span.events:
        if not name.startswith("gen_ai.choice"):
            pieces.extend(value for value in attributes.values() if isinstance(value, str))
    return "\n".join(pieces)


def _holds(prompt: str, snippets: list[str]) -> bool:
    return any(snippet in prompt for snippet in snippets[:32])


def _documents(attributes: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """The documents of ``prefix.N.document.*`` attributes, in N's order."""
    contents = dict(indexed(attributes, prefix, ".document.content"))
    ids = dict(indexed(attributes, prefix, ".document.id"))
    metadata = dict(indexed(attributes, prefix, ".document.metadata"))
    documents: list[dict[str, Any]] = []
    for index in sorted(set(contents) | set(ids)):
        meta = json_value(metadata.get(index))
        meta = meta if isinstance(meta, dict) else {}
        documents.append(
            {
                "id": ids.get(index) or meta.get("id") or meta.get("doc_id"),
                "content": contents.get(index, ""),
                "title": meta.get("title") or meta.get("file_name") or meta.get("document_title"),
                "url": meta.get("url") or meta.get("source") or meta.get("uri"),
            }
        )
    return documents


def _sources(retrievers: list[Span], rerankers: list[Span]) -> list[dict[str, Any]]:
    sources: list[dict[str, Any]] = []
    by_key: dict[str, dict[str, Any]] = {}
    for span in retrievers:
        documents = _documents(span.attributes, "retrieval.documents.")
        documents.extend(
            doc
            for doc in json_value(span.attributes.get("gen_ai.retrieval.documents")) or ()
            if isinstance(doc, dict)
        )
        documents.extend(tool_passages(span))
        for document in documents:
            source_id = str(document.get("id") or f"D{len(sources) + 1}")
            if source_id in by_key:
                continue
            source: dict[str, Any] = {
                "id": source_id,
                "title": str(document.get("title") or ""),
                "text": str(document.get("content") or document.get("text") or ""),
            }
            url = document.get("url") or document.get("source")
            if isinstance(url, str):
                source["url"] = url
            sources.append(source)
            by_key[source_id] = source
            by_key.setdefault(source["text"], source)
    order: list[dict[str, Any]] = []
    kept: set[int] = set()
    for span in rerankers[-1:]:  # the last reranking is what the prompt was given
        for document in _documents(span.attributes, "reranker.output_documents."):
            found = by_key.get(str(document.get("id") or "")) or by_key.get(
                str(document.get("content") or "")
            )
            if found is not None and id(found) not in kept:
                order.append(found)
                kept.add(id(found))
    return [*order, *(source for source in sources if id(source) not in kept)]
