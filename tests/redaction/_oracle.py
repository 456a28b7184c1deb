"""The redaction rules in Python: the reference the native engine is held to.

``OracleTexts`` is ``sidecar.redaction._texts.Texts`` written out in Python, one detector
call at a time: the same choice of entities (earliest, then longest; on the same span a type
before SECRET, ties in the detectors' order; none overlapping one kept before it, a
placeholder or nothing; an allow-list's values passed over), the same replacements and
numbering, the same passes to a fixed point. ``oracle(redactor)`` makes a Redactor use it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter

from sidecar.redaction import PLACEHOLDER, Detector, Entity, Mode, Redactor, Scope, TextRedaction
from sidecar.redaction._texts import FAILED, hmac_token

logger = logging.getLogger(__name__)

_MAX_PASSES = 16
_START = attrgetter("start")
# sidecar.redaction.PLACEHOLDER on Python's re, which reads any str
_PLACEHOLDER = re.compile(PLACEHOLDER.pattern)


def _precedence(entity: Entity) -> tuple[int, int, bool]:
    return entity.start, entity.start - entity.end, entity.type == "SECRET"


class OracleTexts:
    """The Python rules of one text's redaction."""

    def __init__(
        self,
        detectors: Sequence[Detector],
        *,
        modes: Mapping[str, Mode],
        default_mode: Mode,
        allow: Iterable[str],
        hmac_key: bytes,
    ) -> None:
        self.detectors = list(detectors)
        self.modes = dict(modes)
        self.default_mode = default_mode
        self.allow = frozenset(allow)
        self._hmac_key = hmac_key

    def detect(self, text: str) -> list[Entity] | None:
        found: list[Entity] = []
        for detector in self.detectors:
            try:
                found.extend(detector.detect(text))
            except Exception as exc:
                logger.warning(
                    "redaction detector %s failed (%s); text withheld",
                    detector.name,
                    type(exc).__name__,
                )
                return None
        protected = [m.span() for m in _PLACEHOLDER.finditer(text)]
        found.sort(key=_precedence)
        kept: list[Entity] = []
        last_end = 0
        for entity in found:
            if entity.start < last_end or entity.end <= entity.start:
                continue
            if any(a < entity.end and entity.start < b for a, b in protected):
                continue
            raw = text[entity.start : entity.end]
            if raw.casefold() in self.allow or (entity.key or raw).casefold() in self.allow:
                continue
            kept.append(entity)
            last_end = entity.end
        return kept

    def redact_text(self, text: str, scope: Scope) -> TextRedaction:
        entities = self.detect(text)
        if entities is None:
            return self._failed(scope)
        if not entities:
            return TextRedaction(text, ())
        found = list(entities)
        origin: list[int] = list(range(len(text)))
        current = text
        for _ in range(_MAX_PASSES + 1):
            current, origin = self._apply(current, entities, scope, origin)
            entities = self.detect(current)
            if entities is None:
                return self._failed(scope)
            if not entities:
                found.sort(key=_START)
                return TextRedaction(current, tuple(found))
            found.extend(
                e._replace(start=origin[e.start], end=origin[e.end - 1] + 1)
                for e in entities
                if origin[e.start] >= 0 and origin[e.end - 1] >= 0
            )
        return self._failed(scope)

    def redacted(self, text: str, scope: Scope) -> str:
        return self.redact_text(text, scope).text

    def redacted_all(self, texts: list[str], scope: Scope) -> list[str]:
        return [self.redacted(text, scope) for text in texts]

    def token(self, entity_type: str, key: str, scope: Scope) -> str:
        scope.counts[entity_type] += 1
        return self._token(entity_type, key, scope)

    def _failed(self, scope: Scope) -> TextRedaction:
        scope.counts["REDACTION_ERROR"] += 1
        return TextRedaction(FAILED, ())

    def _apply(
        self, text: str, entities: list[Entity], scope: Scope, origin: list[int]
    ) -> tuple[str, list[int]]:
        """Text with entities replaced, and the index in the original text of each of its
        characters (-1 inside a replacement)."""
        pieces: list[str] = []
        new_origin: list[int] = []
        cursor = 0
        for entity in entities:
            scope.counts[entity.type] += 1
            key = entity.key if entity.key is not None else text[entity.start : entity.end]
            token = self._token(entity.type, key, scope)
            pieces += (text[cursor : entity.start], token)
            new_origin += origin[cursor : entity.start]
            new_origin += [-1] * len(token)
            cursor = entity.end
        pieces.append(text[cursor:])
        new_origin += origin[cursor:]
        return "".join(pieces), new_origin

    def _token(self, entity_type: str, key: str, scope: Scope) -> str:
        """The replacement of a value, made and remembered in the scope on first sight."""
        mode = self.modes.get(entity_type, self.default_mode)
        if mode == "drop":
            return ""
        token = scope.tokens.get((entity_type, key))
        if token is None:
            if mode == "hmac":
                token = hmac_token(self._hmac_key, entity_type, key)
            else:
                scope.numbers[entity_type] += 1
                token = f"<{entity_type}_{scope.numbers[entity_type]}>"
            scope.tokens[(entity_type, key)] = token
        return token


def oracle(redactor: Redactor, hmac_key: bytes | None = None) -> Redactor:
    """``redactor`` redacting its texts by the Python rules (``hmac_key``: its key, for the
    hmac mode)."""
    redactor._texts = OracleTexts(
        redactor.detectors,
        modes=redactor.modes,
        default_mode=redactor.default_mode,
        allow=redactor.allow,
        hmac_key=hmac_key or b"",
    )
    return redactor
