"""AWS Bedrock: Knowledge Bases ``RetrieveAndGenerate`` and the Converse API's citations.

RetrieveAndGenerate (bedrock-agent-runtime): ``output.text`` is the answer; each
``citations`` entry's ``retrievedReferences`` are sources ``K1``, ``K2`` ... (one per
distinct location and text: ``content.text``, the ``location``'s S3 URI or URL), and its
``generatedResponsePart.textResponsePart`` gets their markers after each sentence it covers.
The part's ``span`` counts characters and its ``end`` is read as the API's examples write it
(inclusive) or exclusive, whichever holds the part's ``text``; a span that holds neither is
looked for near its place, and one found nowhere gets no marker and a
``citation_out_of_range`` finding. The question is the request's ``input.text``.

Converse (bedrock-runtime): the request's ``document`` blocks are sources ``D1``, ``D2`` ...
(by ``documentIndex``; text from ``source.text`` or ``source.content``; ``bytes`` and S3
documents carry none), its ``searchResult`` blocks ``R1`` ...; the response message's text
and ``citationsContent`` blocks are the answer, each cited block followed by markers of its
citations (``documentChar``, ``documentPage``, ``documentChunk``, ``searchResultLocation``;
``web`` by URL as ``W1`` ...). Each citation's ``sourceContent`` text is kept as a quote
(``extra.cited_texts``) and verified against its document as Anthropic's ``cited_text`` is.

Both: the envelope's ``trace_id``, else one derived from the record's bytes (Converse returns
no ID, a RetrieveAndGenerate session ID names a whole conversation), stable across replays;
the envelope's ``sources`` give text to the source they name by ``id`` and are sources
otherwise. Lost: guardrail actions, session IDs, image, video and row content, tool use.
"""

from __future__ import annotations

import hashlib
from typing import Any

from schemas import InputFormat
from sidecar.inputs._findings import Findings
from sidecar.inputs._json import loads
from sidecar.inputs._markers import Citation, insert_markers
from sidecar.inputs._sources import SourceTable
from sidecar.inputs.anthropic_messages import CITED_TEXTS
from sidecar.inputs.base import InputError, envelope_fields, index_of, split_envelope, text_of

__all__ = ["BedrockAdapter"]

_LOCATIONS = (
    ("s3Location", "uri"),
    ("webLocation", "url"),
    ("confluenceLocation", "url"),
    ("salesforceLocation", "url"),
    ("sharePointLocation", "url"),
    ("kendraDocumentLocation", "uri"),
    ("customDocumentLocation", "id"),
)
_DOCUMENT_LOCATIONS = ("documentChar", "documentPage", "documentChunk")


def _is_response(obj: dict[str, Any]) -> bool:
    return isinstance(obj.get("output"), dict)


class BedrockAdapter:
    """A RetrieveAndGenerate or Converse exchange as a trace v1 object."""

    format: InputFormat = "bedrock"

    def to_trace(self, value: bytes) -> dict[str, Any]:
        """See :class:`sidecar.inputs.base.InputAdapter`."""
        envelope, request, response = split_envelope(loads(value), is_response=_is_response)
        output = response.get("output")
        if not isinstance(output, dict):
            raise InputError("response.output is not an object")
        table = SourceTable(envelope.get("sources"))
        findings = Findings()
        record_id = hashlib.sha256(value.strip()).hexdigest()
        if isinstance(output.get("message"), dict):
            trace = _converse(
                envelope, request, response, output["message"], table, findings, record_id
            )
        elif isinstance(output.get("text"), str):
            trace = _retrieve_and_generate(envelope, request, response, table, findings, record_id)
        else:
            raise InputError("response.output has neither text nor message")
        return findings.into(trace)


