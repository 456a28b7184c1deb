"""The redactor: a whole trace redacted, text by text, in one scope (see _texts)."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from pydantic import BaseModel

from schemas import Trace
from sidecar.redaction._base import Detector, Entity
from sidecar.redaction._identifiers import holds_nothing, rewrite_ids
from sidecar.redaction._texts import (
    PLACEHOLDER,
    Mode,
    NativeTexts,
    Scope,
    TextRedaction,
    Texts,
    hmac_token,
)

__all__ = ["PLACEHOLDER", "Mode", "Redactor", "Scope", "TextRedaction"]

_Model = TypeVar("_Model", bound=BaseModel)

_MAX_IDS = 4096


_SIX_DIGITS = re.compile(r"(?:\D*\d){6}")
"""Six digits anywhere (matched from the start: each character is looked at once)."""


@functools.lru_cache(maxsize=1024)
def _inert_url(url: str | None) -> bool:
    """Whether redact_url leaves ``url`` as it is without looking at any of it: no password,
    query or fragment, no number of six digits or more in its path, and a URL urlsplit reads.
    Remembered per URL: a deployment's sources come from a few documents, cited again and
    again."""
    if not url:
        return True
    if "@" in url or "?" in url or "#" in url or "%" in url:
        return False
    if _SIX_DIGITS.match(url) is not None:
        return False  # a path may hold a number worth redacting
    try:
        urlsplit(url)
    except ValueError:
        return False
    return True


class Redactor:
    """Applies detectors to texts and traces. Implements sidecar.pipeline.TraceRedactor.

    ``modes`` maps an entity type to placeholder, hmac or drop (``default_mode`` otherwise);
    ``allow`` lists values never redacted (case-insensitive); ``hmac_key`` keys the hmac mode.
    Every text is redacted in the native engine, the Python detectors' entities with the
    engine's own (one set of rules, whatever the settings).
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
        self.detectors = tuple(detectors)
        self.modes = dict(modes or {})
        self.default_mode: Mode = default_mode
        self.allow = frozenset(value.casefold() for value in allow)
        uses_hmac = default_mode == "hmac" or "hmac" in self.modes.values()
        if uses_hmac and not hmac_key:
            raise ValueError("the hmac mode needs a key")
        self._texts: Texts = NativeTexts(
            self.detectors,
            modes=self.modes,
            default_mode=default_mode,
            allow=self.allow,
            hmac_key=hmac_key,
        )
        # Identifiers and labels holding a value are replaced by a keyed hash: the same
        # value, the same hash, wherever it appears (joins still work).
        self._id_key = id_key or hmac_key or os.urandom(32)
        self._ids: dict[str, str] = {}

    def __repr__(self) -> str:  # never show the key
        names = [detector.name for detector in self.detectors]
        return f"Redactor(detectors={names}, default_mode={self.default_mode!r})"

    def detect(self, text: str) -> list[Entity] | None:
        """Non-overlapping entities to replace, in text order; None when a detector failed."""
        return self._texts.detect(text)

    def redact_text(self, text: str, scope: Scope | None = None) -> TextRedaction:
        """Replace every detected value in ``text``; numbering continues within ``scope``.

        Replacing a value changes its neighbours' context (a phone number glued to an e-mail
        address only stands alone once the address is a placeholder), so detection runs again
        on the result until it finds nothing: the result is a fixed point, which is what makes
        redacting twice the same as redacting once. Later passes are rare and only see text
        outside placeholders, which shrinks with each pass.
        """
        return self._texts.redact_text(text, scope if scope is not None else Scope())

    def redact_identifier(self, value: str) -> str:
        """An identifier or label (a source or claim ID, the app, a tenant, a title's key)
        as it is when it holds nothing to redact, else ``<ID_`` and 16 hex digits of an
        HMAC-SHA256 of it under the deployment's key: the same value always gives the same
        hash, so a claim still cites its source. A value glued to a word by hyphens or
        underscores (``cust-0151-555-0142``) is found too. A detector failure hashes it."""
        known = self._ids.get(value)
        if known is not None:
            return known
        if not value or PLACEHOLDER.fullmatch(value):
            result = value
        else:
            result = (
                value
                if holds_nothing(value, self.detect)
                else hmac_token(self._id_key, "ID", value)
            )
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
                update={"model": model, "prompt_version": version}
            )
        return update

    def redact(self, trace: Trace) -> tuple[Trace, dict[str, int]]:
        """The trace with question, answer, claims, source titles, texts and URL queries, and
        unknown extra fields redacted, and the number of values replaced per entity type."""
        scope = Scope()
        claims, sources = trace.claims, trace.sources
        # The texts in the order they are numbered in, in one call where they can be: a
        # source URL that may hold a value takes its turn after its source's texts.
        inert = all(_inert_url(source.url) for source in sources)
        texts = [trace.question, trace.answer]
        texts += [claim.text for claim in claims]
        if inert:
            for source in sources:
                texts += (source.title, source.text)
        redacted = self._texts.redacted_all(texts, scope)
        # Most texts hold nothing to redact: a claim or source is copied only when one of
        # its texts changed, and the trace only when one of its parts did (the models are
        # not mutated downstream, so sharing is safe).
        changed = redacted[0] is not texts[0] or redacted[1] is not texts[1]
        ident = self.redact_identifier
        new_claims = []
        for at, claim in enumerate(claims, 2):
            text, claim_id, cites = redacted[at], claim.id, claim.citation_ids
            new_id = ident(claim_id)
            cited = [ident(c) for c in cites]
            # An identifier is the same string when it holds nothing, its hash when it
            # does: one list comparison tells whether any citation changed.
            if text is not claim.text or new_id is not claim_id or cited != cites:
                claim = claim.model_copy(update={"text": text, "id": new_id, "citation_ids": cited})
                changed = True
            new_claims.append(claim)
        new_sources = []
        at = 2 + len(claims)
        for source in sources:
            if inert:
                title, text, url = redacted[at], redacted[at + 1], source.url
                at += 2
            else:
                title = self._texts.redacted(source.title, scope)
                text = self._texts.redacted(source.text, scope)
                url = self.redact_url(source.url, scope) if source.url else source.url
            source_id = source.id
            new_id = ident(source_id)
            if (
                title is not source.title
                or text is not source.text
                or url is not source.url
                or new_id is not source_id
            ):
                source = source.model_copy(
                    update={"title": title, "text": text, "url": url, "id": new_id}
                )
                changed = True
            new_sources.append(source)
        labels = self._identifiers(trace)
        if not changed and not trace.extra and not labels:
            return trace, dict(scope.counts)
        update: dict[str, Any] = {
            "question": redacted[0],
            "answer": redacted[1],
            "claims": new_claims,
            "sources": new_sources,
            **labels,
        }
        if trace.extra:
            update["extra"] = self._redact_json(trace.extra, scope)
        return trace.model_copy(update=update), dict(scope.counts)

    def redact_url(self, url: str, scope: Scope | None = None) -> str:
        """A URL with its user name and password, the values in its path, its query string and
        fragment redacted; unchanged when they hold nothing sensitive."""
        scope = scope if scope is not None else Scope()
        try:
            parts = urlsplit(url)
        except ValueError:
            return self.redact_text(url, scope).text
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, host = netloc.rpartition("@")
            user, colon, password = userinfo.partition(":")
            # a user name is half a credential and often a person's name: it goes too
            if user and not PLACEHOLDER.fullmatch(user):
                user = self._texts.token("SECRET", user, scope)
            if colon and password and not PLACEHOLDER.fullmatch(password):
                password = self._texts.token("SECRET", password, scope)
            netloc = f"{user}{colon}{password}@{host}"
        path = "/".join(self._redact_component(segment, scope) for segment in parts.path.split("/"))
        query = self._redact_component(parts.query, scope)
        fragment = self._redact_component(parts.fragment, scope)
        if (netloc, path, query, fragment) == (
            parts.netloc,
            parts.path,
            parts.query,
            parts.fragment,
        ):
            return url
        return urlunsplit((parts.scheme, netloc, path, query, fragment))

    def _redact_component(self, component: str, scope: Scope) -> str:
        if not component:
            return component
        decoded = unquote_plus(component)
        redacted = self.redact_text(decoded, scope)
        # Keep the original encoding when nothing was found (byte-for-byte unchanged).
        return component if not redacted.entities and redacted.text == decoded else redacted.text

    def _redact_json(self, value: Any, scope: Scope) -> Any:
        if isinstance(value, str):
            return self._texts.redacted(value, scope)
        if isinstance(value, dict):
            return {
                self.redact_identifier(k) if isinstance(k, str) else k: self._redact_json(v, scope)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self._redact_json(v, scope) for v in value]
        return value
