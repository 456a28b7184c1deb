"""What an adapted record gives up to fit the trace limits instead of being lost.

- Binary documents inline in base64 (a PDF or an image in an Anthropic ``document`` or
  ``image`` block, an OpenAI ``file_data`` or image data URL, a Gemini ``inlineData``, a
  Bedrock ``bytes``) carry nothing the checks or the judge can read: they are dropped from
  the record before its size is checked (:func:`drop_binary`), and the document they were
  becomes a source without text (its quotes are ``quote_unverifiable``) unless the envelope's
  ``sources`` give its text.
- A source longer than ``limits.max_text_chars`` (a contract, a manual) is kept up to the
  limit with a ``source_truncated`` finding (:func:`fit_sources`).
"""

from __future__ import annotations

import re
from typing import Any

from sidecar.inputs._findings import ADAPTER_FINDINGS

__all__ = ["MAX_BINARY_RATIO", "drop_binary", "fit_sources"]

MAX_BINARY_RATIO = 16
"""A record up to this many times ``max_bytes`` is searched for binary documents; a larger
one is too large whatever it holds."""

_BINARY = re.compile(
    rb'"(?:data|file_data|bytes|image_url|url)"[ \t\r\n]*:[ \t\r\n]*'
    rb'"(?:data:[A-Za-z0-9/.+-]{1,100};base64,)?[A-Za-z0-9+/=\\]{256,}"'
)
"""A JSON member whose value is a long base64 string or a base64 data URL (JSON may write
``/`` as ``\\/``, so a backslash may occur; one before the closing quote is no end)."""


def drop_binary(value: bytes) -> bytes:
    """``value`` with every base64 document replaced by an empty string: one scan, linear."""
    if b"base64" not in value and b'"bytes"' not in value and b'"data"' not in value:
        return value
    return _BINARY.sub(_empty, value)


def _empty(match: re.Match[bytes]) -> bytes:
    text = match.group(0)
    body = text[:-1]
    if (len(body) - len(body.rstrip(b"\\"))) % 2:  # the quote is escaped: not the end
        return text
    return text[: text.index(b":") + 1] + b' ""'


def fit_sources(trace: Any, max_chars: int) -> None:
    """Cut every source text of the adapted ``trace`` to ``max_chars``, noting each cut."""
    if not isinstance(trace, dict) or not isinstance(trace.get("sources"), list):
        return
    notes: list[dict[str, str]] = []
    for source in trace["sources"]:
        text = source.get("text") if isinstance(source, dict) else None
        if isinstance(text, str) and len(text) > max_chars:
            source["text"] = text[:max_chars]
            notes.append(
                {
                    "code": "source_truncated",
                    "source_id": str(source.get("id") or ""),
                    "detail": f"{len(text)} characters kept to {max_chars}",
                }
            )
    if notes:
        extra = trace.setdefault("extra", {})
        if isinstance(extra, dict):
            extra[ADAPTER_FINDINGS] = [*(extra.get(ADAPTER_FINDINGS) or ()), *notes]