def _retrieve_and_generate(
    envelope: dict[str, Any],
    request: dict[str, Any],
    response: dict[str, Any],
    table: SourceTable,
    findings: Findings,
    record_id: str,
) -> dict[str, Any]:
    answer = response["output"]["text"]
    citations = response.get("citations") or []
    if not isinstance(citations, list):
        raise InputError("response.citations is not a list")
    sources: dict[tuple[str, str], dict[str, Any]] = {}
    marks: list[Citation] = []
    for number, citation in enumerate(citations):
        where = f"response.citations[{number}]"
        if not isinstance(citation, dict):
            raise InputError(f"{where} is not an object")
        generated = citation.get("generatedResponsePart")
        part = generated.get("textResponsePart") if isinstance(generated, dict) else None
        references = _items(citation.get("retrievedReferences"), f"{where}.retrievedReferences")
        ids = [_reference(ref, f"{where}.retrievedReferences[{i}]", sources, table)
               for i, ref in enumerate(references)]  # fmt: skip
        if not isinstance(part, dict):
            continue
        span = _locate(answer, part, f"{where}.generatedResponsePart.textResponsePart")
        for source_id in ids:
            if span is None:
                findings.add(
                    "citation_out_of_range",
                    source_id=source_id,
                    detail=f"{where}: the span is not in a text of {len(answer)} characters",
                )
            else:
                marks.append(Citation(span[0], span[1], source_id))
    request_input = request.get("input")
    trace = envelope_fields(
        envelope,
        # a session ID names a conversation, not an answer: the record's bytes do
        response_id=record_id,
        created=None,
        question=text_of(
            (request_input or {}).get("text") if isinstance(request_input, dict) else ""
        ),
        model=_model_of(request),
    )
    trace["answer"] = insert_markers(answer, marks, findings)
    trace["sources"] = [*sources.values(), *table.sources()]
    return trace


def _model_of(request: dict[str, Any]) -> str:
    if isinstance(request.get("modelId"), str):
        return str(request["modelId"])
    config = request.get("retrieveAndGenerateConfiguration")
    knowledge_base = config.get("knowledgeBaseConfiguration") if isinstance(config, dict) else None
    model = knowledge_base.get("modelArn") if isinstance(knowledge_base, dict) else None
    # the model's ID, not its ARN (which may carry an account ID and a region)
    return model.rsplit("/", 1)[-1] if isinstance(model, str) else ""


def _reference(
    reference: Any,
    where: str,
    sources: dict[tuple[str, str], dict[str, Any]],
    table: SourceTable,
) -> str:
    if not isinstance(reference, dict):
        raise InputError(f"{where} is not an object")
    content = reference.get("content") or {}
    text = content.get("text") if isinstance(content, dict) else None
    if text is not None and not isinstance(text, str):
        raise InputError(f"{where}.content.text is not a string")
    location = reference.get("location") or {}
    url = ""
    for name, key in _LOCATIONS:
        place = location.get(name) if isinstance(location, dict) else None
        if isinstance(place, dict) and isinstance(place.get(key), str):
            url = place[key]
            break
    found = sources.get((url, text or ""))
    if found is None:
        source_id = f"K{len(sources) + 1}"
        found = {"id": source_id, "title": url.rsplit("/", 1)[-1], "text": text or ""}
        if url:
            found["url"] = url
        supplied = table.take(source_id)
        if supplied is not None and not found["text"]:
            found["text"] = str(supplied.get("text") or "")
        sources[(url, text or "")] = found
    return str(found["id"])


def _locate(answer: str, part: dict[str, Any], where: str) -> tuple[int, int] | None:
    """Where the cited part is in the answer, in characters (None when nowhere)."""
    text = part.get("text")
    span = part.get("span")
    start = index_of(span, "start", f"{where}.span") if isinstance(span, dict) else None
    end = index_of(span, "end", f"{where}.span") if isinstance(span, dict) else None
    if not isinstance(text, str) or not text:
        if start is not None and end is not None and 0 <= start <= end <= len(answer):
            return start, end
        return None
    if start is not None and end is not None:
        if answer[start : end + 1] == text:
            return start, end + 1
        if answer[start:end] == text:
            return start, end
        # near its place: the span may count another unit (UTF-16) than characters
        found = answer.find(text, max(0, start - 64), max(end, start) + len(text) + 64)
    else:
        found = answer.find(text)
    return (found, found + len(text)) if found >= 0 else None


