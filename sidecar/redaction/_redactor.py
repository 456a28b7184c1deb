"""The redactor: detectors applied to a text or a whole trace, values replaced per mode."""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter
from typing import Any, Literal, TypeVar
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from pydantic import BaseModel

from schemas import Trace
from sidecar._regex import compile_linear
from sidecar.redaction._base import Detector, Entity
from sidecar.redaction._identifiers import rewrite_ids
from sidecar.redaction._native import Detector as NativeDetector
from sidecar.redaction._native import Replacer

__all__ = ["PLACEHOLDER", "Mode", "Redactor", "Scope", "TextRedaction"]

logger = logging.getLogger(__name__)

Mode = Literal["placeholder", "hmac", "drop"]
_Model = TypeVar("_Model", bound=BaseModel)

PLACEHOLDER: Any = compile_linear(r"<[A-Z][A-Z0-9_]*_(?:[0-9]+|[0-9a-f]{16})>|<REDACTED>")
"""What the redactor writes (an RE2 pattern); never detected again, which makes redaction
idempotent."""

_FAILED = "<REDACTED>"


def _hmac_token(hmac_key: bytes, entity_type: str, key: str) -> str:
    digest = hmac.new(hmac_key, f"{entity_type}\x00{key}".encode(), hashlib.sha256).hexdigest()
    return f"<{entity_type}_{digest[:16]}>"


def _inert_url(url: str | None) -> bool:
    """Whether redact_url leaves ``url`` as it is without looking at any of it: no password,
    query or fragment, and a URL urlsplit reads."""
    if not url:
        return True
    if "@" in url or "?" in url or "#" in url:
        return False
    try:
        urlsplit(url)
    except ValueError:
        return False
    return True


_START = attrgetter("start")
_TYPE = attrgetter("type")


def _precedence(entity: Entity) -> tuple[int, int, bool]:
    return entity.start, entity.start - entity.end, entity.type == "SECRET"
_MAX_PASSES = 16
_MAX_IDS = 4096


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


