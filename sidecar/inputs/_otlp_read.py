"""What the OTLP adapter reads from one span, in every convention it knows: OpenInference
(``llm.*_messages``, ``message.contents``, ``input.value``/``output.value``), OpenTelemetry
GenAI (``gen_ai.*.messages`` attributes, the ``gen_ai.*.message``/``gen_ai.choice`` events,
the ``gen_ai.client.inference.operation.details`` event), OpenLLMetry (``gen_ai.prompt.N.*``,
``gen_ai.completion.N.*``, ``traceloop.entity.*``). Every function returns '' when the span
holds nothing it knows."""

from __future__ import annotations

import json
from typing import Any

from sidecar.inputs._otlp_wire import Span

__all__ = [
    "indexed",
    "input_text",
    "json_value",
    "message_text",
    "output_text",
    "tool_passages",
    "user_text",
]

_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_QUERY_KEYS = ("query", "question", "input", "query_str", "user_input", "prompt")


def indexed(attributes: dict[str, Any], prefix: str, suffix: str) -> list[tuple[int, Any]]:
    """``(N, value)`` of every attribute ``prefix + N + suffix``, by N."""
    found: list[tuple[int, Any]] = []
    for key, value in attributes.items():
        if key.startswith(prefix) and key.endswith(suffix):
            middle = key[len(prefix) : len(key) - len(suffix)]
            if middle.isdigit():
                found.append((int(middle), value))
    return sorted(found, key=lambda item: item[0])


def json_value(value: Any) -> Any:
    """``value``, or the JSON it holds when it is a string of a JSON object or list."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def message_text(message: Any) -> str:
    """The text of a message in any of the shapes the conventions use: ``content`` (a string
    or a list of parts), GenAI ``parts``, a ``message`` wrapper (``gen_ai.choice``)."""
    message = json_value(message)
    if isinstance(message, str):
        return message
    if not isinstance(message, dict):
        return ""
    if "message" in message and isinstance(json_value(message["message"]), dict):
        return message_text(message["message"])
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else message.get("parts")
    if not isinstance(parts, list):
        return ""
    return "".join(
        str(part.get("content") or part.get("text") or "")
        for part in parts
        if isinstance(part, dict) and part.get("type", "text") in ("text", "output_text")
    )


def _openinference_messages(attributes: dict[str, Any], prefix: str) -> list[tuple[str, str]]:
    """``(role, text)`` of ``prefix.N.message.*``, with ``message.contents`` parts."""
    roles = dict(indexed(attributes, prefix, ".message.role"))
    texts = dict(indexed(attributes, prefix, ".message.content"))
    for index in {n for n, _ in indexed(attributes, prefix, ".message.role")} - set(texts):
        parts = indexed(attributes, f"{prefix}{index}.message.contents.", ".message_content.text")
        if parts:
            texts[index] = "".join(str(text) for _, text in parts)
    for index, _ in indexed(attributes, prefix, ".message.contents.0.message_content.text"):
        if index not in texts:
            parts = indexed(
                attributes, f"{prefix}{index}.message.contents.", ".message_content.text"
            )
            texts[index] = "".join(str(text) for _, text in parts)
    return [(str(roles.get(index) or ""), str(texts[index])) for index in sorted(texts)]


def _numbered(attributes: dict[str, Any], prefix: str) -> list[tuple[str, str]]:
    """OpenLLMetry's ``gen_ai.prompt.N.role/content`` (or ``gen_ai.completion.N.*``)."""
    roles = dict(indexed(attributes, prefix, ".role"))
    return [
        (str(roles.get(index) or ""), str(content))
        for index, content in indexed(attributes, prefix, ".content")
    ]


def _event_messages(span: Span, *, output: bool) -> list[tuple[str, str]]:
    """Messages on span events: ``gen_ai.<role>.message``/``gen_ai.choice`` (content in the
    attributes, or JSON in ``gen_ai.event.content`` as Azure AI Inference writes it), and
    the details event's ``gen_ai.input.messages``/``gen_ai.output.messages``."""
    found: list[tuple[str, str]] = []
    for name, attributes in span.events:
        if name == _DETAILS_EVENT:
            key = "gen_ai.output.messages" if output else "gen_ai.input.messages"
            found.extend(_genai_list(attributes.get(key)))
            continue
        body = json_value(attributes.get("gen_ai.event.content"))
        payload = body if isinstance(body, dict) else attributes
        if output and name == "gen_ai.choice":
            found.append(("assistant", message_text(payload)))
        elif not output and name.startswith("gen_ai.") and name.endswith(".message"):
            found.append((name[len("gen_ai.") : -len(".message")], message_text(payload)))
    return found


