"""OpenAI Chat Completions: an assistant message, with ``url_citation`` annotations (web
search) or with the app's own markers.

Mapped: the envelope's ``sources`` are the trace's sources, in order, cited or not, so an
answer that writes its own markers (``[S1]`` for the source with ``id`` S1) is read as it is.
Each annotation's span gets a marker citing one source per URL (the envelope's entry with
that ``url``, else a new ``W1`` ...): an inline link ``([host](url))`` is replaced by the
marker, any other span gets it after each sentence it covers; an annotation whose positions
fall outside the text gets no marker and a ``citation_out_of_range`` finding. Claims are
derived from the answer's sentences; the question is the request's last user message. The
first choice is the answer.

Lost: other choices, tool calls.
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
        table = SourceTable(envelope.get("sources"))
        citations: list[Citation] = []
        notes = message.get("annotations") or []
        if not isinstance(notes, list):
            raise InputError("choices[0].message.annotations is not a list")
        for number, note in enumerate(notes):
            cited = note.get("url_citation") if isinstance(note, dict) else None
            if not isinstance(cited, dict) or not isinstance(cited.get("url"), str):
                continue
            where = f"choices[0].message.annotations[{number}].url_citation"
            start, end = index_of(cited, "start_index", where), index_of(cited, "end_index", where)
            source_id = table.cite(
                cited["url"], prefix="W", title=str(cited.get("title") or ""), url=cited["url"]
            )
            citations.append(Citation(start, end, source_id))
        findings = Findings()
        trace = envelope_fields(
            envelope,
            response_id=str(response.get("id") or ""),
            created=response.get("created"),
            question=last_user_text(request.get("messages")),
            model=str(response.get("model") or request.get("model") or ""),
        )
        trace["answer"] = insert_markers(text, citations, findings)
        trace["sources"] = table.sources()
        return findings.into(trace)