class Redactor:
    """Applies detectors to texts and traces. Implements sidecar.pipeline.TraceRedactor.

    ``modes`` maps an entity type to placeholder, hmac or drop (``default_mode`` otherwise);
    ``allow`` lists values never redacted (case-insensitive); ``hmac_key`` keys the hmac mode.
    """

    def __init__(
        self,
        detectors: Sequence[Detector],
        *,
        modes: Mapping[str, Mode] | None = None,
        default_mode: Mode = "placeholder",
        allow: Iterable[str] = (),
        hmac_key: bytes | None = None,
        id_key: bytes | None = None,
    ) -> None:
        self.detectors = list(detectors)
        self.modes = dict(modes or {})
        self.default_mode: Mode = default_mode
        self.allow = frozenset(value.casefold() for value in allow)
        uses_hmac = default_mode == "hmac" or "hmac" in self.modes.values()
        if uses_hmac and not hmac_key:
            raise ValueError("the hmac mode needs a key")
        self._hmac_key = hmac_key or b""
        # Identifiers and labels holding a value are replaced by a keyed hash: the same
        # value, the same hash, wherever it appears (joins still work).
        self._id_key = id_key or hmac_key or os.urandom(32)
        self._ids: dict[str, str] = {}
        # The engine's own overlap resolution, for when its detector is the only one and
        # there is no allow-list (detect checks that this still holds).
        self._native_of: Detector | None = self.detectors[0] if self.detectors else None
        self._native: Callable[[str], list[Entity]] | None = getattr(
            self._native_of, "detect_kept", None)
        # ... and whole texts are redacted there, passes, replacements and the allow-list
        # included, in the same scope (see _native_replacer).
        engine = getattr(self._native_of, "engine", None)
        self._replacer: Replacer | None = None
        if isinstance(engine, NativeDetector):
            # The token maker holds the key, not the Redactor: no reference cycle through
            # the compiled object, which the garbage collector cannot see into.
            allow = {"allow": sorted(self.allow)} if self.allow else {}
            try:
                self._replacer = Replacer(
                    engine, modes=self.modes, default_mode=default_mode,
                    hmac_token=partial(_hmac_token, self._hmac_key) if uses_hmac else None,
                    **allow)
            except TypeError:  # an engine built before it took an allow-list: Python rules
                logger.warning("the redaction engine takes no allow-list; texts take the "
                               "Python path (rebuild native/)")
        self.detector_errors = 0

    def __repr__(self) -> str:  # never show the key
        names = [detector.name for detector in self.detectors]
        return f"Redactor(detectors={names}, default_mode={self.default_mode!r})"

    def detect(self, text: str) -> list[Entity] | None:
        """Non-overlapping entities to replace, in text order; None when a detector failed."""
        detectors = self.detectors
        native = self._native
        if (native is not None and len(detectors) == 1 and detectors[0] is self._native_of
                and not self.allow and "<" not in text):
            # The built-in detectors alone: the engine resolves overlaps itself.
            try:
                result: list[Entity] = native(text)
            except Exception as exc:
                self._detector_failed(detectors[0], exc)
                return None
            return result
        found: list[Entity] = []
        for detector in detectors:
            try:
                found.extend(detector.detect(text))
            except Exception as exc:
                self._detector_failed(detector, exc)
                return None
        if not found:
            return []
        placeholders = "<" in text
        if len(found) == 1 and not placeholders and not self.allow:
            return found if found[0].end > found[0].start else []  # most texts: one entity
        protected = [m.span() for m in PLACEHOLDER.finditer(text)] if placeholders else []
        if len(found) > 1:
            # Earliest, then longest; on the same span a validated type beats the SECRET
            # heuristic (an address after the word "token" is an EMAIL). By start alone when
            # no two share one (the same order, without a Python key call per entity).
            found.sort(key=_START)
            if len(set(map(_START, found))) < len(found):
                found.sort(key=_precedence)
        allow = self.allow
        kept: list[Entity] = []
        last_end = 0
        if not protected and not allow:
            for entity in found:
                if entity.start >= last_end and entity.end > entity.start:
                    kept.append(entity)
                    last_end = entity.end
            return kept
        shield = 0  # protected[shield] is the first placeholder that may still overlap
        for entity in found:
            if entity.start < last_end or entity.end <= entity.start:
                continue
            # Entities come by start and placeholders do not overlap: one sweep over both.
            while shield < len(protected) and protected[shield][1] <= entity.start:
                shield += 1
            if shield < len(protected) and protected[shield][0] < entity.end:
                continue
            if allow:
                raw = text[entity.start:entity.end]
                if raw.casefold() in allow or (entity.key or raw).casefold() in allow:
                    continue
            kept.append(entity)
            last_end = entity.end
        return kept

    def _detector_failed(self, detector: Detector, exc: Exception) -> None:
        """Fail closed: a text a detector cannot read is not let through."""
        self.detector_errors += 1
        logger.warning("redaction detector %s failed (%s); text withheld",
                       detector.name, type(exc).__name__)

    def redact_text(self, text: str, scope: Scope | None = None) -> TextRedaction:
        """Replace every detected value in ``text``; numbering continues within ``scope``.

        Replacing a value changes its neighbours' context (a phone number glued to an e-mail
        address only stands alone once the address is a placeholder), so detection runs again
        on the result until it finds nothing: the result is a fixed point, which is what makes
        redacting twice the same as redacting once. Later passes are rare and only see text
        outside placeholders, which shrinks with each pass.
        """
        scope = scope if scope is not None else Scope()
        replacer = self._native_replacer()
        if replacer is not None:
            try:
                done = replacer.redact(text, scope.tokens, scope.numbers, scope.counts, True)
            except Exception as exc:
                self._detector_failed(self.detectors[0], exc)
                return self._failed(scope)
            if done is not None:
                return TextRedaction(*done)
        entities = self.detect(text)
        if entities is None:
            return self._failed(scope)
        if not entities:
            return TextRedaction(text, ())
        found = list(entities)
        current, origin = self._apply(text, entities, scope, None)
        for _ in range(_MAX_PASSES):
            more = self.detect(current)
            if more is None:
                return self._failed(scope)
            if not more:
                found.sort(key=_START)
                return TextRedaction(current, tuple(found))
            if origin is None:
                origin = self._origin(text, entities, scope)
            found.extend(e._replace(start=origin[e.start], end=origin[e.end - 1] + 1)
                         for e in more)
            current, origin = self._apply(current, more, scope, origin)
        return self._failed(scope)

    def _native_replacer(self) -> Replacer | None:
        """The engine's whole-text redaction, while the built-in detectors are still this
        redactor's only ones (the same rules as redact_text's, without a Python frame per
        pass or value); None otherwise."""
        replacer = self._replacer
        if (replacer is not None and len(self.detectors) == 1
                and self.detectors[0] is self._native_of):
            return replacer
        return None

    def _redacted(self, text: str, scope: Scope) -> str:
        """``redact_text(text, scope).text``; the text itself when nothing was found."""
        replacer = self._native_replacer()
        if replacer is not None:
            try:
                done = replacer.redact(text, scope.tokens, scope.numbers, scope.counts)
            except Exception as exc:
                self._detector_failed(self.detectors[0], exc)
                return self._failed(scope).text
            if done is not None:
                return done
        return self.redact_text(text, scope).text

    def _redacted_all(self, texts: list[str], scope: Scope) -> list[str]:
        """``_redacted`` of each text in turn (in one engine call where it can be)."""
        replacer = self._native_replacer()
        if replacer is None:
            return [self.redact_text(text, scope).text for text in texts]
        results: list[str] = []
        while len(results) < len(texts):
            done, failures = replacer.redact_many(texts[len(results):], scope.tokens,
                                                  scope.numbers, scope.counts)
            if failures:
                self.detector_errors += failures
                logger.warning("redaction detector %s failed on %d text(s) (RuntimeError); "
                               "withheld", self.detectors[0].name, failures)
            for text in done:
                results.append(text if text is not None
                               else self.redact_text(texts[len(results)], scope).text)
        return results

    def _failed(self, scope: Scope) -> TextRedaction:
        scope.counts["REDACTION_ERROR"] += 1
        return TextRedaction(_FAILED, ())

    def _apply(self, text: str, entities: list[Entity], scope: Scope,
               origin: list[int] | None) -> tuple[str, list[int] | None]:
        """Text with entities replaced and, when ``origin`` (index in the original text of
        each character) is given, the same map for the new text (-1 inside placeholders)."""
        pieces: list[str] = []
        new_origin: list[int] | None = [] if origin is not None else None
        cursor = 0
        scope.counts.update(map(_TYPE, entities))
        tokens = scope.tokens
        for entity in entities:
            key = entity.key if entity.key is not None else text[entity.start:entity.end]
            token = tokens.get((entity.type, key))
            if token is None:
                token = self._token(entity, text, scope)
            pieces.append(text[cursor:entity.start])
            pieces.append(token)
            if origin is not None and new_origin is not None:
                new_origin.extend(origin[cursor:entity.start])
                new_origin.extend([-1] * len(token))
            cursor = entity.end
        pieces.append(text[cursor:])
        if origin is not None and new_origin is not None:
            new_origin.extend(origin[cursor:])
        return "".join(pieces), new_origin

    def _origin(self, text: str, entities: list[Entity], scope: Scope) -> list[int]:
        """The origin map after the first pass, rebuilt from its entities (tokens are
        already in the scope, so nothing is counted twice)."""
        origin: list[int] = []
        cursor = 0
        for entity in entities:
            mode = self.modes.get(entity.type, self.default_mode)
            key = entity.key if entity.key is not None else text[entity.start:entity.end]
            token = "" if mode == "drop" else scope.tokens[(entity.type, key)]
            origin.extend(range(cursor, entity.start))
            origin.extend([-1] * len(token))
            cursor = entity.end
        origin.extend(range(cursor, len(text)))
        return origin

    def _replacement(self, entity: Entity, text: str, scope: Scope) -> str:
        scope.counts[entity.type] += 1
        return self._token(entity, text, scope)

    def _token(self, entity: Entity, text: str, scope: Scope) -> str:
        """The entity's replacement, made and remembered in the scope on first sight."""
        mode = self.modes.get(entity.type, self.default_mode)
        if mode == "drop":
            return ""
        key = entity.key if entity.key is not None else text[entity.start:entity.end]
        token = scope.tokens.get((entity.type, key))
        if token is None:
            if mode == "hmac":
                token = _hmac_token(self._hmac_key, entity.type, key)
            else:
                scope.numbers[entity.type] += 1
                token = f"<{entity.type}_{scope.numbers[entity.type]}>"
            scope.tokens[(entity.type, key)] = token
        return token

    def redact_identifier(self, value: str) -> str:
        """An identifier or label (a source or claim ID, the app, a tenant, a title's key)
        as it is when it holds nothing to redact, else ``<ID_`` and 16 hex digits of an
        HMAC-SHA256 of it under the deployment's key: the same value always gives the same
        hash, so a claim still cites its source. A detector failure hashes it too."""
        known = self._ids.get(value)
        if known is not None:
            return known
        if not value or PLACEHOLDER.fullmatch(value):
            result = value
        else:
            found = self.detect(value)
            result = value if found == [] else _hmac_token(self._id_key, "ID", value)
        if len(self._ids) >= _MAX_IDS:
            self._ids.clear()
        self._ids[value] = result
        return result

    def redact_record_ids(self, record: _Model, raw: Trace, redacted: Trace) -> _Model:
        """``record`` (built from checks of the raw trace) with every identifier the
        redaction of ``raw`` hashed written as in ``redacted``, also inside free text such
        as a finding's detail; the record itself when no identifier changed."""
        return rewrite_ids(record, raw, redacted)

    def _identifiers(self, trace: Trace) -> dict[str, Any]:
        """The trace's identifier and label fields that change, as a model_copy update."""
        ident = self.redact_identifier
        update: dict[str, Any] = {}
        for name in ("app", "tenant", "environment"):
            value = getattr(trace, name)
            if value and ident(value) is not value:
                update[name] = ident(value)
        generator = trace.generator
        model, version = ident(generator.model), ident(generator.prompt_version)
        if model is not generator.model or version is not generator.prompt_version:
            update["generator"] = generator.model_copy(
                update={"model": model, "prompt_version": version})
        return update

    def redact(self, trace: Trace) -> tuple[Trace, dict[str, int]]:
        """The trace with question, answer, claims, source titles, texts and URL queries, and
        unknown extra fields redacted, and the number of values replaced per entity type."""
        scope = Scope()
        # The texts in the order they are numbered in, in one call where they can be: a
        # source URL that may hold a value takes its turn after its source's texts.
        inert = all(_inert_url(source.url) for source in trace.sources)
        texts = [trace.question, trace.answer, *(claim.text for claim in trace.claims)]
        if inert:
            for source in trace.sources:
                texts += (source.title, source.text)
        redacted = iter(self._redacted_all(texts, scope))
        question, answer = next(redacted), next(redacted)
        # Most texts hold nothing to redact: a claim or source is copied only when one of
        # its texts changed, and the trace only when one of its parts did (the models are
        # not mutated downstream, so sharing is safe).
        changed = question is not trace.question or answer is not trace.answer
        ident = self.redact_identifier
        claims = []
        for claim in trace.claims:
            text = next(redacted)
            claim_id = ident(claim.id)
            cited = [ident(c) for c in claim.citation_ids]
            if (text is not claim.text or claim_id is not claim.id
                    or any(a is not b for a, b in zip(cited, claim.citation_ids, strict=True))):
                claim = claim.model_copy(update={"text": text, "id": claim_id,
                                                 "citation_ids": cited})
                changed = True
            claims.append(claim)
        sources = []
        for source in trace.sources:
            if inert:
                title, text, url = next(redacted), next(redacted), source.url
            else:
                title = self._redacted(source.title, scope)
                text = self._redacted(source.text, scope)
                url = self.redact_url(source.url, scope) if source.url else source.url
            source_id = ident(source.id)
            if (title is not source.title or text is not source.text or url is not source.url
                    or source_id is not source.id):
                source = source.model_copy(update={"title": title, "text": text, "url": url,
                                                   "id": source_id})
                changed = True
            sources.append(source)
        labels = self._identifiers(trace)
        if not changed and not trace.extra and not labels:
            return trace, dict(scope.counts)
        update: dict[str, Any] = {"question": question, "answer": answer, "claims": claims,
                                  "sources": sources, **labels}
        if trace.extra:
            update["extra"] = self._redact_json(trace.extra, scope)
        return trace.model_copy(update=update), dict(scope.counts)

    def redact_url(self, url: str, scope: Scope | None = None) -> str:
        """A URL with its password, query string and fragment redacted; unchanged when they
        hold nothing sensitive."""
        scope = scope if scope is not None else Scope()
        try:
            parts = urlsplit(url)
        except ValueError:
            return self.redact_text(url, scope).text
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, host = netloc.rpartition("@")
            user, colon, password = userinfo.partition(":")
            if colon and password and not PLACEHOLDER.fullmatch(password):
                token = self._replacement(Entity("SECRET", 0, 0, password), "", scope)
                netloc = f"{user}:{token}@{host}"
        query = self._redact_component(parts.query, scope)
        fragment = self._redact_component(parts.fragment, scope)
        if (netloc, query, fragment) == (parts.netloc, parts.query, parts.fragment):
            return url
        return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))

    def _redact_component(self, component: str, scope: Scope) -> str:
        if not component:
            return component
        decoded = unquote_plus(component)
        redacted = self.redact_text(decoded, scope)
        # Keep the original encoding when nothing was found (byte-for-byte unchanged).
        return component if not redacted.entities and redacted.text == decoded else redacted.text

    def _redact_json(self, value: Any, scope: Scope) -> Any:
        if isinstance(value, str):
            return self._redacted(value, scope)
        if isinstance(value, dict):
            return {self.redact_identifier(k) if isinstance(k, str) else k:
                    self._redact_json(v, scope) for k, v in value.items()}
        if isinstance(value, list):
            return [self._redact_json(v, scope) for v in value]
        return value
