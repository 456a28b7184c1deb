"""OpenAI Chat Completions: an assistant message with ``url_citation`` annotations.

Mapped: each annotation's span becomes a marker citing one source per URL (``W1`` ...;
an inline link ``([host](url))`` is replaced by the marker), claims are derived from the
answer's sentences; the question is the request's last user message; the text of a cited
page comes from the envelope's ``sources`` (the API returns none). The first choice is the
answer.

Lost: other choices, tool calls, and any document the app retrieved but the model did not
cite unless the envelope lists it in ``sources``.
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
    text_of,
)

__all__ = ["OpenAIChatAdapter"]


def _is_response(obj: dict[str, Any]) -> bool:
    return obj.get("object") == "chat.completion" or isinstance(obj.get("choices"), list)


class OpenAIChatAdapter:
    """A Chat Completions exchange (envelope or bare completion) as a trace v1 object."""

    format: InputFormat = "openai_chat"

    def to_trace(self, value: bytes) -> dict[str, Any]:
        """See :class:`sidecar.inputs.base.InputAdapter`."""
        envelope, request, response = split_envelope(loads(value), is_response=_is_response)
        choices = response.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise InputError("response.choices holds no choice")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise InputError("the first choice has no message")
        text = text_of(message.get("content"))
        if not text:
            raise InputError("the first choice's message has no text content")
        table = SourceTable(envelope.get("sources") or ())
        citations: list[tuple[int, int | None, str]] = []
        for note in message.get("annotations") or ():
            cited = note.get("url_citation") if isinstance(note, dict) else None
            if not isinstance(cited, dict) or not isinstance(cited.get("url"), str):
                continue
            start, end = cited.get("start_index"), cited.get("end_index")
            if not isinstance(start, int) or not isinstance(end, int):
                raise InputError("a url_citation's start_index or end_index is not an integer")
            source_id = table.cite(
                cited["url"], prefix="W", title=str(cited.get("title") or ""), url=cited["url"]
            )
            citations.append((start, end, source_id))
        trace = envelope_fields(
            envelope,
            response_id=str(response.get("id") or ""),
            created=response.get("created"),
            question=last_user_text(request.get("messages")),
            model=str(response.get("model") or request.get("model") or ""),
        )
        trace["answer"] = insert_markers(text, citations)
        trace["sources"] = table.sources()
        return trace