def _genai_list(value: Any) -> list[tuple[str, str]]:
    items = json_value(value)
    if not isinstance(items, list):
        return []
    return [
        (str(item.get("role") or ""), message_text(item))
        for item in items
        if isinstance(item, dict)
    ]


def output_text(span: Span) -> str:
    """The text the span's model wrote: its last output message in any convention, else
    ``output.value`` (or a provider's raw JSON in it), else OpenLLMetry's entity output."""
    attributes = span.attributes
    if isinstance(attributes.get("ai.response.text"), str):  # the Vercel AI SDK
        return str(attributes["ai.response.text"])
    for messages in (
        _openinference_messages(attributes, "llm.output_messages."),
        _genai_list(attributes.get("gen_ai.output.messages")),
        _numbered(attributes, "gen_ai.completion."),
        _event_messages(span, output=True),
    ):
        texts = [text for _, text in messages if text]
        if texts:
            return texts[-1]
    for key in ("gen_ai.completion", "output.value", "traceloop.entity.output"):
        text = _provider_text(attributes.get(key))
        if text:
            return text
    return ""


def _provider_text(value: Any) -> str:
    """The answer in a value that may be a provider's raw response or a framework's result:
    OpenAI (``choices``), Anthropic (``content`` blocks), LangChain (``generations``), an
    object with an ``output``/``answer``/``response`` text; a plain string as it is."""
    data = json_value(value)
    if isinstance(data, str):
        return data
    if not isinstance(data, dict):
        return ""
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return message_text(choices[0].get("message")) or str(choices[0].get("text") or "")
    if data.get("type") == "message" and isinstance(data.get("content"), list):
        return message_text(data)
    generations = data.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0][0] if isinstance(generations[0], list) else generations[0]
        if isinstance(first, dict):
            return message_text(first.get("message")) or str(first.get("text") or "")
    for key in ("output", "answer", "response", "text", "content"):
        if isinstance(data.get(key), str):
            return str(data[key])
    return ""


def user_text(span: Span) -> str:
    """The span's last user message, in any convention ('' without one)."""
    attributes = span.attributes
    for messages in (
        _openinference_messages(attributes, "llm.input_messages."),
        _genai_list(attributes.get("gen_ai.input.messages")),
        _numbered(attributes, "gen_ai.prompt."),
        _event_messages(span, output=False),
        _genai_list(attributes.get("ai.prompt.messages")),
        _genai_list(_member(attributes.get("ai.prompt"), "messages")),
    ):
        texts = [text for role, text in messages if role in ("user", "human") and text]
        if texts:
            return texts[-1]
    return ""


def input_text(span: Span) -> str:
    """The span's input as a user would have typed it: ``input.value`` (or OpenLLMetry's
    ``traceloop.entity.input``), or the query inside it when it is a JSON object
    (``{"query": ...}``, ``{"input": ...}``, LlamaIndex's ``{"query_bundle": ...}``)."""
    for key in ("input.value", "traceloop.entity.input", "ai.prompt"):
        data = json_value(span.attributes.get(key))
        text = _query_of(data, depth=0)
        if text:
            return text
    return ""


def _query_of(data: Any, *, depth: int) -> str:
    if isinstance(data, str):
        return data
    if not isinstance(data, dict) or depth > 3:
        return ""
    for key in _QUERY_KEYS:
        if isinstance(data.get(key), str):
            return str(data[key])
    for key in ("query_bundle", "inputs", "kwargs", "args"):
        inner = data.get(key)
        if isinstance(inner, list) and inner:
            inner = inner[0]
        text = _query_of(inner, depth=depth + 1)
        if text:
            return text
    return ""


def _member(value: Any, name: str) -> Any:
    data = json_value(value)
    return data.get(name) if isinstance(data, dict) else None


_PASSAGE_LISTS = ("documents", "passages", "results", "sources", "chunks")


def tool_passages(span: Span) -> list[dict[str, Any]]:
    """The passages a tool call returned (the Vercel AI SDK's ``ai.toolCall.result``, or
    ``gen_ai.tool.call.result``): a JSON list of objects with ``text`` or ``content`` (and
    ``id``, ``title``, ``url``), or an object holding such a list under ``documents``,
    ``passages``, ``results``, ``sources`` or ``chunks``; [] for any other result."""
    attributes = span.attributes
    result = json_value(
        attributes.get("ai.toolCall.result") or attributes.get("gen_ai.tool.call.result")
    )
    if isinstance(result, dict):
        result = next(
            (result[key] for key in _PASSAGE_LISTS if isinstance(result.get(key), list)), None
        )
    if not isinstance(result, list):
        return []
    passages = [
        item
        for item in result
        if isinstance(item, dict)
        and isinstance(item.get("text") if "text" in item else item.get("content"), str)
    ]
    return passages if len(passages) == len(result) else []
