"""Google Gemini API and Vertex AI: a ``GenerateContentResponse`` with grounding metadata
(Grounding with Google Search, Vertex AI Search, RAG Engine, File Search).

Mapped: the first candidate's text parts (thought parts left out) are the answer; every
``groundingChunks`` entry is a source ``C1``, ``C2`` ... by its index (``web`` or ``maps``:
URL and title, no text; ``retrievedContext``: URI, title and text), then the envelope's
``sources`` that name no chunk. An envelope entry gives its text to the chunk it names (by
``id`` ``C2``, or by ``url`` the chunk's URI): a web page's text, which the API does not
return. Each ``groundingSupports`` entry puts markers of its ``groundingChunkIndices`` after
each sentence of its ``segment``. Segment offsets are UTF-8 bytes (the API documents them
so) within the part ``partIndex`` names, or within the answer's text (the text parts
joined, the SDK's ``response.text``) when it names none; they are converted to characters, and an
offset outside the part, inside a character, or a chunk index beyond the chunks gets no
marker and a ``citation_out_of_range`` finding. The question is the request's last user
``contents`` text, the model the response's ``modelVersion``.

Both spellings are read: the REST API's JSON (``groundingMetadata``) and the Python SDK's
``model_dump()`` (``grounding_metadata``).

Lost: other candidates, confidence scores, search entry point and queries, images.
"""

from __future__ import annotations

import bisect
from typing import Any

from schemas import InputFormat
from sidecar.inputs._findings import Findings
from sidecar.inputs._json import loads
from sidecar.inputs._markers import Citation, insert_markers
from sidecar.inputs._sources import SourceTable
from sidecar.inputs.base import InputError, envelope_fields, split_envelope

__all__ = ["GeminiAdapter", "member"]


def member(obj: Any, name: str) -> Any:
    """``obj[name]`` in snake_case or in its camelCase spelling (None when absent)."""
    if not isinstance(obj, dict):
        return None
    if name in obj:
        return obj[name]
    head, *rest = name.split("_")
    return obj.get(head + "".join(word.title() for word in rest))


def _is_response(obj: dict[str, Any]) -> bool:
    return isinstance(obj.get("candidates"), list)


class GeminiAdapter:
    """A generateContent exchange (envelope or bare response) as a trace v1 object."""

    format: InputFormat = "gemini"

    def to_trace(self, value: bytes) -> dict[str, Any]:
        """See :class:`sidecar.inputs.base.InputAdapter`."""
        envelope, request, response = split_envelope(loads(value), is_response=_is_response)
        candidates = member(response, "candidates")
        if not isinstance(candidates, list) or not candidates:
            raise InputError("response.candidates holds no candidate")
        candidate = candidates[0]
        if not isinstance(candidate, dict):
            raise InputError("response.candidates[0] is not an object")
        parts = _parts(member(candidate, "content"))
        if not any(text for text in parts if text):
            raise InputError("response.candidates[0].content has no text part")
        grounding = member(candidate, "grounding_metadata")
        if grounding is not None and not isinstance(grounding, dict):
            raise InputError("response.candidates[0].groundingMetadata is not an object")
        table = SourceTable(envelope.get("sources"))
        chunks = _chunks(member(grounding, "grounding_chunks"), table)
        findings = Findings()
        answer = _answer(parts, member(grounding, "grounding_supports"), chunks, findings)
        trace = envelope_fields(
            envelope,
            response_id=str(member(response, "response_id") or ""),
            created=None,
            question=_question(member(request, "contents")),
            model=str(member(response, "model_version") or request.get("model") or ""),
        )
        trace["answer"] = answer
        trace["sources"] = [*chunks, *table.sources()]
        return findings.into(trace)


def _parts(content: Any) -> list[str | None]:
    """The text of each part by its index (None for a part that is no answer text)."""
    parts = member(content, "parts")
    if not isinstance(parts, list):
        raise InputError("response.candidates[0].content.parts is not a list")
    texts: list[str | None] = []
    for index, part in enumerate(parts):
        text = member(part, "text")
        if text is not None and not isinstance(text, str):
            raise InputError(f"response.candidates[0].content.parts[{index}].text is not a string")
        texts.append(None if member(part, "thought") is True else text)
    return texts


