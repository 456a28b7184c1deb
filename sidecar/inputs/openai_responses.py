"""OpenAI Responses API: ``output_text`` parts with ``url_citation`` and ``file_citation``
annotations, or with the app's own markers.

Mapped: the envelope's ``sources`` are the trace's sources, in order, cited or not (an answer
that writes its own ``[S1]`` markers cites the entry with ``id`` S1); then every file of the
``file_search_call`` results in the order they came (present when the app asked for
``include=["file_search_call.results"]``), cited or not; then the documents the annotations
add. Each annotation becomes a marker at its place in the answer (a ``url_citation``'s inline
link is replaced by it, any other span gets it after each sentence it covers), citing one
source per URL (``W1`` ...) or per file (``F1`` ...) unless the envelope lists it; an
annotation whose positions fall outside the text gets no marker and a
``citation_out_of_range`` finding. Claims are then derived from the answer's sentences as for
any trace without claims. Messages in the ``commentary`` phase (what the model says while it
works, before its final answer) are not answer text. The question is the request's ``input``
(its last user message), the model the response's ``model``.

Lost: annotation kinds that cite no document (``file_path``, ``container_file_citation``
become no marker), reasoning items, tool calls other than file search.
"""

from __future__ import annotations

from typing import Any

from schemas import InputFormat
from sidecar.inputs._findings import Findings
from sidecar.inputs._json import loads
from sidecar.inputs._markers import Citation, insert_markers
from sidecar.inputs._sources import SourceTable
from sidecar.inputs.base import (
    InputError,
    envelope_fields,
    index_of,
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
        table = SourceTable(envelope.get("sources"))
        file_texts = _file_search_texts(output)
        for file_id, (filename, text) in file_texts.items():
            table.cite(file_id, prefix="F", title=filename, text=text)
        findings = Findings()
        parts: list[str] = []
        commentary = False
        for number, item in enumerate(output):
            if not isinstance(item, dict) or item.get("type") != "message":
                continue
            if item.get("phase") == "commentary":
                commentary = True
                continue
            content = item.get("content")
            if not isinstance(content, list):
                raise InputError(f"output[{number}].content is not a list")
            for index, part in enumerate(content):
                if isinstance(part, dict) and part.get("type") == "output_text":
                    where = f"output[{number}].content[{index}]"
                    parts.append(_marked_text(part, where, table, findings))
        if not parts:
            raise InputError(
                "the response has no output_text outside the commentary phase"
                if commentary
                else "the response has no output_text"
            )
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
        return findings.into(trace)


def _file_search_texts(output: list[Any]) -> dict[str, tuple[str, str]]:
    """file_id -> its filename and the text of its search results, in the order they came."""
    texts: dict[str, tuple[str, list[str]]] = {}
    for item in output:
        if not isinstance(item, dict) or item.get("type") != "file_search_call":
            continue
        results = item.get("results")
        for result in results if isinstance(results, list) else ():
            if (
                isinstance(result, dict)
                and isinstance(result.get("file_id"), str)
                and isinstance(result.get("text"), str)
            ):
                name = result.get("filename")
                entry = texts.setdefault(
                    result["file_id"], (name if isinstance(name, str) else "", [])
                )
                entry[1].append(result["text"])
    return {file_id: (name, "\n\n".join(chunks)) for file_id, (name, chunks) in texts.items()}


def _marked_text(part: dict[str, Any], where: str, table: SourceTable, findings: Findings) -> str:
    text = part.get("text")
    if not isinstance(text, str):
        raise InputError(f"{where}.text is not a string")
    citations: list[Citation] = []
    notes = part.get("annotations") or []
    if not isinstance(notes, list):
        raise InputError(f"{where}.annotations is not a list")
    for number, note in enumerate(notes):
        if not isinstance(note, dict):
            raise InputError(f"{where}.annotations[{number}] is not a JSON object")
        kind = note.get("type")
        at = f"{where}.annotations[{number}]"
        if kind == "url_citation" and isinstance(note.get("url"), str):
            start, end = index_of(note, "start_index", at), index_of(note, "end_index", at)
            source_id = table.cite(
                note["url"], prefix="W", title=str(note.get("title") or ""), url=note["url"]
            )
            citations.append(Citation(start, end, source_id))
        elif kind == "file_citation" and isinstance(note.get("file_id"), str):
            index = index_of(note, "index", at)
            source_id = table.cite(
                note["file_id"], prefix="F", title=str(note.get("filename") or "")
            )
            citations.append(Citation(index, None, source_id))
    return insert_markers(text, citations, findings)
