"""OpenAI Responses API: ``output_text`` parts with ``url_citation`` and ``file_citation``
annotations.

Mapped: each annotation becomes a marker at its place in the answer (a ``url_citation``'s
inline link is replaced by it), citing one source per URL (``W1``, ``W2`` ...) or per file
(``F1`` ...); claims are then derived from the answer's sentences as for any trace without
claims, so text outside annotations counts for completeness. A file's text comes from the
``file_search_call`` results in the output (present when the app asked for
``include=["file_search_call.results"]``) or from the envelope's ``sources``; a URL's text
from the envelope's ``sources`` only. The question is the request's ``input`` (its last user
message), the model the response's ``model``.

Lost: annotation kinds that cite no document (``file_path``, ``container_file_citation``
become no marker), reasoning items, tool calls other than file search.
"""

from __future__ import annotations

from typing import Any

from schemas import InputFormat
from sidecar.inputs._json import loads
from sidecar.inputs.base import (
    InputError,
    SourceTable,
    envelope_fields,
    insert_markers,
    last_user_text,
    split_envelope,
)

__all__ = ["OpenAIResponsesAdapter"]


def _is_response(obj: dict[str, Any]) -> bool:
    return obj.get("object") == "response" or isinstance(obj.get("output"), list)


class OpenAIResponsesAdapter:
    """A Responses API exchange (envelope or bare response) as a trace v1 object."""

    format: InputFormat = "openai_responses"

    def to_trace(self, value: bytes) -> dict[str, Any]:
        """See :class:`sidecar.inputs.base.InputAdapter`."""
        envelope, request, response = split_envelope(loads(value), is_response=_is_response)
        output = response.get("output")
        if not isinstance(output, list):
            raise InputError("response.output is not a list")
        table = SourceTable(envelope.get("sources") or ())
        file_texts = _file_search_texts(output)
        parts: list[str] = []
        for item in output:
            if not isinstance(item, dict) or item.get("type") != "message":
                continue
            content = item.get("content")
            if not isinstance(content, list):
                raise InputError("a message's content is not a list")
            for part in content:
                if isinstance(part, dict) and part.get("type") == "output_text":
                    parts.append(_marked_text(part, table, file_texts))
        if not parts:
            raise InputError("the response has no output_text")
        request_input = request.get("input", "")
        trace = envelope_fields(
            envelope,
            response_id=str(response.get("id") or ""),
            created=response.get("created_at"),
            question=last_user_text(request_input),
            model=str(response.get("model") or request.get("model") or ""),
        )
        trace["answer"] = "\n\n".join(parts)
        trace["sources"] = table.sources()
        return trace


def _file_search_texts(output: list[Any]) -> dict[str, str]:
    """file_id -> the text of its search results, in the order they came."""
    texts: dict[str, list[str]] = {}
    for item in output:
        if not isinstance(item, dict) or item.get("type") != "file_search_call":
            continue
        for result in item.get("results") or ():
            if (
                isinstance(result, dict)
                and isinstance(result.get("file_id"), str)
                and isinstance(result.get("text"), str)
            ):
                texts.setdefault(result["file_id"], []).append(result["text"])
    return {file_id: "\n\n".join(chunks) for file_id, chunks in texts.items()}


def _marked_text(part: dict[str, Any], table: SourceTable, file_texts: dict[str, str]) -> str:
    text = part.get("text")
    if not isinstance(text, str):
        raise InputError("an output_text part has no text")
    citations: list[tuple[int, int | None, str]] = []
    for note in part.get("annotations") or ():
        if not isinstance(note, dict):
            raise InputError("an annotation is not a JSON object")
        kind = note.get("type")
        if kind == "url_citation" and isinstance(note.get("url"), str):
            source_id = table.cite(
                note["url"], prefix="W", title=str(note.get("title") or ""), url=note["url"]
            )
            citations.append((_index(note, "start_index"), _index(note, "end_index"), source_id))
        elif kind == "file_citation" and isinstance(note.get("file_id"), str):
            file_id = note["file_id"]
            source_id = table.cite(
                file_id,
                prefix="F",
                title=str(note.get("filename") or ""),
                text=file_texts.get(file_id),
            )
            citations.append((_index(note, "index"), None, source_id))
    return insert_markers(text, citations)


def _index(note: dict[str, Any], name: str) -> int:
    value = note.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"an annotation's {name} is not an integer")
    return value
