"""The adapter Protocol and what the adapters of API exchanges share.

An adapter turns one raw record of its input format into the JSON object of a trace v1;
:func:`sidecar.decode.decode_trace` then validates that object under the same limits as a
trace v1 record, so every input takes the one path after it.

The API formats (OpenAI Responses, OpenAI Chat Completions, Anthropic Messages) arrive in an
envelope, because a response alone names neither the app nor, often, the question::

    {"app": "support-bot",              required unless the adapter has a default app
     "trace_id": "<32 hex digits>",     optional: else derived from the response's ID
     "timestamp": "2026-01-02T03:04:05Z", optional: else the response's creation time
     "tenant": ..., "environment": ..., "prompt_version": ...,   optional
     "question": "...",                 optional: else the last user message of the request
     "request": {...},                  the request body the app sent (optional)
     "response": {...},                 the API's response body (required)
     "sources": [{"url"|"file_id"|"id": ..., "title": ..., "text": ...}]}  optional

``sources`` carries retrieved text that the response itself does not hold (a web page
behind a ``url_citation``, a file behind a ``file_citation`` when the app did not ask for
``file_search_call.results``); a cited source without text is kept with empty text, which
the judge cannot support (it abstains).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from schemas import InputFormat
from sidecar.errors import TraceInvalidError

__all__ = [
    "DEFAULT_APP",
    "InputAdapter",
    "InputError",
    "SourceTable",
    "envelope_fields",
    "insert_markers",
    "last_user_text",
    "split_envelope",
    "text_of",
]

DEFAULT_APP = "default"
"""The app of an API record whose envelope names none."""

_TRACE_ID = re.compile("[0-9a-f]{32}")


class InputError(TraceInvalidError):
    """A record of an adapted input that its adapter cannot read (a dead letter)."""

    reason = "unreadable_input"

    def __init__(self, message: str) -> None:
        super().__init__(message, reason="unreadable_input")


class InputAdapter(Protocol):
    """Turns one record of ``format`` into the JSON object of a trace v1."""

    format: InputFormat

    def to_trace(self, value: bytes) -> dict[str, Any]:
        """The trace v1 object of ``value``. Raises :class:`InputError` for a record this
        adapter cannot read; the message names fields, never their values."""
        ...


def envelope_fields(
    record: Mapping[str, Any], *, response_id: str, created: Any, question: str, model: str
) -> dict[str, Any]:
    """The trace fields every API envelope gives: app, IDs, time, generator, question."""
    trace_id = record.get("trace_id")
    if trace_id is None:
        if not response_id:
            raise InputError("the envelope has no trace_id and the response no id")
        trace_id = hashlib.sha256(response_id.encode("utf-8")).hexdigest()[:32]
    elif not isinstance(trace_id, str) or _TRACE_ID.fullmatch(trace_id.lower()) is None:
        raise InputError("trace_id must be 32 hex digits")
    timestamp = record.get("timestamp")
    if timestamp is None:
        if isinstance(created, int | float) and not isinstance(created, bool):
            timestamp = datetime.fromtimestamp(created, tz=UTC).isoformat()
        else:
            timestamp = datetime.now(tz=UTC).isoformat()
    envelope_question = record.get("question")
    fields: dict[str, Any] = {
        "trace_id": trace_id,
        "timestamp": timestamp,
        "app": record.get("app") or DEFAULT_APP,
        "generator": {
            "model": model or "unknown",
            "prompt_version": str(record.get("prompt_version") or "unknown"),
        },
        "question": envelope_question if isinstance(envelope_question, str) else question,
    }
    for name in ("tenant", "environment"):
        if record.get(name) is not None:
            fields[name] = record[name]
    return fields


def split_envelope(
    obj: Any, *, is_response: Any
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """``(envelope, request, response)`` of a decoded record: an envelope with a
    ``response``, or a bare response that ``is_response(obj)`` recognises."""
    if not isinstance(obj, dict):
        raise InputError(f"a record is a JSON object, got {type(obj).__name__}")
    if "response" in obj:
        response, request = obj["response"], obj.get("request") or {}
        envelope = obj
    elif is_response(obj):
        response, request, envelope = obj, {}, {}
    else:
        raise InputError("the record is neither an envelope with a response nor a response")
    if not isinstance(response, dict):
        raise InputError("response is not a JSON object")
    if not isinstance(request, dict):
        raise InputError("request is not a JSON object")
    return envelope, request, response


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part["text"]
            for part in content
            if isinstance(part, dict)
            and isinstance(part.get("text"), str)
            and part.get("type") in (None, "text", "input_text", "output_text")
        )
    return ""


def last_user_text(messages: Any) -> str:
    """The text of the last user message of a request's message list ('' if none)."""
    if isinstance(messages, str):
        return messages
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return text_of(message.get("content"))
    return ""


