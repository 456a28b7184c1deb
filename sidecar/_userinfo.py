"""Credentials written into addresses (``https://user:password@host``), masked for display.

A URL setting may carry its credentials as userinfo: a judge behind a proxy with basic
auth, a Prometheus behind one. Wherever such a value is shown (``citewatch config show``,
the start-up and judge-failure lines, error messages, log lines), :func:`mask_userinfo`
replaces the userinfo with ``***``; the value itself, as the client uses it, is unchanged.
:class:`MaskUserinfo` does the same to every log record a handler writes, including the
lines of the HTTP client libraries, which print the URL they request.
"""

from __future__ import annotations

import logging
from typing import Any

from sidecar._regex import compile_linear

__all__ = ["MASK", "MaskUserinfo", "mask_userinfo", "mask_values"]

MASK = "***"
"""What the userinfo of an address is shown as."""

# With a scheme, everything of the authority before its last '@' is userinfo (as urlsplit
# reads it). Without one (an item of a host:port list), only name:secret@ is, so an e-mail
# address is left as it is. Matched by RE2: a log line or an error message may quote text
# that is not ours, and a backtracking engine is quadratic on some of it.
_USERINFO = compile_linear(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)[^\s/?#]*@"
    r"|(?P<sep>[\s,;'\"(\[=<]|^)[^\s,;'\"(\[=</?#:]+:[^\s,;'\"/?#]*@"
)


def mask_userinfo(text: str) -> str:
    """``text`` with the userinfo of every address in it replaced by ``***``.

    ``https://user:pw@host/v1`` becomes ``https://***@host/v1`` and ``user:pw@kafka:9092``
    becomes ``***@kafka:9092``; text without credentials is returned unchanged.
    """
    if "@" not in text:
        return text
    masked: str = _USERINFO.sub(_masked, text)
    return masked


def _masked(match: Any) -> str:
    return f"{match.group('scheme') or match.group('sep') or ''}{MASK}@"


def mask_values(value: object) -> object:
    """``value`` (JSON-like: dicts, lists, strings) with :func:`mask_userinfo` applied to
    every string in it, for showing a whole settings dump."""
    if isinstance(value, str):
        return mask_userinfo(value)
    if isinstance(value, dict):
        return {key: mask_values(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [mask_values(item) for item in value]
    return value


class MaskUserinfo(logging.Filter):
    """A handler filter writing each record's message with its userinfo masked."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_userinfo(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            # The formatter keeps an exc_text it finds: the traceback is written masked too.
            record.exc_text = mask_userinfo(_TRACEBACKS.formatException(record.exc_info))
        return True


_TRACEBACKS = logging.Formatter()