def _converse(
    envelope: dict[str, Any],
    request: dict[str, Any],
    response: dict[str, Any],
    message: dict[str, Any],
    table: SourceTable,
    findings: Findings,
    record_id: str,
) -> dict[str, Any]:
    documents, results, question = _converse_request(request.get("messages"), table)
    content = message.get("content")
    if not isinstance(content, list):
        raise InputError("response.output.message.content is not a list")
    parts: list[str] = []
    quotes: list[dict[str, str]] = []
    for index, block in enumerate(content):
        where = f"response.output.message.content[{index}]"
        if not isinstance(block, dict):
            raise InputError(f"{where} is not an object")
        if isinstance(block.get("text"), str):
            parts.append(block["text"])
            continue
        cited = block.get("citationsContent")
        if not isinstance(cited, dict):
            continue
        text = _joined_text(cited.get("content"), f"{where}.citationsContent.content", "")
        ids: list[str] = []
        citations = _items(cited.get("citations"), f"{where}.citationsContent.citations")
        for number, citation in enumerate(citations):
            at = f"{where}.citationsContent.citations[{number}]"
            source_id = _converse_source(citation, at, documents, results, table)
            if source_id is None:
                continue
            if source_id not in ids:
                ids.append(source_id)
            quote = _joined_text(citation.get("sourceContent"), f"{at}.sourceContent", "\n")
            if quote:
                quotes.append({"source_id": source_id, "quote": quote, "cited": text})
        stop = len(text.rstrip())
        parts.append(insert_markers(text, [Citation(0, stop, i) for i in ids], findings))
    if not parts:
        raise InputError("response.output.message has no text")
    trace = envelope_fields(
        envelope,
        response_id=record_id,  # Converse returns no ID of its own
        created=None,
        question=question,
        model=_model_of(request),
    )
    trace["answer"] = "".join(parts)
    trace["sources"] = [*documents, *results, *table.sources()]
    if quotes:
        trace["extra"] = {CITED_TEXTS: quotes}
    return trace


def _converse_source(
    citation: Any,
    at: str,
    documents: list[dict[str, Any]],
    results: list[dict[str, Any]],
    table: SourceTable,
) -> str | None:
    if not isinstance(citation, dict):
        raise InputError(f"{at} is not an object")
    location = citation.get("location")
    if not isinstance(location, dict):
        return None
    web = location.get("web")
    if isinstance(web, dict) and isinstance(web.get("url"), str):
        title = str(citation.get("title") or "")
        return table.cite(web["url"], prefix="W", title=title, url=web["url"])
    for name, listed, field in (
        *((name, documents, "documentIndex") for name in _DOCUMENT_LOCATIONS),
        ("searchResultLocation", results, "searchResultIndex"),
    ):
        place = location.get(name)
        if isinstance(place, dict):
            index = index_of(place, field, f"{at}.location.{name}")
            if not 0 <= index < len(listed):
                raise InputError(f"{at}.location.{name}.{field} names no block of the request")
            return str(listed[index]["id"])
    return None


def _converse_request(
    messages: Any, table: SourceTable
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """The request's documents and search results, in order, and the last user text."""
    documents: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    question = ""
    for message in messages if isinstance(messages, list) else ():
        blocks = message.get("content") if isinstance(message, dict) else None
        texts: list[str] = []
        for block in blocks if isinstance(blocks, list) else ():
            if not isinstance(block, dict):
                continue
            if isinstance(block.get("text"), str):
                texts.append(block["text"])
            document = block.get("document")
            if isinstance(document, dict):
                documents.append(_document(document, f"D{len(documents) + 1}", table))
            result = block.get("searchResult")
            if isinstance(result, dict):
                entry = {
                    "id": f"R{len(results) + 1}",
                    "title": str(result.get("title") or ""),
                    "text": _joined_text(result.get("content"), "a searchResult's content", "\n"),
                }
                if isinstance(result.get("source"), str):
                    entry["url"] = result["source"]
                results.append(entry)
        if isinstance(message, dict) and message.get("role") == "user" and texts:
            question = "\n".join(texts)
    return documents, results, question


def _document(document: dict[str, Any], source_id: str, table: SourceTable) -> dict[str, Any]:
    source = document.get("source")
    text = ""
    url = None
    if isinstance(source, dict):
        if isinstance(source.get("text"), str):
            text = source["text"]
        elif source.get("content") is not None:
            text = _joined_text(source["content"], "a document's source.content", "\n")
        location = source.get("s3Location")
        if isinstance(location, dict) and isinstance(location.get("uri"), str):
            url = location["uri"]
    entry: dict[str, Any] = {
        "id": source_id,
        "title": str(document.get("name") or ""),
        "text": text,
    }
    supplied = table.take(source_id, url)
    if supplied is not None and not text:
        entry["text"] = str(supplied.get("text") or "")
    if url:
        entry["url"] = url
    return entry


def _items(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{where} is not a list")
    return value


def _joined_text(value: Any, where: str, separator: str) -> str:
    """The ``text`` members of a list of content items, joined."""
    return separator.join(
        item["text"]
        for item in _items(value, where)
        if isinstance(item, dict) and isinstance(item.get("text"), str)
    )