class SourceTable:
    """The sources of one trace, each given a stable ID the first time it is cited.

    ``key`` identifies a document (a URL, a file ID, a document index); the same key always
    gets the same source ID, so two annotations of one document cite one source.
    """

    def __init__(self, supplied: Iterable[Any] = ()) -> None:
        self._by_key: dict[str, dict[str, Any]] = {}
        self._order: list[dict[str, Any]] = []
        self._supplied: dict[str, dict[str, Any]] = {}
        for item in supplied:
            if not isinstance(item, dict):
                raise InputError("every entry of sources is a JSON object")
            for name in ("url", "file_id", "id"):
                if isinstance(item.get(name), str):
                    self._supplied.setdefault(item[name], item)

    def cite(
        self,
        key: str,
        *,
        prefix: str,
        title: str = "",
        text: str | None = None,
        url: str | None = None,
    ) -> str:
        """The source ID of ``key``, adding the source on its first citation."""
        found = self._by_key.get(key)
        if found is None:
            supplied = self._supplied.get(key, {})
            count = sum(1 for source in self._order if source["id"].startswith(prefix))
            found = {
                "id": f"{prefix}{count + 1}",
                "title": title or str(supplied.get("title") or ""),
                "text": text if text is not None else str(supplied.get("text") or ""),
            }
            if url or supplied.get("url"):
                found["url"] = url or supplied.get("url")
            self._by_key[key] = found
            self._order.append(found)
        elif text and not found["text"]:
            found["text"] = text
        return str(found["id"])

    def sources(self) -> list[dict[str, Any]]:
        """Every cited source, in order of first citation."""
        return list(self._order)


_LINK = re.compile(r"\s*\(?\[[^\]]*\]\([^)\s]*\)\)?\s*")


def insert_markers(text: str, citations: Iterable[tuple[int, int | None, str]]) -> str:
    """``text`` with ``[ID]`` markers for ``(start, end, source_id)`` citations.

    A citation whose span is an inline link (``([host](url))``, as web-search answers write
    them) is replaced by its marker; otherwise the marker goes right after the span (or at
    ``start`` when there is no end). Positions are clamped to the text.
    """
    size = len(text)
    edits: dict[tuple[int, int], list[str]] = {}
    for start, end, source_id in citations:
        begin = min(max(start, 0), size)
        stop = begin if end is None else min(max(end, begin), size)
        span = (
            (begin, stop) if _LINK.fullmatch(text, begin, stop) and stop > begin else (stop, stop)
        )
        ids = edits.setdefault(span, [])
        if source_id not in ids:
            ids.append(source_id)
    out: list[str] = []
    position = 0
    last = ""  # the last character written, so that a marker gets one space before it
    for (begin, stop), ids in sorted(edits.items()):
        begin = max(begin, position)  # overlapping spans: mark, never cut twice
        stop = max(stop, begin)
        out.append(text[position:begin])
        last = text[begin - 1] if begin > position else last
        out.append(
            ("" if last.isspace() or not last else " ")
            + " ".join(f"[{source_id}]" for source_id in ids)
        )
        last = "]"
        position = stop
    out.append(text[position:])
    return "".join(out)
