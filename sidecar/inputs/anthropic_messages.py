"""Anthropic Messages API with citations: ``document`` and ``search_result`` blocks in the
request, text blocks whose ``citations`` carry ``cited_text``.

Mapped: every document block of the request is a source (``D1`` for ``document_index`` 0,
...), every search result block one too (``R1`` for ``search_result_index`` 0, ...), so
uncited documents still count as retrieved; a text block with citations is followed by
markers of the sources it cites, and claims are derived from the answer's sentences. Each
``cited_text`` is kept as a quote (``extra.cited_texts``): :class:`~sidecar.checks.quotes.
CitedTextCheck` verifies it against its document on every trace, with no judge.

Lost: PDF and URL documents carry no text here (their citations cannot be verified and the
judge abstains on them), images, tool use, thinking blocks.
"""

from __future__ import annotations

from typing import Any

from schemas import InputFormat
from sidecar.inputs._json import loads
from sidecar.inputs.base import (
    InputError,
    envelope_fields,
    split_envelope,
    text_of,
)

__all__ = ["CITED_TEXTS", "AnthropicMessagesAdapter"]

CITED_TEXTS = "cited_texts"
"""The key of ``Trace.extra`` that holds the quotes: ``[{"source_id", "quote", "cited"}]``,
``cited`` being the answer text the quote is given for."""


def _is_response(obj: dict[str, Any]) -> bool:
    return obj.get("type") == "message" and isinstance(obj.get("content"), list)


class AnthropicMessagesAdapter:
    """A Messages API exchange (envelope with request and response) as a trace v1 object."""

    format: InputFormat = "anthropic_messages"

    def to_trace(self, value: bytes) -> dict[str, Any]:
        """See :class:`sidecar.inputs.base.InputAdapter`."""
        envelope, request, response = split_envelope(loads(value), is_response=_is_response)
        documents, results, question = _request_blocks(request.get("messages"))
        content = response.get("content")
        if not isinstance(content, list):
            raise InputError("response.content is not a list")
        parts: list[str] = []
        quotes: list[dict[str, str]] = []
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "text":
                continue
            text = block.get("text")
            if not isinstance(text, str):
                raise InputError("a text block has no text")
            cited: list[str] = []
            for citation in block.get("citations") or ():
                source_id = _source_of(citation, len(documents), len(results))
                if source_id not in cited:
                    cited.append(source_id)
                quote = citation.get("cited_text")
                if isinstance(quote, str):
                    quotes.append({"source_id": source_id, "quote": quote, "cited": text})
            parts.append(text + "".join(f" [{source_id}]" for source_id in cited))
        if not parts:
            raise InputError("the response has no text block")
        trace = envelope_fields(
            envelope,
            response_id=str(response.get("id") or ""),
            created=None,
            question=question,
            model=str(response.get("model") or request.get("model") or ""),
        )
        trace["answer"] = "".join(parts)
        trace["sources"] = [
            *({"id": f"D{i + 1}", **doc} for i, doc in enumerate(documents)),
            *({"id": f"R{i + 1}", **doc} for i, doc in enumerate(results)),
        ]
        if quotes:
            trace["extra"] = {CITED_TEXTS: quotes}
        return trace


def _source_of(citation: Any, documents: int, results: int) -> str:
    if not isinstance(citation, dict):
        raise InputError("a citation is not a JSON object")
    if citation.get("type") == "search_result_location":
        index, count, prefix = citation.get("search_result_index"), results, "R"
    else:
        index, count, prefix = citation.get("document_index"), documents, "D"
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
        raise InputError(f"a {citation.get('type')} citation names no block of the request")
    return f"{prefix}{index + 1}"


def _request_blocks(messages: Any) -> tuple[list[dict[str, str]], list[dict[str, str]], str]:
    """The request's documents and search results (in order) and the last user text."""
    documents: list[dict[str, str]] = []
    results: list[dict[str, str]] = []
    question = ""
    if not isinstance(messages, list):
        return documents, results, question

    def walk(blocks: Any) -> None:
        if not isinstance(blocks, list):
            return
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "document":
                documents.append(_document(block))
            elif kind == "search_result":
                entry = {
                    "title": str(block.get("title") or ""),
                    "text": text_of(block.get("content")),
                }
                if isinstance(block.get("source"), str):
                    entry["url"] = block["source"]
                results.append(entry)
            elif kind == "tool_result":
                walk(block.get("content"))

    for message in messages:
        if not isinstance(message, dict):
            continue
        blocks = message.get("content")
        walk(blocks)
        if message.get("role") == "user":
            user_text = text_of(blocks)
            if user_text:
                question = user_text
    return documents, results, question


def _document(block: dict[str, Any]) -> dict[str, str]:
    source = block.get("source")
    text = ""
    entry = {"title": str(block.get("title") or "")}
    if isinstance(source, dict):
        if source.get("type") == "text" and isinstance(source.get("data"), str):
            text = source["data"]
        elif source.get("type") == "content":
            text = text_of(source.get("content"))
        elif source.get("type") == "url" and isinstance(source.get("url"), str):
            entry["url"] = source["url"]
    entry["text"] = text
    return entry
