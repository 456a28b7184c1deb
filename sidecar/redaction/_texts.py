"""One text at a time: every detector's values found and replaced in the native engine.

The Replacer (native/src/replacer/) runs the engine's detectors and calls each Python
detector beside them on every pass, then keeps, replaces and numbers the values by one set of
rules, whatever the settings; the Redactor walks a trace over this.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, Protocol

from sidecar._regex import compile_linear
from sidecar.redaction import _native
from sidecar.redaction._base import Detector, Entity
from sidecar.redaction._native import Detector as NativeDetector
from sidecar.redaction._native import DetectorError, Replacer

__all__ = ["PLACEHOLDER", "Mode", "NativeTexts", "Scope", "TextRedaction", "Texts", "hmac_token"]

logger = logging.getLogger(__name__)

Mode = Literal["placeholder", "hmac", "drop"]

PLACEHOLDER: Any = compile_linear(_native.PLACEHOLDER)
"""What the redactor writes (an RE2 pattern); never detected again, which makes redaction
idempotent."""

FAILED = "<REDACTED>"


def hmac_token(hmac_key: bytes, entity_type: str, key: str) -> str:
    """The hmac mode's replacement: the type and 16 hex digits of an HMAC-SHA256."""
    digest = hmac.new(hmac_key, f"{entity_type}\x00{key}".encode(), hashlib.sha256).hexdigest()
    return f"<{entity_type}_{digest[:16]}>"


@dataclass(frozen=True)
class TextRedaction:
    """One redacted text and the entities replaced, with offsets into the original text."""

    text: str
    entities: tuple[Entity, ...]


@dataclass
class Scope:
    """Placeholder numbering for one trace: the same value always gets the same placeholder."""

    tokens: dict[tuple[str, str], str] = field(default_factory=dict)
    numbers: Counter[str] = field(default_factory=Counter)
    counts: Counter[str] = field(default_factory=Counter)


class Texts(Protocol):
    """How a Redactor redacts one text in a trace's scope (a detector failure withholds the
    text as "<REDACTED>" and counts a REDACTION_ERROR)."""

    def detect(self, text: str) -> list[Entity] | None:
        """The entities the first pass replaces, in text order; None when a detector failed."""
        ...

    def redact_text(self, text: str, scope: Scope) -> TextRedaction:
        """``text`` redacted to a fixed point, with the entities replaced."""
        ...

    def redacted(self, text: str, scope: Scope) -> str:
        """``redact_text(text, scope).text``; the text itself when nothing was found."""
        ...

    def redacted_all(self, texts: list[str], scope: Scope) -> list[str]:
        """``redacted`` of each text in turn."""
        ...

    def token(self, entity_type: str, key: str, scope: Scope) -> str:
        """The replacement of one value, counted as one of its type ("" when dropped)."""
        ...


def _engine_of(detectors: Sequence[Detector]) -> tuple[NativeDetector, int | None]:
    """The first detector that is the compiled engine, and its place; an engine of no type
    when there is none (Python detectors alone)."""
    for at, detector in enumerate(detectors):
        engine = getattr(detector, "engine", None)
        if isinstance(engine, NativeDetector):
            return engine, at
    return NativeDetector([], country_code=1, email_obfuscations=False, entity=Entity), None


class NativeTexts:
    """``Texts`` in the native engine, every detector's values included."""

    def __init__(
        self,
        detectors: Sequence[Detector],
        *,
        modes: Mapping[str, Mode],
        default_mode: Mode,
        allow: Iterable[str],
        hmac_key: bytes | None,
    ) -> None:
        engine, engine_at = _engine_of(detectors)
        # The engine refuses an hmac mode without a token maker. The token maker holds the
        # key, not the Redactor: no reference cycle through the compiled object, which the
        # garbage collector cannot see into.
        self._replacer = Replacer(
            engine,
            modes=dict(modes),
            default_mode=default_mode,
            hmac_token=partial(hmac_token, hmac_key) if hmac_key else None,
            allow=sorted(allow),
            detectors=list(detectors),
            engine_at=engine_at,
        )

    def detect(self, text: str) -> list[Entity] | None:
        try:
            return self._replacer.kept(text)
        except DetectorError as exc:
            _withheld(str(exc))
            return None

    def redact_text(self, text: str, scope: Scope) -> TextRedaction:
        try:
            done = self._replacer.redact(text, scope.tokens, scope.numbers, scope.counts, True)
        except DetectorError as exc:
            _withheld(str(exc))
            return TextRedaction(FAILED, ())
        return TextRedaction(*done)

    def redacted(self, text: str, scope: Scope) -> str:
        try:
            return self._replacer.redact(text, scope.tokens, scope.numbers, scope.counts)
        except DetectorError as exc:
            _withheld(str(exc))
            return FAILED

    def redacted_all(self, texts: list[str], scope: Scope) -> list[str]:
        done, failures = self._replacer.redact_many(
            texts, scope.tokens, scope.numbers, scope.counts
        )
        for failure in failures:
            _withheld(failure)
        return done

    def token(self, entity_type: str, key: str, scope: Scope) -> str:
        return self._replacer.token(entity_type, key, scope.tokens, scope.numbers, scope.counts)


def _withheld(failure: str) -> None:
    """Fail closed: a text a detector cannot read is not let through (the message names the
    detector and the exception's class, never the text)."""
    logger.warning("%s; text withheld", failure)
