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

``sources`` lists the passages the app retrieved, in the order its prompt presented them:
every entry is a source of the trace, cited or not (an answer that writes its own ``[S1]``
markers cites them by ``id``), and gives the text the response itself does not hold (a web
page behind a ``url_citation``, a file behind a ``file_citation`` when the app did not ask
for ``file_search_call.results``). Citations of documents the envelope does not list add
sources after them; a cited source without text is kept with empty text, which the judge
cannot support (it abstains).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from schemas import InputFormat
from sidecar.errors import TraceInvalidError

__all__ = [
    "DEFAULT_APP",
    "InputAdapter",
    "InputError",
    "envelope_fields",
    "index_of",
    "last_user_text",
    "split_envelope",
    "timestamp_of",
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


def timestamp_of(count: float, what: str, *, per_second: int = 1) -> str:
    """The ISO 8601 UTC time ``count`` units (``per_second`` to a second) after the epoch; a
    time no calendar date holds (before year 1, after 9999, not a number) is refused naming
    ``what``, never its value."""
    try:
        return datetime.fromtimestamp(count / per_second, tz=UTC).isoformat()
    except (ValueError, OverflowError, OSError):
        raise InputError(f"{what} is not a time between the years 1 and 9999") from None


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
            timestamp = timestamp_of(created, "the response's creation time")
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


def index_of(obj: Mapping[str, Any], name: str, where: str) -> int:
    """The integer ``obj[name]``; :class:`InputError` naming ``where.name`` otherwise."""
    value = obj.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"{where}.{name} is not an integer")
    return value
