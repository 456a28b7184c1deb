"""What a dead letter carries of the record it sets aside: its bytes as read, or redacted.

``dead_letters.payload`` chooses; unset, each sink has its own default. The Kafka
dead-letter topic gets the record raw: the input topic holds the same bytes already (under
the same cluster's ACLs and retention), and a raw dead letter can be fixed and produced
again. A dead-letter file gets it redacted: the raw text is in no file until citewatch writes
one, and a file is copied, attached and kept where a topic is not.

A redacted letter is redacted as text first, so keyed syntaxes keep their keys (``"password":
"crickets"``); when it still reads as JSON, every string (and object key) is then redacted
again as JSON decodes it, so an escape (``\\u0040``, ``\\n`` glued to digits) hides nothing,
and the record is written back as JSON. Bytes that are not JSON, not even UTF-8 (the commonest
dead letters), are redacted as the text they decode to, invalid bytes replaced by U+FFFD. A
letter in which nothing is found keeps its bytes exactly.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any, Literal

from sidecar.config import DeadLetterPayload, Settings
from sidecar.errors import ConfigError
from sidecar.pipeline import Pipeline
from sidecar.redaction import Redactor, Scope, build_redactor

__all__ = ["DEFAULT_PAYLOAD", "LetterContent", "letter_content"]

logger = logging.getLogger(__name__)

LetterSink = Literal["kafka", "file"]

DEFAULT_PAYLOAD: dict[LetterSink, DeadLetterPayload] = {"kafka": "raw", "file": "redacted"}
"""The payload of each sink while ``dead_letters.payload`` is unset (see the module's
docstring for why)."""

_WITHHELD = "<REDACTED>"


class LetterContent:
    """The value, key and headers a dead letter carries, as ``payload`` says.

    ``redactor`` is required for ``redacted``. Nothing here raises: a letter that cannot be
    redacted is withheld (``<REDACTED>``), as the redactor withholds a text it cannot read.
    """

    def __init__(self, payload: DeadLetterPayload, redactor: Redactor | None = None) -> None:
        if payload == "redacted" and redactor is None:
            raise ValueError("a redacted dead letter needs a redactor")
        self.payload: DeadLetterPayload = payload
        self._redactor = redactor

    def value(self, raw: bytes | None) -> bytes | None:
        """The record's value as the letter carries it."""
        if raw is None or self._redactor is None:
            return raw
        return self._bytes(raw, Scope(), structured=True)

    def key(self, raw: bytes | None) -> bytes | None:
        """The record's key as the letter carries it (a key can be an address too)."""
        if raw is None or self._redactor is None:
            return raw
        return self._bytes(raw, Scope(), structured=False)

    def headers(
        self, raw: Sequence[tuple[str, bytes | None]]
    ) -> tuple[tuple[str, bytes | None], ...]:
        """The record's headers, each value as the letter carries it."""
        if self._redactor is None:
            return tuple(raw)
        scope = Scope()
        return tuple(
            (name, None if value is None else self._bytes(value, scope, structured=False))
            for name, value in raw
        )

    def text(self, raw: bytes) -> str:
        """The record's value as the text a dead-letter line holds (without its line end)."""
        line = raw.rstrip(b"\r\n")
        text = self._text(line, Scope(), structured=True)
        return line.decode("utf-8", errors="replace") if text is None else text

    def _bytes(self, raw: bytes, scope: Scope, *, structured: bool) -> bytes:
        text = self._text(raw, scope, structured=structured)
        return raw if text is None else text.encode("utf-8")

    def _text(self, raw: bytes, scope: Scope, *, structured: bool) -> str | None:
        """The redacted text of ``raw``; None when it is carried as it is (raw payload, or
        bytes that decode cleanly and hold nothing to redact)."""
        if self._redactor is None:
            return None
        try:
            return _redacted(self._redactor, raw, scope, structured=structured)
        except Exception as exc:  # fail closed: never the raw bytes
            logger.warning("dead letter redaction raised %s; value withheld", type(exc).__name__)
            return _WITHHELD


def _redacted(redactor: Redactor, raw: bytes, scope: Scope, *, structured: bool) -> str | None:
    try:
        text, clean = raw.decode("utf-8"), True
    except UnicodeDecodeError:
        text, clean = raw.decode("utf-8", errors="replace"), False
    before = sum(scope.counts.values())
    first = redactor.redact_text(text, scope).text
    result = first
    if structured:
        # Decoded, every string is redacted again: escapes hide nothing. The first pass's
        # result is preferred (its keyed values are placeholders already); when a
        # replacement broke the JSON, the original is decoded instead.
        for candidate in (first, text):
            try:
                parsed = json.loads(candidate, object_pairs_hook=_Pairs)
            except (ValueError, RecursionError):
                continue
            if isinstance(parsed, (_Pairs, list)):
                counted = sum(scope.counts.values())
                walked = _walk(redactor, parsed, scope)
                if candidate is not first or sum(scope.counts.values()) > counted:
                    result = _dumps(walked)
                if candidate is not first:
                    result = redactor.redact_text(result, scope).text
            break
    if clean and result == text and sum(scope.counts.values()) == before:
        return None
    return result


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its pairs, in order, duplicates kept (a duplicate_key dead letter
    is written back with both)."""


def _walk(redactor: Redactor, value: Any, scope: Scope) -> Any:
    if isinstance(value, str):
        return redactor.redact_text(value, scope).text
    if isinstance(value, _Pairs):
        return _Pairs((_walk(redactor, k, scope), _walk(redactor, v, scope)) for k, v in value)
    if isinstance(value, list):
        return [_walk(redactor, v, scope) for v in value]
    return value


def _dumps(value: Any) -> str:
    if isinstance(value, _Pairs):
        return "{" + ", ".join(f"{_dumps(k)}: {_dumps(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(_dumps, value)) + "]"
    return json.dumps(value, ensure_ascii=False)


def letter_content(settings: Settings, pipeline: Pipeline, *, sink: LetterSink) -> LetterContent:
    """The dead-letter content of ``sink`` under ``settings``: ``dead_letters.payload``, or
    the sink's default. Redacted letters use the pipeline's redactor (one built from
    ``redaction`` when the pipeline's is not a :class:`Redactor`). With redaction off the
    default is raw; raises :class:`ConfigError` when ``redacted`` is asked for then."""
    chosen = settings.dead_letters.payload
    payload = chosen if chosen is not None else DEFAULT_PAYLOAD[sink]
    if payload == "raw":
        return LetterContent("raw")
    if not settings.redaction.enabled:
        if chosen is None:
            return LetterContent("raw")  # nothing is redacted anywhere, as configured
        raise ConfigError("dead_letters.payload redacted needs redaction.enabled")
    redactor = pipeline.redactor
    if not isinstance(redactor, Redactor):
        redactor = build_redactor(settings.redaction)
    return LetterContent("redacted", redactor)
