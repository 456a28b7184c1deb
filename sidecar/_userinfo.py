"""Credentials masked for display: those written into addresses
(``https://user:password@host``) and every secret the settings hold.

A URL setting may carry its credentials as userinfo: a judge behind a proxy with basic
auth, a Prometheus behind one. Wherever such a value is shown (``citewatch config show``,
the start-up and judge-failure lines, error messages, log lines), :func:`mask_userinfo`
replaces the userinfo with ``***``; the value itself, as the client uses it, is unchanged.
:class:`MaskUserinfo` does the same to every log record a handler writes, including the
lines of the HTTP client libraries, which print the URL they request.

Secrets are masked in log lines wherever they stand: :func:`remember_secret` adds one (the
CLI adds every secret of the settings it loads; the Kafka clients add each OAUTHBEARER
token they are given), and :func:`mask_secrets` replaces it, as written and as the repr of
a str or bytes would quote it, with ``***``. kafka-python's debug lines print its whole
configuration and every request it sends, the SASL PLAIN credentials among them.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from sidecar._regex import compile_linear

__all__ = [
    "MASK",
    "MaskUserinfo",
    "forget_secrets",
    "mask_secrets",
    "mask_userinfo",
    "mask_values",
    "remember_secret",
]

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


MIN_SECRET = 4
"""Shorter values are not masked: they would mask ordinary words and numbers."""

_SECRETS: tuple[str, ...] = ()
"""Every spelling of every remembered secret, longest first."""
_SECRETS_LOCK = threading.Lock()


def _spellings(secret: str) -> set[str]:
    """``secret`` as a log line may show it: as is, inside a str's or a bytes' repr, and
    JSON-escaped."""
    spelled = {secret, repr(secret)[1:-1], json.dumps(secret)[1:-1]}
    spelled.add(repr(secret.encode("utf-8"))[2:-1])
    return {text for text in spelled if len(text) >= MIN_SECRET}


def remember_secret(secret: str | None) -> None:
    """Mask ``secret`` in every log line from now on (a value shorter than
    :data:`MIN_SECRET` characters is not masked)."""
    global _SECRETS
    if not secret:
        return
    with _SECRETS_LOCK:
        _SECRETS = tuple(sorted(set(_SECRETS) | _spellings(secret), key=len, reverse=True))


def forget_secrets() -> None:
    """Stop masking every secret remembered so far (between tests)."""
    global _SECRETS
    with _SECRETS_LOCK:
        _SECRETS = ()


def mask_secrets(text: str) -> str:
    """``text`` with every remembered secret replaced by ``***``, longest first (a secret
    inside another is masked with it)."""
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def _masked_text(text: str) -> str:
    return mask_secrets(mask_userinfo(text))


class MaskUserinfo(logging.Filter):
    """A handler filter writing each record's message, and its traceback, with the
    userinfo of addresses and every remembered secret masked."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = _masked_text(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            # The formatter keeps an exc_text it finds: the traceback is written masked too.
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = _masked_text(record.exc_text)
        if record.stack_info:
            record.stack_info = _masked_text(record.stack_info)
        return True


_TRACEBACKS = logging.Formatter()
