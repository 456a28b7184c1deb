"""One adapted record to the JSON object of a trace v1, as :mod:`sidecar.decode` needs it:
binary documents dropped before the size check, the adapter's object, long sources cut."""

from __future__ import annotations

from typing import Any

from sidecar.errors import TraceDecodeError, TraceInvalidError
from sidecar.inputs._limits import MAX_BINARY_RATIO, drop_binary, fit_sources
from sidecar.inputs.base import InputAdapter

__all__ = ["adapted_object"]


def adapted_object(
    value: bytes | str,
    adapter: InputAdapter,
    *,
    max_bytes: int,
    max_text_chars: int,
) -> dict[str, Any]:
    """The trace object ``adapter`` makes of ``value``. Raises ``too_large`` when the record
    is over ``max_bytes`` once its base64 documents are dropped, and ``unreadable_input``
    (naming the format, never a value) for a shape the adapter did not foresee."""
    data = value.encode("utf-8", "surrogateescape") if isinstance(value, str) else value
    if len(data) <= max_bytes * MAX_BINARY_RATIO:
        data = drop_binary(data)  # they never reach a trace: not counted against the limit
    if len(data) > max_bytes:
        raise TraceDecodeError(
            f"record of {len(data)} bytes exceeds {max_bytes}", reason="too_large"
        )
    try:
        trace = adapter.to_trace(data)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        raise TraceInvalidError(
            f"{adapter.format} record of an unexpected shape ({type(exc).__name__})",
            reason="unreadable_input",
        ) from None
    fit_sources(trace, max_text_chars)
    return trace