def _chunks(chunks: Any, table: SourceTable) -> list[dict[str, Any]]:
    if chunks is None:
        return []
    if not isinstance(chunks, list):
        raise InputError("groundingMetadata.groundingChunks is not a list")
    sources: list[dict[str, Any]] = []
    for index, chunk in enumerate(chunks):
        source_id = f"C{index + 1}"
        found = (
            member(chunk, "web")
            or member(chunk, "retrieved_context")
            or member(chunk, "maps")
            or {}
        )
        if not isinstance(found, dict):
            raise InputError(f"groundingMetadata.groundingChunks[{index}] is not an object")
        uri, title, text = (found.get(name) for name in ("uri", "title", "text"))
        source: dict[str, Any] = {
            "id": source_id,
            "title": title if isinstance(title, str) else "",
            "text": text if isinstance(text, str) else "",
        }
        if isinstance(uri, str) and uri:
            source["url"] = uri
        supplied = table.take(source_id, source.get("url"))
        if supplied is not None:
            source["text"] = source["text"] or str(supplied.get("text") or "")
            source["title"] = source["title"] or str(supplied.get("title") or "")
        sources.append(source)
    return sources


def _answer(
    parts: list[str | None], supports: Any, chunks: list[dict[str, Any]], findings: Findings
) -> str:
    """The text parts joined, with the supports' markers at their characters."""
    if supports is None:
        supports = []
    if not isinstance(supports, list):
        raise InputError("groundingMetadata.groundingSupports is not a list")
    starts: list[int] = []  # where each part starts in the answer, in characters
    position = 0
    for text in parts:
        starts.append(position)
        position += len(text or "")
    answer = "".join(text or "" for text in parts)
    tables: dict[int, list[int] | None] = {}
    citations: list[Citation] = []
    for number, support in enumerate(supports):
        where = f"groundingMetadata.groundingSupports[{number}]"
        segment = member(support, "segment")
        indices = member(support, "grounding_chunk_indices")
        if not isinstance(segment, dict) or not isinstance(indices, list):
            raise InputError(f"{where} has no segment or no groundingChunkIndices")
        part_index = member(segment, "part_index")
        begin = _int(member(segment, "start_index") or 0, f"{where}.segment.startIndex")
        end = _int(member(segment, "end_index"), f"{where}.segment.endIndex")
        if part_index is None:  # offsets in the answer's text (the SDK's response.text)
            part, base = -1, 0
            span = _characters([answer], 0, begin, end, tables, key=-1)
        else:
            part = _int(part_index, f"{where}.segment.partIndex")
            span = _characters(parts, part, begin, end, tables, key=part)
            base = starts[part] if span is not None else 0
        for index in indices:
            if not isinstance(index, int) or not 0 <= index < len(chunks):
                findings.add(
                    "citation_out_of_range",
                    detail=f"{where}: chunk index {index!r} of {len(chunks)} chunks",
                )
                continue
            source_id = chunks[index]["id"]
            if span is None:
                findings.add(
                    "citation_out_of_range",
                    source_id=source_id,
                    detail=f"{where}: bytes {begin}..{end} are no span of "
                    + ("the answer" if part < 0 else f"part {part}"),
                )
                continue
            citations.append(Citation(base + span[0], base + span[1], source_id))
    return insert_markers(answer, citations, findings)


def _int(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"{where} is not an integer")
    return value


def _characters(
    parts: list[str | None],
    part: int,
    begin: int,
    end: int,
    tables: dict[int, list[int] | None],
    *,
    key: int,
) -> tuple[int, int] | None:
    """Characters ``(begin, end)`` of UTF-8 bytes ``begin..end`` of part ``part``; None when
    the part is no text or a byte offset is outside it or inside a character. ``tables``
    keeps each text's byte offsets under ``key``, so each text is measured once."""
    if not 0 <= part < len(parts) or parts[part] is None:
        return None
    text = parts[part] or ""
    if key not in tables:  # None: ASCII, where bytes are characters
        tables[key] = None if text.isascii() else _byte_offsets(text)
    offsets = tables[key]
    size = len(text) if offsets is None else offsets[-1]
    if not 0 <= begin <= end <= size:
        return None
    if offsets is None:
        return begin, end
    first, last = bisect.bisect_left(offsets, begin), bisect.bisect_left(offsets, end)
    if offsets[first] != begin or offsets[last] != end:
        return None
    return first, last


def _byte_offsets(text: str) -> list[int]:
    """The UTF-8 byte offset of each character of ``text``, and of its end."""
    offsets = [0]
    total = 0
    for char in text:
        code = ord(char)
        total += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        offsets.append(total)
    return offsets


def _question(contents: Any) -> str:
    """The text of the request's last user content."""
    if isinstance(contents, str):
        return contents
    if not isinstance(contents, list):
        return ""
    for content in reversed(contents):
        if isinstance(content, dict) and content.get("role", "user") == "user":
            parts = member(content, "parts")
            texts = [
                member(part, "text")
                for part in (parts if isinstance(parts, list) else ())
                if isinstance(member(part, "text"), str)
            ]
            if texts:
                return "\n".join(texts)
    return ""
