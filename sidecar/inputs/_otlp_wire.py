"""OTLP trace payloads, protobuf or JSON, as plain spans (the part the OTLP adapter reads).

Both encodings are what the OpenTelemetry Collector's kafka exporter writes: an
``ExportTraceServiceRequest`` per record, ``otlp_proto`` as protobuf bytes, ``otlp_json``
in the OTLP/JSON mapping (IDs in hex, attributes as ``{"key", "value": {"stringValue"...}}``).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from sidecar.inputs.base import InputError

__all__ = ["Span", "spans_from_json", "spans_from_proto"]


@dataclass(frozen=True, slots=True)
class Span:
    """What the adapter needs of one span: IDs (the parent's "" for a root), times,
    attributes, the resource's attributes, and its events (name, attributes)."""

    trace_id: str
    span_id: str
    name: str
    end_ns: int
    attributes: dict[str, Any]
    resource: dict[str, Any]
    events: tuple[tuple[str, dict[str, Any]], ...] = field(default=())
    parent_id: str = ""
    start_ns: int = 0


def spans_from_proto(value: bytes) -> list[Span]:
    """The spans of a protobuf ``ExportTraceServiceRequest``."""
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(value)
    except DecodeError:
        raise InputError("not an OTLP ExportTraceServiceRequest (protobuf)") from None
    spans: list[Span] = []
    for resource_spans in request.resource_spans:
        resource = {kv.key: _proto_value(kv.value) for kv in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append(
                    Span(
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        name=span.name,
                        end_ns=span.end_time_unix_nano,
                        start_ns=span.start_time_unix_nano,
                        parent_id=span.parent_span_id.hex(),
                        attributes={kv.key: _proto_value(kv.value) for kv in span.attributes},
                        resource=resource,
                        events=tuple(
                            (
                                event.name,
                                {kv.key: _proto_value(kv.value) for kv in event.attributes},
                            )
                            for event in span.events
                        ),
                    )
                )
    return spans


def _proto_value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [_proto_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: _proto_value(kv.value) for kv in value.kvlist_value.values}
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return getattr(value, kind)


def spans_from_json(obj: Any) -> list[Span]:
    """The spans of an ``ExportTraceServiceRequest`` in the OTLP/JSON mapping."""
    if not isinstance(obj, dict) or not isinstance(obj.get("resourceSpans"), list):
        raise InputError("not an OTLP/JSON ExportTraceServiceRequest (no resourceSpans)")
    spans: list[Span] = []
    for r, resource_spans in enumerate(obj["resourceSpans"]):
        where = f"resourceSpans[{r}]"
        resource_spans = _object(resource_spans, where)
        resource = _object(resource_spans.get("resource"), f"{where}.resource")
        resource_attributes = _json_attributes(
            resource.get("attributes"), f"{where}.resource.attributes"
        )
        for s, scope_spans in enumerate(
            _list(resource_spans.get("scopeSpans"), f"{where}.scopeSpans")
        ):
            at = f"{where}.scopeSpans[{s}]"
            for n, span in enumerate(_list(_object(scope_spans, at).get("spans"), f"{at}.spans")):
                spans.append(_json_span(_object(span, f"{at}.spans[{n}]"), resource_attributes))
    return spans


def _json_span(span: dict[str, Any], resource: dict[str, Any]) -> Span:
    events: list[tuple[str, dict[str, Any]]] = []
    for e, event in enumerate(_list(span.get("events"), "a span's events")):
        event = _object(event, f"a span's events[{e}]")
        events.append(
            (
                str(event.get("name") or ""),
                _json_attributes(event.get("attributes"), "an event's attributes"),
            )
        )
    parent = span.get("parentSpanId")
    return Span(
        trace_id=_json_id(span.get("traceId"), 16, "traceId"),
        span_id=_json_id(span.get("spanId"), 8, "spanId"),
        name=str(span.get("name") or ""),
        end_ns=_json_int(span.get("endTimeUnixNano")),
        attributes=_json_attributes(span.get("attributes"), "a span's attributes"),
        resource=resource,
        events=tuple(events),
        parent_id=_json_id(parent, 8, "parentSpanId") if parent else "",
        start_ns=_json_int(span.get("startTimeUnixNano")),
    )


def _object(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"{where} is not an object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{where} is not a list")
    return value


def _json_id(value: Any, size: int, name: str) -> str:
    """A hex ID (OTLP/JSON), or base64 as the protobuf JSON mapping writes bytes."""
    if not isinstance(value, str):
        raise InputError(f"a span's {name} is missing")
    text = value.lower()
    if len(text) == 2 * size and all(c in "0123456789abcdef" for c in text):
        return text
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise InputError(f"a span's {name} is neither {2 * size} hex digits nor base64")
    return raw.hex()


def _json_int(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return 0


def _json_attributes(items: Any, where: str = "attributes") -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    for item in _list(items, where):
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            attributes[item["key"]] = _json_value(item.get("value"))
    return attributes


def _json_value(value: Any, depth: int = 0) -> Any:
    if not isinstance(value, dict) or depth > 32:
        return None
    for kind in ("stringValue", "boolValue", "doubleValue"):
        if kind in value:
            return value[kind]
    if "intValue" in value:
        return _json_int(value["intValue"])
    if "arrayValue" in value:
        values = _object(value["arrayValue"], "an arrayValue").get("values")
        return [_json_value(item, depth + 1) for item in _list(values, "an arrayValue's values")]
    if "kvlistValue" in value:
        values = _object(value["kvlistValue"], "a kvlistValue").get("values")
        return {
            item["key"]: _json_value(item.get("value"), depth + 1)
            for item in _list(values, "a kvlistValue's values")
            if isinstance(item, dict) and isinstance(item.get("key"), str)
        }
    return None
