"""Decoding raw record bytes into a validated trace, with errors fit for dead letters."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from schemas import Trace
from sidecar.errors import TraceDecodeError, TraceInvalidError

__all__ = ["decode_trace", "parse_trace_object", "DEFAULT_MAX_BYTES", "DEFAULT_MAX_DEPTH"]

DEFAULT_MAX_BYTES = 1_048_576
DEFAULT_MAX_DEPTH = 32


def _too_deep(obj: Any, max_depth: int) -> bool:
    # Walk containers only; a trace has a handful, so this is cheap next to validation.
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, dict | list))
    return False


def decode_trace(
    value: bytes | str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Trace:
    """Decode one record into a :class:`Trace`.

    Raises :class:`TraceDecodeError` (reason ``too_large``, ``not_utf8``, ``not_json``,
    ``too_deep``) or :class:`TraceInvalidError` (reason ``invalid_trace``).
    """
    size = len(value)
    if size > max_bytes:
        raise TraceDecodeError(f"record of {size} bytes exceeds {max_bytes}", reason="too_large")
    if isinstance(value, bytes):
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TraceDecodeError(f"not UTF-8 at byte {exc.start}", reason="not_utf8") from None
    else:
        text = value
    try:
        obj = json.loads(text)
    except RecursionError:
        raise TraceDecodeError("JSON nested too deeply", reason="too_deep") from None
    except json.JSONDecodeError as exc:
        raise TraceDecodeError(
            f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", reason="not_json"
        ) from None
    return parse_trace_object(obj, max_depth=max_depth)


def parse_trace_object(obj: Any, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Trace:
    """Validate an already-parsed JSON value as a trace. Raises :class:`TraceError`."""
    if not isinstance(obj, dict):
        raise TraceInvalidError(f"a trace is a JSON object, got {type(obj).__name__}")
    # Known fields have a fixed shape that validation bounds; only unknown fields, kept
    # verbatim in ``extra``, can nest without limit.
    known = Trace.model_fields
    if any(key not in known and isinstance(value, dict | list) and _too_deep(value, max_depth - 1)
           for key, value in obj.items()):
        raise TraceDecodeError("JSON nested too deeply", reason="too_deep")
    try:
        return Trace.model_validate(obj)
    except ValidationError as exc:
        raise TraceInvalidError(_describe(exc)) from None


def _describe(exc: ValidationError) -> str:
    # Locations and messages only: pydantic's default text would echo the input values.
    parts = []
    for error in exc.errors(include_input=False, include_url=False)[:5]:
        loc = ".".join(str(p) for p in error["loc"]) or "trace"
        parts.append(f"{loc}: {error['msg']}")
    more = exc.error_count() - len(parts)
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)
