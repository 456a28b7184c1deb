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
    """What the adapter needs of one span: IDs, times, attributes (with the resource's)."""

    trace_id: str
    span_id: str
    name: str
    end_ns: int
    attributes: dict[str, Any]
    resource: dict[str, Any]
    events: tuple[tuple[str, dict[str, Any]], ...] = field(default=())


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
    for resource_spans in obj["resourceSpans"]:
        if not isinstance(resource_spans, dict):
            raise InputError("a resourceSpans entry is not an object")
        resource = _json_attributes((resource_spans.get("resource") or {}).get("attributes"))
        for scope_spans in resource_spans.get("scopeSpans") or ():
            for span in (scope_spans or {}).get("spans") or ():
                if not isinstance(span, dict):
                    raise InputError("a span is not an object")
                spans.append(
                    Span(
                        trace_id=_json_id(span.get("traceId"), 16, "traceId"),
                        span_id=_json_id(span.get("spanId"), 8, "spanId"),
                        name=str(span.get("name") or ""),
                        end_ns=_json_int(span.get("endTimeUnixNano")),
                        attributes=_json_attributes(span.get("attributes")),
                        resource=resource,
                        events=tuple(
                            (
                                str(event.get("name") or ""),
                                _json_attributes(event.get("attributes")),
                            )
                            for event in span.get("events") or ()
                            if isinstance(event, dict)
                        ),
                    )
                )
    return spans


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


def _json_attributes(items: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    for item in items or ():
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            attributes[item["key"]] = _json_value(item.get("value"))
    return attributes


def _json_value(value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    for kind in ("stringValue", "boolValue", "doubleValue"):
        if kind in value:
            return value[kind]
    if "intValue" in value:
        return _json_int(value["intValue"])
    if "arrayValue" in value:
        return [_json_value(item) for item in (value["arrayValue"] or {}).get("values") or ()]
    if "kvlistValue" in value:
        return _json_attributes((value["kvlistValue"] or {}).get("values"))
    return None
